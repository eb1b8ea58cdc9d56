/* `herd sim --jobs FILE`: a scenario's jobs, one a line,
 *   <submit s> <user> <run s> <sbatch options>
 * read by sbatch's own option table (cmd/jobopt.c) and made into the
 * SUBMIT_JOB job object by the commands' own encoder (jobopt_job), so that
 * the line submits in the replay what `sbatch OPTIONS` submits on a real
 * cluster.  The script is "#!/bin/sh\nsleep <run>". */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/jobopt.h"
#include "cmd/opt.h"
#include "common/parse.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "herd/sim_core.h"

/* A count of seconds, whole and not negative. */
static int seconds(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > (1LL << 40))
		return -1;
	*out = v;
	return 0;
}

/* sbatch's parser on argv, what it says on stderr (and stdout) caught (the lines
 * joined, without "sbatch: error: ") into err when it refuses an option,
 * so that the refusal is one line that names the file's line.  Its
 * return, or -1. */
static int parse_caught(struct jobopt *o, int argc, char **argv, bool *info_only,
			struct herd_error *err)
{
	char *said = NULL;
	size_t len = 0;
	FILE *saved = stderr, *saved_out = stdout, *catch = open_memstream(&said, &len);
	int saved_opterr = opterr;

	if (catch)
		stderr = stdout = catch;   /* stdout: --help's text, not for the output */
	opterr = 1;   /* getopt's own words for an unknown option */
	struct herd_error why = { "" };
	int next;
	int rc = jobopt_args(o, JOBOPT_ARGS, argc, argv, &next, &why);
	jobopt_report(o, rc, &why);
	*info_only = rc == JOBOPT_INFO;
	if (rc < 0)
		next = -1;
	opterr = saved_opterr;
	stderr = saved;
	stdout = saved_out;
	if (catch)
		fclose(catch);
	if (next < 0) {
		struct strbuf why = { 0 };
		char *save = NULL;
		strbuf_adds(&why, "");
		for (char *l = strtok_r(said ? said : "", "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			if (!strncmp(l, "Try \"sbatch --help\"", 19))
				continue;
			if (!strncmp(l, "sbatch: error: ", 15))
				l += 15;
			else if (!strncmp(l, "sbatch: ", 8))
				l += 8;
			strbuf_adds(&why, why.len ? "; " : "");
			strbuf_adds(&why, l);
		}
		errprintf(err, "sbatch: %s", why.len ? why.s : "an option refused");
		free(why.s);
		next = -1;
	}
	free(said);
	return next;
}

/* sbatch's options of one line into the job object; NULL with err. */
static json_t *line_spec(char **words, size_t nwords, int64_t submit, int64_t run,
			 struct jobopt *o, struct herd_error *err)
{
	char **argv = xmalloc((nwords + 2) * sizeof(*argv));
	bool info_only = false;
	json_t *job = NULL;

	argv[0] = "sbatch";
	for (size_t i = 0; i < nwords; i++)
		argv[i + 1] = words[i];
	o->now = SIM_CORE_EPOCH + (time_t)submit;   /* --begin=now+N: from the submission */
	int next = parse_caught(o, (int)nwords + 1, argv, &info_only, err);
	if (next < 0)
		goto out;
	if (info_only) {
		errprintf(err, "--help, --usage and --version submit nothing");
		goto out;
	}
	if (next <= (int)nwords) {
		errprintf(err, "unexpected argument '%s' (the script is \"sleep <run>\")", argv[next]);
		goto out;
	}
	if (o->het_next) {
		errprintf(err, "a heterogeneous job (' : ') is not simulated");
		goto out;
	}
	if (jobopt_flag(o, "test_only")) {
		errprintf(err, "--test-only submits nothing");
		goto out;
	}
	if (jobopt_str(o, "wrap")) {
		errprintf(err, "--wrap: the line's script is \"sleep <run>\"");
		goto out;
	}
	long long begin = jobopt_int(o, "begin_time", 0), deadline = jobopt_int(o, "deadline", 0);
	if (begin && deadline && deadline < begin) {
		errprintf(err, "Incompatible begin and deadline time specification");
		goto out;
	}
	char *script = xasprintf("#!/bin/sh\nsleep %lld\n", (long long)run);
	const char *dir = jobopt_str(o, "chdir");
	char *cwd = !dir ? xstrdup("/") : dir[0] == '/' ? xstrdup(dir) : xasprintf("/%s", dir);
	/* as sbatch with the script on its standard input: named "sbatch" */
	struct jobopt_ctx ctx = { .script = script, .cwd = cwd, .name = "sbatch",
				  .host = "sim", .umask = 022 };
	job = jobopt_job(o, &ctx);
	if (!job)
		errprintf(err, "an option is not valid UTF-8");
	free(script);
	free(cwd);
out:
	free(argv);
	return job;
}

/* One job line into a; -1 with err (without the FILE:LINE). */
static int parse_line(const char *line, struct sim_arrival *a, struct herd_error *err)
{
	size_t n;
	char **w = opt_words(line, &n);
	struct jobopt o;
	int64_t submit, run;
	int rc = -1;

	jobopt_init(&o, JOBOPT_SBATCH);
	if (n < 3) {
		errprintf(err, "expected '<submit s> <user> <run s> [sbatch options]'");
		goto out;
	}
	if (seconds(w[0], &submit) < 0) {
		errprintf(err, "submit time '%s': not a whole number of seconds", w[0]);
		goto out;
	}
	if (seconds(w[2], &run) < 0) {
		errprintf(err, "run time '%s': not a whole number of seconds", w[2]);
		goto out;
	}
	struct passwd *pw = getpwnam(w[1]);
	if (!pw) {
		errprintf(err, "unknown user '%s'", w[1]);
		goto out;
	}
	json_t *spec = line_spec(w + 3, n - 3, submit, run, &o, err);
	if (!spec)
		goto out;
	*a = (struct sim_arrival){ .submit = submit, .uid = pw->pw_uid, .gid = pw->pw_gid,
				   .spec = spec, .run = run,
				   .estimate = jobopt_int(&o, "time_limit", -1) >= 0
						       ? jobopt_int(&o, "time_limit", -1) : -1,
				   .procs = 0, .after = -1 };
	rc = 0;
out:
	jobopt_free(&o);
	opt_strv_free(w);
	return rc;
}

/* Submit order: by submit time, lines of one time in file order (id). */
static int by_submit(const void *x, const void *y)
{
	const struct sim_arrival *a = x, *b = y;
	if (a->submit != b->submit)
		return a->submit < b->submit ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

struct sim_arrival *sim_jobs_load(const char *path, size_t *n, struct herd_error *err)
{
	FILE *f = fopen(path, "r");
	struct sim_arrival *a = NULL;
	size_t cap = 0;
	char *line = NULL;
	size_t len = 0;
	long lineno = 0;

	*n = 0;
	if (!f) {
		errprintf(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	while (getline(&line, &len, f) > 0) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		const char *p = line + strspn(line, " \t\r");
		if (!*p || *p == '#')
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			a = xrealloc(a, cap * sizeof(*a));
		}
		struct herd_error e = { "" };
		if (parse_line(p, &a[*n], &e) < 0) {
			errprintf(err, "%s:%ld: %s", path, lineno, e.text);
			sim_arrivals_free(a, *n);
			a = NULL;
			*n = 0;
			goto out;
		}
		a[*n].id = lineno;
		a[(*n)++].origin = xasprintf("%s:%ld", path, lineno);
	}
	if (ferror(f)) {
		errprintf(err, "%s: %s", path, strerror(errno));
		sim_arrivals_free(a, *n);
		a = NULL;
		*n = 0;
		goto out;
	}
	if (!a)
		a = xmalloc(sizeof(*a));
	qsort(a, *n, sizeof(*a), by_submit);
out:
	free(line);
	fclose(f);
	return a;
}
