/* auth/jwt in the controller (AuthAltTypes=auth/jwt): herdrestd's JWT_REQUEST
 * envelopes, whose inner request is handled as the token's user, and
 * TOKEN_CREATE (`scontrol token`).  The key is read here only: herdrestd
 * forwards tokens and never holds it.  doc/protocol.md "Requests on a user's
 * token" gives the rules; doc/rest.md the operator's side. */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include "common/log.h"
#include "common/token.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"

/* scontrol token's default lifespan (Slurm's); and a ceiling. */
#define TOKEN_DEFAULT_LIFESPAN 1800
#define TOKEN_MAX_LIFESPAN (100L * 365 * 86400)
#define RELAYS_MAX 16

static struct {
	bool enabled;                  /* AuthAltTypes=auth/jwt */
	bool user_creation_disabled;   /* AuthAltParameters=disable_token_creation */
	struct token_key key;
	uid_t relays[RELAYS_MAX];      /* restd_user=: who may send JWT_REQUEST, besides root and SlurmUser */
	size_t nrelays;
	uid_t slurm_uid;
} jwt;

/* What a token may be used for: what a REST client asks of the controller.
 * Never what node daemons send, nor TOKEN_CREATE (a token mints no tokens). */
static const int jwt_types[] = {
	MSG_PING, MSG_SUBMIT_JOB, MSG_JOB_INFO, MSG_CANCEL_JOB, MSG_UPDATE_JOB, MSG_NODE_INFO,
	MSG_PART_INFO, MSG_JOB_COUNTS, MSG_ACCT_JOBS, MSG_STEP_INFO, MSG_RESV_INFO,
	MSG_SHARE_INFO, MSG_PRIO_INFO, MSG_LICENSE_INFO,
};

static int uid_of(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return -1;
	*uid = pw.pw_uid;
	if (gid)
		*gid = pw.pw_gid;
	return 0;
}

int auth_jwt_configure(const struct conf *conf, struct herd_error *err)
{
	const char *slurm_user = conf_get(conf, "SlurmUser");
	const char *params = conf_get(conf, "AuthAltParameters");
	char *path = NULL, *relays = NULL, *disable = NULL;
	uid_t slurm_uid = 0, relay[RELAYS_MAX];
	size_t nrelays = 0;
	struct token_key key = { 0 };
	int rc = -1;

	if (slurm_user && uid_of(slurm_user, &slurm_uid, NULL) < 0)
		slurm_uid = 0;   /* reconf_settings says so */
	if (!auth_alt_jwt(conf_get(conf, "AuthAltTypes"))) {
		token_key_clear(&jwt.key);
		memset(&jwt, 0, sizeof(jwt));
		return 0;
	}
	path = auth_alt_param(params, "jwt_key");
	if (!path || !*path) {
		errprintf(err, "%s: AuthAltTypes=auth/jwt needs AuthAltParameters=jwt_key=PATH", conf->path);
		goto out;
	}
	if (token_key_load(path, slurm_uid, &key, err) < 0)
		goto out;
	relays = auth_alt_param(params, "restd_user");
	for (char *save = NULL, *name = relays ? strtok_r(relays, ":", &save) : NULL; name;
	     name = strtok_r(NULL, ":", &save)) {
		if (nrelays == RELAYS_MAX) {
			errprintf(err, "%s: restd_user= names more than %d users", conf->path, RELAYS_MAX);
			goto out;
		}
		if (uid_of(name, &relay[nrelays], NULL) < 0) {
			errprintf(err, "%s: restd_user=%s: no such user", conf->path, name);
			goto out;
		}
		nrelays++;
	}
	disable = auth_alt_param(params, "disable_token_creation");
	/* Nothing fails from here: the new settings replace the old whole. */
	token_key_clear(&jwt.key);
	jwt.enabled = true;
	jwt.user_creation_disabled = disable != NULL;
	jwt.key = key;
	key.data = NULL;
	memcpy(jwt.relays, relay, nrelays * sizeof(relay[0]));
	jwt.nrelays = nrelays;
	jwt.slurm_uid = slurm_uid;
	rc = 0;
out:
	token_key_clear(&key);
	free(path);
	free(relays);
	free(disable);
	return rc;
}

static bool may_relay(uid_t uid)
{
	if (uid == 0 || uid == jwt.slurm_uid)
		return true;
	for (size_t i = 0; i < jwt.nrelays; i++)
		if (jwt.relays[i] == uid)
			return true;
	return false;
}

int auth_jwt_unwrap(struct net_req *req)
{
	const char *token = json_string_value(json_object_get(req->body, "token"));
	const char *named = json_string_value(json_object_get(req->body, "user"));
	int type = json_integer_value(json_object_get(req->body, "type"));
	json_t *inner = json_object_get(req->body, "body");
	char user[TOKEN_USER_MAX];
	struct herd_error err;
	uid_t uid;
	gid_t gid;
	size_t i;

	if (!jwt.enabled) {
		net_respond(req, HERD_ERR_AUTH, NULL,
			    "Authentication by token is not enabled (AuthAltTypes=auth/jwt)");
		return -1;
	}
	/* The frame's MUNGE identity vouches for the relay, the token for the
	 * user: a token reaches the verifier only from herdrestd's account. */
	if (!may_relay(req->uid)) {
		log_error("JWT_REQUEST from uid %u refused: not root, SlurmUser or restd_user",
			  (unsigned)req->uid);
		net_respond(req, HERD_ERR_ACCESS, NULL,
			    "Access/permission denied: this account may not relay tokens "
			    "(AuthAltParameters=restd_user=)");
		return -1;
	}
	if (token_verify(&jwt.key, token, time(NULL), user, sizeof(user), NULL, &err) < 0) {
		log_info("token relayed by uid %u refused: %s", (unsigned)req->uid, err.text);
		net_respond(req, HERD_ERR_AUTH, NULL, err.text);
		return -1;
	}
	/* X-SLURM-USER-NAME: Slurm lets SlurmUser's token act for others
	 * through it; Herd's tokens act for the user they name, no one else. */
	if (named && *named && strcmp(named, user)) {
		net_respond(req, HERD_ERR_AUTH, NULL, "X-SLURM-USER-NAME does not match the token's user");
		return -1;
	}
	if (uid_of(user, &uid, &gid) < 0) {
		net_respond(req, HERD_ERR_AUTH, NULL, "invalid token: its user does not exist here");
		return -1;
	}
	for (i = 0; i < sizeof(jwt_types) / sizeof(jwt_types[0]); i++)
		if (jwt_types[i] == type)
			break;
	if (i == sizeof(jwt_types) / sizeof(jwt_types[0])) {
		net_respond(req, HERD_ERR_ACCESS, NULL, "Access/permission denied: not a request a token may make");
		return -1;
	}
	if (msg_validate(type, inner, &err) < 0) {
		net_respond(req, HERD_ERR_PROTOCOL, NULL, err.text);
		return -1;
	}
	log_debug("%s for %s (uid %u) relayed by uid %u on a token", msg_name(type), user,
		  (unsigned)uid, (unsigned)req->uid);
	json_incref(inner);
	json_decref(req->body);
	req->body = inner;
	req->uid = uid;
	req->gid = gid;
	return type;
}

void auth_jwt_token_rpc(struct net_req *req)
{
	const char *username = json_string_value(json_object_get(req->body, "username"));
	json_t *lifespan_v = json_object_get(req->body, "lifespan");
	long lifespan = lifespan_v ? (long)json_integer_value(lifespan_v) : TOKEN_DEFAULT_LIFESPAN;
	bool privileged = req->uid == 0 || req->uid == jwt.slurm_uid;
	const char *own = names_user(req->uid);
	struct herd_error err;
	uid_t uid;
	char *token;

	if (!jwt.enabled) {
		net_respond(req, HERD_ERR_NOT_SUPPORTED, NULL,
			    "Token creation is not enabled on this cluster (AuthAltTypes=auth/jwt)");
		return;
	}
	if (!username || !*username)
		username = own;
	/* As Slurm: root and SlurmUser make tokens for anyone, a user for
	 * himself, unless disable_token_creation. */
	if (!privileged && (jwt.user_creation_disabled || strcmp(username, own))) {
		log_info("uid %u may not make a token for %s", (unsigned)req->uid, username);
		net_respond(req, HERD_ERR_ACCESS, NULL, NULL);
		return;
	}
	if (lifespan <= 0 || lifespan > TOKEN_MAX_LIFESPAN) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, "Invalid lifespan");
		return;
	}
	if (uid_of(username, &uid, NULL) < 0) {
		net_respond(req, HERD_ERR_USER_ID, NULL, NULL);
		return;
	}
	token = token_mint(&jwt.key, username, lifespan, time(NULL), &err);
	if (!token) {
		net_respond(req, HERD_ERR_INTERNAL, NULL, err.text);
		return;
	}
	log_info("token for %s (lifespan %ld s) made for uid %u", username, lifespan,
		 (unsigned)req->uid);
	net_respond(req, 0, json_pack("{s:s, s:s, s:I}", "token", token, "username", username,
				      "lifespan", (json_int_t)lifespan), NULL);
	explicit_bzero(token, strlen(token));
	free(token);
}
