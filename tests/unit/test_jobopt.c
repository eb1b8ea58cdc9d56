/* cmd/jobopt: the job-option table read from each source with each
 * command's precedence, what lands in the job object (one encoder), the
 * heterogeneous components, #PBS directives, and common/jobspec's bounds.
 * The command sources are compiled in because they are not part of libherd. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmd/opt.c"
#include "cmd/jobopt.c"
#include "cmd/jobopt_pbs.c"
#include "cmd/jobopt_read.c"
#include "cmd/jobopt_table.c"
#include "cmd/srun_check.c"
#include "common/jobspec.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *fake_env[8];
static const char *fake_getenv(const char *name)
{
	size_t len = strlen(name);
	for (size_t i = 0; i < N(fake_env) && fake_env[i]; i++)
		if (!strncmp(fake_env[i], name, len) && fake_env[i][len] == '=')
			return fake_env[i] + len + 1;
	return NULL;
}

/* words of line split on blanks, argv[0] the program; static storage */
static int split(const char *prog, const char *line, char **argv, size_t max)
{
	static char buf[2048];
	int argc = 0;
	snprintf(buf, sizeof(buf), "%s", line);
	argv[argc++] = (char *)prog;
	for (char *w = strtok(buf, " "); w && argc < (int)max - 1; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	return argc;
}

static int args(struct jobopt *o, const char *line, int *next, struct herd_error *err)
{
	static char *argv[128];
	int argc = split(jobopt_prog(o->cmd), line, argv, N(argv));
	return jobopt_args(o, JOBOPT_ARGS, argc, argv, next, err);
}

static json_t *job_of(const struct jobopt *o)
{
	struct jobopt_ctx ctx = { .script = "#!/bin/sh\n", .cwd = "/w", .name = "n",
				  .host = "h", .umask = 022, .rlimits = true };
	return jobopt_job(o, &ctx);
}

static long long jint(const json_t *job, const char *key)
{
	return json_integer_value(json_object_get(job, key));
}

static const char *jstr(const json_t *job, const char *key)
{
	return json_string_value(json_object_get(job, key));
}

/* The options of the contract land in their keys (as typed where it says). */
static void test_keys(void **state)
{
	struct jobopt o;
	struct herd_error err;
	int next;
	jobopt_init(&o, JOBOPT_SBATCH);
	assert_int_equal(args(&o, "--wckey=proj -L a:2,b --tmp=2G --priority=TOP -k -O -s "
			      "--spread-job --use-min-nodes --delay-boot=10 -N 2-4 --mincpus=3 "
			      "-B 2:4-8:* --distribution=cyclic:block,Pack --ntasks-per-socket=2 "
			      "--ntasks-per-core=1 --hint=nomultithread --mem-bind=local "
			      "--propagate --get-user-env=10L --container=/b --cpu-freq=low-high:OnDemand "
			      "--acctg-freq=task=30,energy=60 --batch=fast --mail-type=BEGIN,END "
			      "script.sh", &next, &err), JOBOPT_OK);
	json_t *job = job_of(&o);
	struct herd_error why;
	if (msg_check(jobspec_fields, job, "job", &why) < 0)
		fail_msg("%s", why.text);
	assert_int_equal(jobspec_check(job, &why), 0);
	assert_string_equal(jstr(job, "wckey"), "proj");
	assert_string_equal(jstr(job, "licenses"), "a:2,b");
	assert_int_equal(jint(job, "tmp_mb"), 2048);
	assert_string_equal(jstr(job, "priority"), "TOP");
	assert_true(json_is_true(json_object_get(job, "no_kill")));
	assert_true(json_is_true(json_object_get(job, "overcommit")));
	assert_true(json_is_true(json_object_get(job, "oversubscribe")));
	assert_true(json_is_true(json_object_get(job, "spread_job")));
	assert_true(json_is_true(json_object_get(job, "use_min_nodes")));
	assert_int_equal(jint(job, "delay_boot"), 600);
	assert_int_equal(jint(job, "nodes"), 2);
	assert_int_equal(jint(job, "max_nodes"), 4);
	assert_int_equal(jint(job, "mincpus"), 3);
	assert_int_equal(jint(job, "sockets_per_node"), 2);
	assert_int_equal(jint(job, "cores_per_socket"), 4);
	assert_null(json_object_get(job, "threads_per_core"));   /* "*" */
	assert_string_equal(jstr(job, "distribution"), "cyclic:block,Pack");
	assert_int_equal(jint(job, "ntasks_per_socket"), 2);
	assert_int_equal(jint(job, "ntasks_per_core"), 1);
	assert_string_equal(jstr(job, "hint"), "nomultithread");
	assert_string_equal(jstr(job, "mem_bind"), "local");
	assert_string_equal(jstr(job, "propagate"), "");   /* bare: every limit */
	assert_string_equal(jstr(job, "get_user_env"), "10L");
	assert_string_equal(jstr(job, "container"), "/b");
	assert_string_equal(jstr(job, "cpu_freq"), "low-high:OnDemand");
	assert_string_equal(jstr(job, "acctg_freq"), "task=30,energy=60");
	assert_string_equal(jstr(job, "batch_features"), "fast");
	assert_string_equal(jstr(job, "mail_type"), "BEGIN,END");
	/* rlimits always, [soft, hard] with -1 for unlimited */
	json_t *core = json_object_get(json_object_get(job, "rlimits"), "CORE");
	assert_int_equal(json_array_size(core), 2);
	assert_int_equal(json_object_size(json_object_get(job, "rlimits")), 10);
	/* not given, not sent */
	assert_null(json_object_get(job, "qos"));
	assert_null(json_object_get(job, "priority_x"));
	json_decref(job);
	jobopt_free(&o);

	/* -k=off; -N without a range has no max_nodes */
	jobopt_init(&o, JOBOPT_SRUN);
	assert_int_equal(args(&o, "--no-kill=off -N 3 x", &next, &err), JOBOPT_OK);
	job = job_of(&o);
	assert_true(json_is_false(json_object_get(job, "no_kill")));
	assert_null(json_object_get(job, "max_nodes"));
	json_decref(job);
	jobopt_free(&o);
}

static void test_errors(void **state)
{
	static const struct {
		enum jobopt_cmd cmd;
		const char *line, *text;
		int rc;
	} cases[] = {
		{ JOBOPT_SBATCH, "-N 0", "Batch job submission failed: Node count specification invalid",
		  JOBOPT_FATAL },
		{ JOBOPT_SBATCH, "-N 4-2", "Maximum node count 2 is less than minimum node count 4",
		  JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "--tmp=abc", "Invalid --tmp specification", JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "--mincpus=x", "Invalid numeric value \"x\" for --mincpus.", JOBOPT_FATAL },
		{ JOBOPT_SBATCH, "-B x", "Invalid numeric value \"x\" for first arg of -B.", JOBOPT_FATAL },
		{ JOBOPT_SBATCH, "--delay-boot=abc", "Invalid --delay-boot specification", JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "--hint=foo", "unrecognized --hint argument \"foo\", see --hint=help",
		  JOBOPT_FATAL },
		{ JOBOPT_SBATCH, "--mem-bind=foo", "unrecognized --mem-bind argument \"foo\"", JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "--profile=foo", "invalid --profile=foo option", JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "--cpu-freq=foo", "Invalid --cpu-freq argument", JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "--acctg-freq=foo", "Invalid --acctg-freq specification: foo", JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "--get-user-env=bad", "Invalid --get-user-env specification", JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "--distribution=foo", "Invalid --distribution specification", JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "--propagate=FOO", "--propagate=FOO is not valid.", JOBOPT_FATAL },
		{ JOBOPT_SBATCH, "--gres=gpu:x:y", "Invalid generic resource (gres) specification", JOBOPT_FATAL },
		{ JOBOPT_SBATCH, "-G a:b:1", "Invalid generic resource (gres) specification", JOBOPT_FATAL },
		{ JOBOPT_SRUN, "--gpus-per-task=1: x", "Invalid generic resource (gres) specification", JOBOPT_FATAL },
		{ JOBOPT_SBATCH, "--gpu-bind=foo", "Invalid --gpu-bind argument: gpu:foo", JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "--gres-flags=foo", "Invalid --gres-flags specification", JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "--tres-per-task=mem:1", "Invalid --tres-per-task specification: mem:1",
		  JOBOPT_FATAL },
		{ JOBOPT_SALLOC, "--switches=1", "--switches needs a network topology (TopologyPlugin), "
		  "which this cluster has not", JOBOPT_FATAL },
		{ JOBOPT_SBATCH, "--priority=abc", "Invalid --priority specification", JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "--wait-all-nodes=2", "Invalid --wait-all-nodes specification", JOBOPT_ERROR },
		{ JOBOPT_SBATCH, "-S x", "Invalid numeric value \"x\" for --core-spec.", JOBOPT_FATAL },
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct jobopt o;
		struct herd_error err = { "" };
		int next;
		jobopt_init(&o, cases[i].cmd);
		int rc = args(&o, cases[i].line, &next, &err);
		if (rc != cases[i].rc || strcmp(err.text, cases[i].text))
			fail_msg("%s: got %d '%s', want %d '%s'", cases[i].line, rc, err.text,
				 cases[i].rc, cases[i].text);
		jobopt_free(&o);
	}
}

/* Slurm's warnings: noted, the job still goes. */
static void test_notes(void **state)
{
	struct jobopt o;
	struct herd_error err;
	int next;
	jobopt_init(&o, JOBOPT_SBATCH);
	assert_int_equal(args(&o, "-S 1 --thread-spec=2 --power=foo --propagate=CORE", &next, &err),
			 JOBOPT_OK);
	assert_int_equal(json_array_size(o.notes), 3);
	assert_string_equal(json_string_value(json_array_get(o.notes, 0)),
			    "sbatch: error: Ignoring -S since it's not allowed by configuration "
			    "(AllowSpecResourcesUsage = No)");
	assert_string_equal(json_string_value(json_array_get(o.notes, 2)),
			    "sbatch: error: Ignoring unrecognized power option (foo)");
	assert_false(jobopt_given(&o, "power"));
	assert_string_equal(jobopt_str(&o, "propagate"), "CORE");
	jobopt_free(&o);
}

/* sbatch: #SBATCH < SBATCH_* < command line; --mem vs --mem-per-cpu. */
static void test_precedence(void **state)
{
	struct jobopt o;
	struct herd_error err = { "" };
	int next;
	char *words[] = { "-p", "script", "--mem=1G", "-t", "5", "--wckey=s", NULL };
	memset(fake_env, 0, sizeof(fake_env));
	fake_env[0] = "SBATCH_PARTITION=env";
	fake_env[1] = "SBATCH_MEM_PER_CPU=100";
	fake_env[2] = "SLURM_WCKEY=srun-only";   /* not sbatch's variable */
	fake_env[3] = "SBATCH_TIMELIMIT=10";
	fake_env[4] = "SLURM_HINT=compute_bound";   /* every command's */
	jobopt_init(&o, JOBOPT_SBATCH);
	assert_int_equal(jobopt_words(&o, words, 6, &err), JOBOPT_OK);
	assert_int_equal(jobopt_env(&o, fake_getenv, &err), JOBOPT_OK);
	assert_int_equal(args(&o, "-t 20 job.sh", &next, &err), JOBOPT_OK);
	assert_string_equal(jobopt_str(&o, "partition"), "env");
	assert_int_equal(jobopt_int(&o, "mem_per_cpu", 0), 100);   /* a later source replaces */
	assert_false(jobopt_given(&o, "mem_mb"));
	assert_string_equal(jobopt_str(&o, "wckey"), "s");
	assert_int_equal(jobopt_int(&o, "time_limit", 0), 1200);
	assert_string_equal(jobopt_str(&o, "hint"), "compute_bound");
	jobopt_free(&o);

	/* both from one source: Slurm's fatal() */
	jobopt_init(&o, JOBOPT_SBATCH);
	assert_int_equal(args(&o, "--mem=1 --mem-per-cpu=1 x", &next, &err), JOBOPT_FATAL);
	assert_true(o.fatal);
	jobopt_free(&o);
	memset(fake_env, 0, sizeof(fake_env));
}

/* Components: " : " on the command line, #SBATCH hetjob, srun's commands. */
static void test_het(void **state)
{
	struct jobopt o;
	struct herd_error err = { "" };
	int next;
	char *words[] = { "-N", "1", "--wckey=w0", "hetjob", "-N", "2", "packjob", "-n", "3", NULL };
	jobopt_init(&o, JOBOPT_SBATCH);
	assert_int_equal(jobopt_words(&o, words, 9, &err), JOBOPT_OK);
	assert_int_equal(args(&o, "-p a : -p b job.sh arg", &next, &err), JOBOPT_OK);
	assert_int_equal(next, 6);   /* job.sh */
	assert_non_null(o.het_next);
	assert_non_null(o.het_next->het_next);
	assert_null(o.het_next->het_next->het_next);
	assert_string_equal(jobopt_str(&o, "partition"), "a");
	assert_string_equal(jobopt_str(o.het_next, "partition"), "b");
	assert_int_equal(jobopt_int(o.het_next, "nodes", 0), 2);
	assert_int_equal(jobopt_int(o.het_next->het_next, "ntasks", 0), 3);
	struct jobopt_ctx ctx = { .script = "#!/bin/sh\n", .cwd = "/", .name = "n", .host = "h" };
	json_t *body = jobopt_submit_body(&o, &ctx);
	assert_non_null(body);
	json_t *het = json_object_get(body, "het");
	assert_int_equal(json_array_size(het), 2);
	assert_int_equal(jint(json_object_get(body, "job"), "nodes"), 1);
	assert_int_equal(jint(json_array_get(het, 0), "nodes"), 2);
	assert_int_equal(jint(json_array_get(het, 1), "ntasks"), 3);
	assert_null(json_object_get(json_array_get(het, 0), "wckey"));
	json_decref(body);
	jobopt_free(&o);

	/* srun: each component's own command, the variables in every one */
	memset(fake_env, 0, sizeof(fake_env));
	fake_env[0] = "SLURM_PARTITION=p";
	jobopt_init(&o, JOBOPT_SRUN);
	assert_int_equal(jobopt_env(&o, fake_getenv, &err), JOBOPT_OK);
	assert_int_equal(args(&o, "-n1 hostname -s : -n2 echo hi", &next, &err), JOBOPT_OK);
	assert_int_equal(o.argc, 2);
	assert_string_equal(o.argv[1], "-s");
	assert_non_null(o.het_next);
	assert_int_equal(o.het_next->argc, 2);
	assert_string_equal(o.het_next->argv[0], "echo");
	assert_int_equal(jobopt_int(o.het_next, "ntasks", 0), 2);
	assert_string_equal(jobopt_str(o.het_next, "partition"), "p");
	jobopt_free(&o);
	memset(fake_env, 0, sizeof(fake_env));
}

static void test_pbs(void **state)
{
	const char *script = "#!/bin/sh\n#PBS -N pbsjob\n#PBS -l nodes=2:ppn=4,walltime=01:30:00\n"
			     "#PBS -l mem=4gb\n#PBS -q debug\n#PBS -o host:/tmp/out -e /tmp/err\n"
			     "#PBS -j oe\n#PBS -m abe\n#PBS -M me@x\n#PBS -A acct\n#PBS -V\n"
			     "#PBS -W depend=afterok:12\n#PBS -S /bin/bash\n#PBS -r n\necho\n";
	size_t n, m;
	char **pbs = opt_script_directives(script, "#PBS", &n);
	char **words = jobopt_pbs_words(pbs, n, &m);
	struct jobopt o;
	struct herd_error err = { "" };
	jobopt_init(&o, JOBOPT_SBATCH);
	assert_int_equal(jobopt_words(&o, words, m, &err), JOBOPT_OK);
	assert_string_equal(jobopt_str(&o, "name"), "pbsjob");
	assert_int_equal(jobopt_int(&o, "nodes", 0), 2);
	assert_int_equal(jobopt_int(&o, "ntasks_per_node", 0), 4);
	assert_int_equal(jobopt_int(&o, "time_limit", 0), 5400);
	assert_int_equal(jobopt_int(&o, "mem_mb", 0), 4096);
	assert_string_equal(jobopt_str(&o, "partition"), "debug");
	assert_string_equal(jobopt_str(&o, "stdout"), "/tmp/out");
	assert_false(jobopt_given(&o, "stderr"));   /* -j oe: into the output */
	assert_string_equal(jobopt_str(&o, "mail_type"), "BEGIN,END,FAIL");
	assert_string_equal(jobopt_str(&o, "mail_user"), "me@x");
	assert_string_equal(jobopt_str(&o, "account"), "acct");
	assert_string_equal(jobopt_str(&o, "export"), "ALL");
	assert_string_equal(jobopt_str(&o, "dependency"), "afterok:12");
	assert_true(json_is_false(json_object_get(o.spec, "requeue")));
	jobopt_free(&o);
	opt_strv_free(words);
	opt_strv_free(pbs);
}

static void test_bsub(void **state)
{
	const char *script = "#!/bin/sh\n#BSUB -J lsf\n#BSUB -n 4\n#BSUB -W 30:00\n#BSUB -q debug\n"
			     "#BSUB -M 2048\n#BSUB -x\n#BSUB -cwd /tmp\n#BSUB -oout.%J\ntrue\n";
	size_t n, m;
	char bad;
	char **lsf = opt_script_directives(script, "#BSUB", &n);
	char **words = jobopt_bsub_words(lsf, n, &m, &bad);
	struct jobopt o;
	struct herd_error err = { "" };
	assert_non_null(words);
	jobopt_init(&o, JOBOPT_SBATCH);
	assert_int_equal(jobopt_words(&o, words, m, &err), JOBOPT_OK);
	assert_string_equal(jobopt_str(&o, "name"), "lsf");
	assert_int_equal(jobopt_int(&o, "ntasks", 0), 4);
	assert_int_equal(jobopt_int(&o, "time_limit", 0), 1800);
	assert_string_equal(jobopt_str(&o, "partition"), "debug");
	assert_int_equal(jobopt_int(&o, "mem_per_cpu", 0), 2);
	assert_true(jobopt_flag(&o, "exclusive"));
	assert_string_equal(jobopt_str(&o, "chdir"), "/tmp");
	assert_string_equal(jobopt_str(&o, "stdout"), "out.%J");
	jobopt_free(&o);
	opt_strv_free(words);
	opt_strv_free(lsf);
	/* a letter Slurm does not take */
	char *b[] = { "-B", NULL };
	assert_null(jobopt_bsub_words(b, 1, &m, &bad));
	assert_int_equal(bad, 'B');
}

/* The controller's bounds, from the same table. */
static void test_jobspec_bounds(void **state)
{
	struct herd_error err;
	json_t *spec = json_pack("{s:i, s:i}", "nodes", 2, "signal", 65);
	assert_int_equal(jobspec_check(spec, &err), -1);
	assert_string_equal(err.text, "signal: 65 is out of range");
	json_object_set_new(spec, "signal", json_integer(10));
	json_object_set_new(spec, "time_limit", json_integer(-3));
	assert_int_equal(jobspec_check(spec, &err), -1);
	json_object_set_new(spec, "time_limit", json_integer(-2));   /* not given */
	assert_int_equal(jobspec_check(spec, &err), 0);
	assert_non_null(jobspec_field("wckey"));
	assert_null(jobspec_field("no_such_key"));
	json_decref(spec);
}

/* Every row: a reader, a long name the getopt table takes, a help line or
 * (aliases) another row of that name's reader; every JOBSPEC key a row
 * names is in the JOBSPEC. */
static void test_table(void **state)
{
	for (const struct jobopt_row *r = jobopt_table; r->name; r++) {
		assert_non_null(r->parse);
		assert_true(r->cmds != 0 && (r->cmds & ~7u) == 0);
		if (r->key && !jobspec_field(r->key))
			fail_msg("--%s: key %s is not in the JOBSPEC", r->name, r->key);
		/* no two rows of one name for one command */
		for (const struct jobopt_row *s = r + 1; s->name; s++)
			if (!strcmp(r->name, s->name) && (r->cmds & s->cmds))
				fail_msg("--%s twice", r->name);
		if (r->letter)
			for (const struct jobopt_row *s = r + 1; s->name; s++)
				if (s->letter == r->letter && (r->cmds & s->cmds))
					fail_msg("-%c twice (--%s, --%s)", r->letter, r->name, s->name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_het),
		cmocka_unit_test(test_pbs),
		cmocka_unit_test(test_bsub),
		cmocka_unit_test(test_jobspec_bounds),
		cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
