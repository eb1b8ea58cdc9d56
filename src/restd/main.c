/* herdrestd: the REST front (slurmrestd's openapi/v0.0.38 with JWT) and
 * /metrics.  Runs in the foreground as an unprivileged user, never root or
 * SlurmUser, like slurmrestd: started as root it must be told whom to become
 * (-u).  It holds no JWT key (the controller verifies tokens); --token USER
 * mints one offline for whoever holds the key, as `scontrol token` does
 * through the controller.  doc/rest.md is its manual. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pwd.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "common/auth.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/token.h"
#include "common/xmalloc.h"
#include "restd/restd.h"

/* scontrol token's default lifespan. */
#define DEFAULT_LIFESPAN 1800
/* How old a /metrics page may be: Prometheus scrapes every 15-60 s. */
#define DEFAULT_METRICS_MAX_AGE 10

static void usage(void)
{
	fprintf(stderr,
		"Usage: herdrestd [-f CONF] [-v...] [-a jwt|none] [-u USER] [-g GROUP] [-L LOGFILE]\n"
		"                 [--metrics-max-age SECONDS] [host]:port\n"
		"       herdrestd [-f CONF] [--jwt-key FILE] --token USER [--lifespan SECONDS]\n");
	exit(1);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("herdrestd: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static bool is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

/* Bind and listen on the first address host:port resolves to (family
 * AF_UNSPEC) or that the wildcard of family gives.  -1 with *saved = errno. */
static int listen_family(const char *host, const char *port, int family, bool loopback_only,
			 int *saved)
{
	struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	int fd = -1, rc;

	rc = getaddrinfo(*host ? host : NULL, port, &hints, &res);
	if (rc) {
		if (!*host) {
			*saved = EAFNOSUPPORT;
			return -1;
		}
		die("cannot resolve '%s': %s", host, gai_strerror(rc));
	}
	for (ai = res; ai; ai = ai->ai_next) {
		int one = 1, zero = 0;
		if (loopback_only && !is_loopback(ai->ai_addr))
			die("-a none serves loopback addresses only (127.0.0.1, [::1], localhost); "
			    "'%s' is not one", *host ? host : "(every interface)");
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			*saved = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/* The IPv6 wildcard takes IPv4 clients too, whatever bindv6only says. */
		if (ai->ai_family == AF_INET6 && !*host)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 128) == 0)
			break;
		*saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

/* With no host, every interface: IPv6 and IPv4 on one socket where the host
 * has IPv6, else IPv4 alone.  With loopback_only, a non-loopback address is
 * refused (-a none). */
static int listen_on(const char *host, int port, bool loopback_only)
{
	char portstr[16];
	int fd, saved = 0;

	snprintf(portstr, sizeof(portstr), "%d", port);
	if (*host) {
		fd = listen_family(host, portstr, AF_UNSPEC, loopback_only, &saved);
	} else {
		fd = listen_family(host, portstr, AF_INET6, loopback_only, &saved);
		if (fd < 0)
			fd = listen_family(host, portstr, AF_INET, loopback_only, &saved);
	}
	if (fd < 0)
		die("cannot listen on %s:%d: %s", *host ? host : "*", port, strerror(saved));
	return fd;
}

/* SlurmUser's uid, or 0 (root) when the file names none. */
static uid_t slurm_uid(const struct conf *conf)
{
	const char *name = conf ? conf_get(conf, "SlurmUser") : NULL;
	struct passwd *pw = name ? getpwnam(name) : NULL;
	return pw ? pw->pw_uid : 0;
}

static void drop_privileges(const char *user, const char *group, uid_t slurm)
{
	struct passwd *pw = getpwnam(user);
	gid_t gid;

	if (!pw)
		die("unknown user '%s'", user);
	if (pw->pw_uid == 0 || pw->pw_uid == slurm)
		die("-u must name an unprivileged user, not root or SlurmUser (%s)", user);
	gid = pw->pw_gid;
	if (group) {
		struct group *gr = getgrnam(group);
		if (!gr)
			die("unknown group '%s'", group);
		gid = gr->gr_gid;
	}
	if (initgroups(pw->pw_name, gid) < 0 || setgid(gid) < 0 || setuid(pw->pw_uid) < 0)
		die("cannot become %s: %s", user, strerror(errno));
	/* Make sure there is no way back. */
	if (setuid(0) == 0)
		die("still able to regain root after dropping privileges");
}

int main(int argc, char **argv)
{
	enum { OPT_JWT_KEY = 256, OPT_TOKEN, OPT_LIFESPAN, OPT_METRICS_MAX_AGE };
	static const struct option longopts[] = {
		{ "jwt-key", required_argument, NULL, OPT_JWT_KEY },
		{ "metrics-max-age", required_argument, NULL, OPT_METRICS_MAX_AGE },
		{ "token", required_argument, NULL, OPT_TOKEN },
		{ "lifespan", required_argument, NULL, OPT_LIFESPAN },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = NULL, *key_path = NULL, *token_user = NULL, *log_file = NULL;
	const char *run_user = NULL, *run_group = NULL, *auth = "jwt";
	long lifespan = DEFAULT_LIFESPAN, metrics_max_age = DEFAULT_METRICS_MAX_AGE;
	int verbose = 0, c, port, fd;
	char host[256], *conf_key = NULL;
	struct herd_error err;
	struct restd restd = { 0 };
	struct token_key key = { 0 };
	struct conf *conf = NULL;
	struct restd_server *srv;
	sigset_t sigs;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "a:f:g:L:u:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': auth = optarg; break;
		case 'f': conf_path = optarg; break;
		case 'g': run_group = optarg; break;
		case 'L': log_file = optarg; break;
		case 'u': run_user = optarg; break;
		case 'v': verbose++; break;
		case OPT_JWT_KEY: key_path = optarg; break;
		case OPT_TOKEN: token_user = optarg; break;
		case OPT_LIFESPAN:
			if (parse_uint(optarg, 100L * 365 * 86400, &v) < 0 || v == 0)
				die("--lifespan takes a positive number of seconds, not '%s'", optarg);
			lifespan = v;
			break;
		case OPT_METRICS_MAX_AGE:
			if (parse_uint(optarg, 3600, &v) < 0 || v == 0)
				die("--metrics-max-age takes 1 to 3600 seconds, not '%s'", optarg);
			metrics_max_age = v;
			break;
		default: usage();
		}
	}
	if (strcmp(auth, "jwt") && strcmp(auth, "rest_auth/jwt") && strcmp(auth, "none"))
		die("unknown authentication '%s' for -a (jwt or none)", auth);
	restd.auth_none = !strcmp(auth, "none");

	/* Minting needs only the key: no configuration when --jwt-key names it. */
	if (!(token_user && key_path)) {
		conf = conf_load(conf_path, &err);
		if (!conf)
			die("%s", err.text);
		conf_key = restd_jwt_key_path(conf_get(conf, "AuthAltParameters"));
		if (!key_path)
			key_path = conf_key;
	}

	if (token_user) {
		if (optind != argc)
			usage();
		if (!key_path)
			die("no JWT key: set AuthAltParameters=jwt_key=PATH or give --jwt-key");
		if (!getpwnam(token_user))
			die("Invalid user: %s", token_user);
		/* The key's owner: root or SlurmUser (with --jwt-key alone, whoever runs this). */
		if (token_key_load(key_path, conf ? slurm_uid(conf) : geteuid(), &key, &err) < 0)
			die("%s", err.text);
		char *token = token_mint(&key, token_user, lifespan, time(NULL), &err);
		if (!token)
			die("%s", err.text);
		printf("SLURM_JWT=%s\n", token);
		free(token);
		token_key_clear(&key);
		free(conf_key);
		conf_destroy(conf);
		return 0;
	}

	if (optind != argc - 1)
		usage();
	if (key_path && key_path != conf_key)
		die("--jwt-key is for --token only: herdrestd holds no key while it serves");
	if (restd_listen_parse(argv[optind], host, sizeof(host), &port, &err) < 0)
		die("%s", err.text);
	if (log_init("herdrestd", verbose ? LOG_LVL_DEBUG : LOG_LVL_INFO, log_file) < 0)
		die("cannot open log file %s: %s", log_file, strerror(errno));
	/* Tokens are checked by the controller, which needs auth/jwt; herdrestd
	 * itself reads no key (whoever reads it can mint tokens for anyone). */
	if (!restd.auth_none && !auth_alt_jwt(conf_get(conf, "AuthAltTypes")))
		die("AuthAltTypes=auth/jwt is not set in %s: the controller could not check tokens "
		    "(or -a none to serve loopback clients without tokens)", conf->path);
	uid_t slurm = slurm_uid(conf);
	if (geteuid() == 0 && !run_user)
		die("herdrestd must not run as root: give -u USER to run as");
	if (run_group && !run_user)
		die("-g needs -u");

	fd = listen_on(host, port, restd.auth_none);
	if (run_user && geteuid() == 0)
		drop_privileges(run_user, run_group, slurm);
	else if (run_user && strcmp(run_user, getpwuid(geteuid()) ? getpwuid(geteuid())->pw_name : ""))
		die("only root can change to user %s", run_user);
	/* Whichever way it got here, never serve as root or SlurmUser. */
	if (geteuid() == 0 || getuid() == 0 || geteuid() == slurm)
		die("herdrestd must not run as %s: give it an account of its own",
		    geteuid() == 0 || getuid() == 0 ? "root" : "SlurmUser");
	restd.metrics_max_age = metrics_max_age;
	if (!restd.auth_none) {
		/* The controller takes tokens only from the accounts restd_user=
		 * names: said now rather than as a 403 on every request. */
		struct passwd *me = getpwuid(geteuid());
		char *relays = auth_alt_param(conf_get(conf, "AuthAltParameters"), "restd_user");
		bool listed = false;
		for (char *save = NULL, *n = relays ? strtok_r(relays, ":", &save) : NULL; n && me;
		     n = strtok_r(NULL, ":", &save))
			listed = listed || !strcmp(n, me->pw_name);
		if (!listed)
			log_warn("%s is not in AuthAltParameters=restd_user= of %s: the controller "
				 "will refuse the tokens it forwards", me ? me->pw_name : "this account",
				 conf->path);
		free(relays);
	}

	restd.cluster = conf_cluster_name(conf);
	restd.ctld = (struct net_target){ conf_ctld_host(conf), conf_ctld_port(conf),
					  auth_dest_ctld(restd.cluster), conf_munge_socket(conf) };
	/* Slurm's MessageTimeout (default 10 s) bounds each call to the controller. */
	restd.call_timeout_ms = conf_get_int(conf, "MessageTimeout", 10) * 1000;

	/* Every thread MHD starts inherits this mask, so only sigwait sees them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	srv = restd_server_start(&restd, fd, &err);
	if (!srv)
		die("%s", err.text);
	log_info("herdrestd for cluster %s listening on %s:%d (controller %s:%d, auth %s)",
		 restd.cluster, *host ? host : "*", port, restd.ctld.host, restd.ctld.port,
		 restd.auth_none ? "none" : "jwt");
	for (;;) {
		int sig;
		if (sigwait(&sigs, &sig) != 0)
			continue;
		if (sig == SIGHUP)
			continue;   /* nothing to reload: every request asks the controller */
		log_info("caught signal %d, shutting down", sig);
		break;
	}
	restd_server_stop(srv);
	free((char *)restd.ctld.dest);
	free(conf_key);
	conf_destroy(conf);
	log_info("herdrestd stopped");
	return 0;
}
