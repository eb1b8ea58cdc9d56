/* oci.conf (Slurm's oci.conf(5)), beside herd.conf: how --container runs a
 * task through an OCI runtime (runc, crun), and the %-patterns of its
 * commands.  Pure: parsing and expansion, no process or file of the user's
 * (oci.c runs the runtime). */
#ifndef HERD_STEPD_OCI_CONF_H
#define HERD_STEPD_OCI_CONF_H
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "common/error.h"

#define OCI_CONF_FILE "oci.conf"
#define OCI_MOUNT_SPOOL_DEFAULT "/var/run/slurm"

enum oci_env_file { OCI_ENV_DISABLED, OCI_ENV_NULL, OCI_ENV_NEWLINE };

struct oci_conf {
	char *container_path;         /* ContainerPath: pattern of the generated bundle; NULL = spool */
	enum oci_env_file env_file;   /* CreateEnvFile */
	bool disable_cleanup;         /* DisableCleanup */
	char **disable_hooks;         /* DisableHooks: hook types removed from config.json */
	size_t ndisable_hooks;
	bool has_env_exclude, has_runtime_env_exclude;
	regex_t env_exclude;          /* EnvExclude: dropped from the container's environment */
	regex_t runtime_env_exclude;  /* RunTimeEnvExclude: from the runtime commands' */
	char *mount_spool_dir;        /* MountSpoolDir: where the step's spool directory appears */
	char *runtime_query, *runtime_create, *runtime_start, *runtime_kill, *runtime_delete,
	     *runtime_run;            /* RunTime*: patterns, NULL unset */
};

/* Parse oci.conf's text (file names it in messages: "FILE:LINE: ...").
 * -1 with err on an unknown key, a bad value or an inconsistent set of
 * RunTime* commands; oc is then freed. */
int oci_conf_parse(const char *text, const char *file, struct oci_conf *oc, struct herd_error *err);
/* Read DIR/oci.conf, DIR being herd.conf's directory.  1 and oc zeroed when
 * there is none, 0 when read, -1 with err. */
int oci_conf_load(const char *herd_conf, struct oci_conf *oc, struct herd_error *err);
void oci_conf_free(struct oci_conf *oc);

/* What a pattern's letters stand for (oci.conf(5), "OCI Pattern"). */
struct oci_pattern_ctx {
	const char *bundle;    /* %b: the generated bundle directory */
	const char *env_file;  /* %e */
	const char *rootfs;    /* %r */
	const char *spool;     /* %m: SlurmdSpoolDir */
	const char *node;      /* %n */
	const char *user;      /* %u */
	uint32_t job_id;       /* %j */
	uint32_t step_id;      /* %s */
	int task_id;           /* %t */
	uid_t uid;             /* %U */
	pid_t pid;             /* %p */
	char *const *argv;     /* %@ */
};

/* Expand pattern.  quote: for a command run by /bin/sh -c, every value is
 * single-quoted (a bundle path with a blank or a ';' stays one word) and
 * %@ is each argument quoted; a path pattern (quote false) gets the values
 * as they are.  Unknown %X stays as written.  Returns malloc'd text. */
char *oci_pattern(const char *pattern, const struct oci_pattern_ctx *c, bool quote);

/* Whether an environment entry "NAME=value" is kept past re (NULL: kept). */
bool oci_env_kept(const regex_t *re, const char *entry);

#endif
