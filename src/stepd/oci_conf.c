/* oci.conf: Slurm's keys, case-insensitive, one Key=Value a line, '#'
 * comments, values optionally in double quotes (the runtime commands have
 * blanks).  Slurm's debugging keys are accepted and have no effect here. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "stepd/oci_conf.h"

#define OCI_CONF_MAX_BYTES (1 << 20)

enum oci_key_kind { K_PATTERN, K_BOOL, K_ENV_FILE, K_HOOKS, K_REGEX, K_IGNORED };

static const struct {
	const char *name;
	enum oci_key_kind kind;
	size_t offset;
} oci_keys[] = {
	{ "ContainerPath", K_PATTERN, offsetof(struct oci_conf, container_path) },
	{ "CreateEnvFile", K_ENV_FILE, 0 },
	{ "DisableCleanup", K_BOOL, offsetof(struct oci_conf, disable_cleanup) },
	{ "DisableHooks", K_HOOKS, 0 },
	{ "EnvExclude", K_REGEX, offsetof(struct oci_conf, env_exclude) },
	{ "MountSpoolDir", K_PATTERN, offsetof(struct oci_conf, mount_spool_dir) },
	{ "RunTimeCreate", K_PATTERN, offsetof(struct oci_conf, runtime_create) },
	{ "RunTimeDelete", K_PATTERN, offsetof(struct oci_conf, runtime_delete) },
	{ "RunTimeEnvExclude", K_REGEX, offsetof(struct oci_conf, runtime_env_exclude) },
	{ "RunTimeKill", K_PATTERN, offsetof(struct oci_conf, runtime_kill) },
	{ "RunTimeQuery", K_PATTERN, offsetof(struct oci_conf, runtime_query) },
	{ "RunTimeRun", K_PATTERN, offsetof(struct oci_conf, runtime_run) },
	{ "RunTimeStart", K_PATTERN, offsetof(struct oci_conf, runtime_start) },
	/* logging and scrun's: nothing to do for herdstepd */
	{ "DebugFlags", K_IGNORED, 0 },
	{ "FileDebug", K_IGNORED, 0 },
	{ "IgnoreFileConfigJson", K_IGNORED, 0 },
	{ "SrunArgs", K_IGNORED, 0 },
	{ "SrunPath", K_IGNORED, 0 },
	{ "StdIODebug", K_IGNORED, 0 },
	{ "SyslogDebug", K_IGNORED, 0 },
};

void oci_conf_free(struct oci_conf *oc)
{
	free(oc->container_path);
	free(oc->mount_spool_dir);
	free(oc->runtime_query);
	free(oc->runtime_create);
	free(oc->runtime_start);
	free(oc->runtime_kill);
	free(oc->runtime_delete);
	free(oc->runtime_run);
	for (size_t i = 0; i < oc->ndisable_hooks; i++)
		free(oc->disable_hooks[i]);
	free(oc->disable_hooks);
	if (oc->has_env_exclude)
		regfree(&oc->env_exclude);
	if (oc->has_runtime_env_exclude)
		regfree(&oc->runtime_env_exclude);
	memset(oc, 0, sizeof(*oc));
}

static bool oci_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcmp(v, "1")) {
		*out = true;
		return true;
	}
	if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcmp(v, "0")) {
		*out = false;
		return true;
	}
	return false;
}

/* One value: the key's kind decides; -1 with err. */
static int oci_set(struct oci_conf *oc, size_t k, const char *value, const char *where,
		   struct herd_error *err)
{
	char *base = (char *)oc + oci_keys[k].offset;
	const char *name = oci_keys[k].name;

	switch (oci_keys[k].kind) {
	case K_PATTERN: {
		char **slot = (char **)base;
		free(*slot);
		*slot = *value ? xstrdup(value) : NULL;
		return 0;
	}
	case K_BOOL:
		if (!oci_bool(value, (bool *)base))
			return errprintf(err, "%s: invalid value '%.60s' for key '%s'", where, value, name);
		return 0;
	case K_ENV_FILE: {
		bool b;
		/* true/false: the 22.05 spelling, read as null/disabled */
		if (!strcasecmp(value, "null"))
			oc->env_file = OCI_ENV_NULL;
		else if (!strcasecmp(value, "newline"))
			oc->env_file = OCI_ENV_NEWLINE;
		else if (!strcasecmp(value, "disabled"))
			oc->env_file = OCI_ENV_DISABLED;
		else if (oci_bool(value, &b))
			oc->env_file = b ? OCI_ENV_NULL : OCI_ENV_DISABLED;
		else
			return errprintf(err, "%s: invalid value '%.60s' for key '%s' (null, newline or disabled)",
					 where, value, name);
		return 0;
	}
	case K_HOOKS: {
		for (size_t i = 0; i < oc->ndisable_hooks; i++)
			free(oc->disable_hooks[i]);
		free(oc->disable_hooks);
		oc->disable_hooks = NULL;
		oc->ndisable_hooks = 0;
		char *copy = xstrdup(value), *save = NULL;
		for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			while (isspace((unsigned char)*tok))
				tok++;
			size_t n = strlen(tok);
			while (n && isspace((unsigned char)tok[n - 1]))
				tok[--n] = '\0';
			if (!n)
				continue;
			oc->disable_hooks = xrealloc(oc->disable_hooks,
						     (oc->ndisable_hooks + 1) * sizeof(char *));
			oc->disable_hooks[oc->ndisable_hooks++] = xstrdup(tok);
		}
		free(copy);
		return 0;
	}
	case K_REGEX: {
		regex_t *re = (regex_t *)base;
		bool *has = re == &oc->env_exclude ? &oc->has_env_exclude : &oc->has_runtime_env_exclude;
		if (*has)
			regfree(re);
		*has = false;
		if (!*value)
			return 0;
		int rc = regcomp(re, value, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char why[128];
			regerror(rc, re, why, sizeof(why));
			return errprintf(err, "%s: %s: invalid regular expression '%.60s': %s", where, name,
					 value, why);
		}
		*has = true;
		return 0;
	}
	case K_IGNORED:
		return 0;
	}
	return 0;
}

/* The value after '=': blanks trimmed, one pair of double quotes removed,
 * '#' outside quotes ends the line, "\#" is a '#'.  In place. */
static char *oci_value(char *v)
{
	char *out = v, *start = v;
	bool quoted = false;

	while (isspace((unsigned char)*v))
		v++;
	for (; *v; v++) {
		if (*v == '\\' && v[1] == '#') {
			*out++ = '#';
			v++;
		} else if (*v == '"') {
			quoted = !quoted;
		} else if (*v == '#' && !quoted) {
			break;
		} else {
			*out++ = *v;
		}
	}
	*out = '\0';
	size_t n = strlen(start);
	while (n && isspace((unsigned char)start[n - 1]))
		start[--n] = '\0';
	return start;
}

int oci_conf_parse(const char *text, const char *file, struct oci_conf *oc, struct herd_error *err)
{
	char *copy = xstrdup(text), where[300];
	int lineno = 0;

	memset(oc, 0, sizeof(*oc));
	for (char *line = copy, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		snprintf(where, sizeof(where), "%s:%d", file, lineno);
		char *s = line;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			errprintf(err, "%s: expected Key=Value, found '%.60s'", where, s);
			goto error;
		}
		*eq = '\0';
		size_t n = strlen(s);
		while (n && isspace((unsigned char)s[n - 1]))
			s[--n] = '\0';
		size_t k = 0;
		while (k < sizeof(oci_keys) / sizeof(oci_keys[0]) && strcasecmp(oci_keys[k].name, s))
			k++;
		if (k == sizeof(oci_keys) / sizeof(oci_keys[0])) {
			errprintf(err, "%s: unknown key '%.60s'", where, s);
			goto error;
		}
		if (oci_set(oc, k, oci_value(eq + 1), where, err) < 0)
			goto error;
	}
	free(copy);
	/* Either RunTimeRun, or RunTimeCreate and RunTimeStart (then
	 * RunTimeQuery tells when the container stopped); RunTimeKill and
	 * RunTimeDelete end it either way. */
	if (oc->runtime_run && (oc->runtime_create || oc->runtime_start)) {
		errprintf(err, "%s: RunTimeRun and RunTimeCreate/RunTimeStart are mutually exclusive", file);
		goto error_freed;
	}
	if (!oc->runtime_run && !(oc->runtime_create && oc->runtime_start)) {
		errprintf(err, "%s: RunTimeRun, or RunTimeCreate and RunTimeStart, must be set", file);
		goto error_freed;
	}
	if (!oc->runtime_run && !oc->runtime_query) {
		errprintf(err, "%s: RunTimeQuery must be set with RunTimeCreate", file);
		goto error_freed;
	}
	if (!oc->runtime_kill || !oc->runtime_delete) {
		errprintf(err, "%s: RunTimeKill and RunTimeDelete must be set", file);
		goto error_freed;
	}
	if (!oc->mount_spool_dir)
		oc->mount_spool_dir = xstrdup(OCI_MOUNT_SPOOL_DEFAULT);
	return 0;
error_freed:
	oci_conf_free(oc);
	return -1;
error:
	free(copy);
	oci_conf_free(oc);
	return -1;
}

int oci_conf_load(const char *herd_conf, struct oci_conf *oc, struct herd_error *err)
{
	const char *slash = strrchr(herd_conf, '/');
	char *path = slash ? xasprintf("%.*s/%s", (int)(slash - herd_conf), herd_conf, OCI_CONF_FILE)
			   : xstrdup(OCI_CONF_FILE);
	struct strbuf text = { 0 };
	char buf[4096];
	ssize_t n;
	int fd, rc = -1;

	memset(oc, 0, sizeof(*oc));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT) {
			free(path);
			return 1;
		}
		errprintf(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	strbuf_adds(&text, "");
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (text.len + (size_t)n > OCI_CONF_MAX_BYTES) {
			errprintf(err, "%s: larger than %d bytes", path, OCI_CONF_MAX_BYTES);
			goto out;
		}
		strbuf_add(&text, buf, (size_t)n);
	}
	if (n < 0) {
		errprintf(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = oci_conf_parse(text.s, path, oc, err);
out:
	if (fd >= 0)
		close(fd);
	free(text.s);
	free(path);
	return rc;
}

/* Single quotes around s, each ' as '\'' (POSIX sh). */
static void oci_quote(struct strbuf *o, const char *s)
{
	strbuf_adds(o, "'");
	for (const char *q; (q = strchr(s, '\'')); s = q + 1) {
		strbuf_add(o, s, (size_t)(q - s));
		strbuf_adds(o, "'\\''");
	}
	strbuf_adds(o, s);
	strbuf_adds(o, "'");
}

static void oci_put(struct strbuf *o, const char *value, bool quote)
{
	if (quote)
		oci_quote(o, value ? value : "");
	else
		strbuf_adds(o, value ? value : "");
}

char *oci_pattern(const char *pattern, const struct oci_pattern_ctx *c, bool quote)
{
	struct strbuf o = { 0 };
	char num[32];

	strbuf_adds(&o, "");
	for (const char *p = pattern; *p; p++) {
		if (*p != '%' || !p[1]) {
			strbuf_add(&o, p, 1);
			continue;
		}
		p++;
		switch (*p) {
		case '%': strbuf_adds(&o, "%"); break;
		case '@':
			for (size_t i = 0; c->argv && c->argv[i]; i++) {
				if (i)
					strbuf_adds(&o, " ");
				oci_put(&o, c->argv[i], quote);
			}
			break;
		case 'b': oci_put(&o, c->bundle, quote); break;
		case 'e': oci_put(&o, c->env_file, quote); break;
		case 'r': oci_put(&o, c->rootfs, quote); break;
		case 'm': oci_put(&o, c->spool, quote); break;
		case 'n': oci_put(&o, c->node, quote); break;
		case 'u': oci_put(&o, c->user, quote); break;
		case 'j': snprintf(num, sizeof(num), "%u", c->job_id); strbuf_adds(&o, num); break;
		case 's': snprintf(num, sizeof(num), "%u", c->step_id); strbuf_adds(&o, num); break;
		case 't': snprintf(num, sizeof(num), "%d", c->task_id); strbuf_adds(&o, num); break;
		case 'U': snprintf(num, sizeof(num), "%u", (unsigned)c->uid); strbuf_adds(&o, num); break;
		case 'p': snprintf(num, sizeof(num), "%d", (int)c->pid); strbuf_adds(&o, num); break;
		default:
			strbuf_add(&o, p - 1, 2);
		}
	}
	return o.s;
}

bool oci_env_kept(const regex_t *re, const char *entry)
{
	return !re || regexec(re, entry, 0, NULL, 0) != 0;
}
