/* herdctld's shared state and the interfaces between its files.  Everything
 * here is owned by the loop thread; workers get copies (see store.c). */
#ifndef HERD_CTLD_H
#define HERD_CTLD_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <uv.h>
#include "common/net.h"
#include "core/core.h"
#include "ctld/launch.h"
#include "ctld/step.h"

/* The daemon's own state; the core's is struct core (core/core.h). */
struct ctld {
	uv_loop_t *loop;
	char *conf_path;            /* absolute: what a reconfigure reads */
	char *dest_self;
	struct net_target ctld_target;
	bool log_forced;            /* -v: SlurmctldDebug does not apply */
};

extern struct ctld ctld;

/* acct.c: ACCT_JOBS, answered from the store by a worker */
void acct_jobs(struct net_req *req);
void acct_clusters(struct net_req *req);   /* CLUSTER_INFO: -M/--clusters */

void launch_time_limit(struct job *job);   /* launch.c: tell the node a new limit */

/* mail_spawn.c: herdctld's core_env->mail, MailProg never blocking the loop. */
void mail_spawn(const struct job *job, const char *to, const char *subject, const char *what,
		const char *times);
/* reconf.c: scontrol reconfigure and SIGHUP */
/* The settings read from conf (KillWait, SlurmdTimeout, ...) into ctld;
 * out-of-range values are logged and replaced, as at start. */
void reconf_settings(const struct conf *conf);
/* The keys conf sets that Herd accepts and does not act on (conf_inert.c),
 * logged as one warning; that sentence (to free), or NULL when none. */
char *reconf_inert_warning(const struct conf *conf);
/* Re-read core.conf->path and apply it whole; -1 with err (nothing
 * changed) when it does not load or needs a restart. */
/* warning (may be NULL): reconf_inert_warning's sentence, to free. */
int reconf_reload(struct herd_error *err, char **warning);
void reconf_rpc(struct net_req *req);

/* rpc.c */
void respond_durable(struct net_req *req, uint32_t job_id, bool with_id);
void rpc_handle(struct net_req *req, void *arg);

/* auth_jwt.c: AuthAltTypes=auth/jwt (doc/protocol.md "Requests on a user's token") */
/* Read the key and options of conf; -1 with err (and the old settings kept)
 * when auth/jwt is on and its key cannot be used. */
int auth_jwt_configure(const struct conf *conf, struct herd_error *err);
/* A JWT_REQUEST: checks the relay, the token and the inner request, then
 * makes req that request of the token's user; returns its type, or -1 when
 * req was answered (refused). */
int auth_jwt_unwrap(struct net_req *req);
void auth_jwt_token_rpc(struct net_req *req);   /* TOKEN_CREATE */
/* rpc_acct.c: ACCT_MGR (sacctmgr), SHARE_INFO (sshare) */
void assoc_rpc(struct net_req *req);
void usage_rpc(struct net_req *req);
/* rpc_node.c: NODE_REGISTER, UPDATE_NODE (drain, down, resume) */
void node_register(struct net_req *req);
void node_update(struct net_req *req);
void node_gpu_usage(struct net_req *req);   /* GPU_USAGE */
/* rpc_resv.c: RESV_CREATE, RESV_UPDATE, RESV_DELETE, RESV_INFO */
void resv_create_rpc(struct net_req *req);
void resv_update_rpc(struct net_req *req);
void resv_delete_rpc(struct net_req *req);
void resv_info_rpc(struct net_req *req);
/* counts.c: JOB_COUNTS */
void counts_rpc(struct net_req *req);

#endif
