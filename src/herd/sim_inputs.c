/* `herd sim --accounts FILE` and `--reservations FILE`: read with the
 * commands' own code, into the requests those commands send, so that what
 * the controller is given in the replay is what `sacctmgr load` and
 * `scontrol create reservation` give a real cluster (sim_core.c applies
 * them at the replay's start through the controller's handlers). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/opt.h"
#include "cmd/sacctmgr/sacctmgr.h"
#include "cmd/scontrol_resv.h"
#include "common/xmalloc.h"
#include "herd/sim_core.h"

/* Each line of path given to fn (with its number) but blank and '#' lines;
 * -1 with err when fn or the reading fails. */
static int each_line(const char *path, int (*fn)(const char *line, long lineno, json_t *out,
						  struct herd_error *err),
		     json_t *out, struct herd_error *err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t len = 0;
	long lineno = 0;
	int rc = 0;

	if (!f)
		return errprintf(err, "%s: %s", path, strerror(errno));
	while (rc == 0 && getline(&line, &len, f) > 0) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		const char *p = line + strspn(line, " \t");
		if (!*p || *p == '#')
			continue;
		struct herd_error e = { "" };
		if (fn(p, lineno, out, &e) < 0)
			rc = errprintf(err, "%s:%ld: %s", path, lineno, e.text);
	}
	if (rc == 0 && ferror(f))
		rc = errprintf(err, "%s: %s", path, strerror(errno));
	free(line);
	fclose(f);
	return rc;
}

/* One flat file line, as sacctmgr load parses it. */
static int account_line(const char *line, long lineno, json_t *out, struct herd_error *err)
{
	bool bad;
	json_t *rec = flat_parse_line(line, &bad);
	if (bad) {
		json_decref(rec);
		return errprintf(err, "not a flat file line (sacctmgr dump's format): %s", line);
	}
	if (rec) {
		json_object_set_new(rec, "line", json_integer(lineno));
		json_array_append_new(out, rec);
	}
	return 0;
}

json_t *sim_accounts_load(const char *path, struct herd_error *err)
{
	json_t *records = json_array();
	if (each_line(path, account_line, records, err) < 0) {
		json_decref(records);
		return NULL;
	}
	if (!json_array_size(records)) {
		json_decref(records);
		errprintf(err, "%s: no records to load", path);
		return NULL;
	}
	return records;
}

/* One reservation line, as scontrol create reservation parses its words,
 * "now" at the replay's second 0. */
static int resv_line(const char *line, long lineno, json_t *out, struct herd_error *err)
{
	size_t n;
	char **w = opt_words(line, &n);
	char msg[512];
	json_t *body;
	int rc = scontrol_resv_parse(RESV_OP_CREATE, (int)n, w, SIM_CORE_EPOCH, &body, msg, sizeof(msg));
	opt_strv_free(w);
	if (rc < 0) {
		for (char *nl; (nl = strchr(msg, '\n'));)
			*nl = ' ';   /* one line: "Invalid time ... Invalid start time ..." */
		return errprintf(err, "%s", msg);
	}
	json_array_append_new(out, json_pack("{s:I, s:o}", "line", (json_int_t)lineno, "body", body));
	return 0;
}

json_t *sim_resv_load(const char *path, struct herd_error *err)
{
	json_t *bodies = json_array();
	if (each_line(path, resv_line, bodies, err) < 0) {
		json_decref(bodies);
		return NULL;
	}
	return bodies;
}
