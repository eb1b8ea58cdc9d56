/* cmd/srun_opt: srun's and salloc's options and input variables, the
 * --distribution / --cpu-bind / --mpi / --input / --multi-prog checks, and
 * the pieces of what srun prints (task lists, labels, status sentences, exit
 * codes, folded counts).  The command sources are compiled in because they
 * are not part of libherd. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "cmd/opt.c"
#include "cmd/jobopt.c"
#include "cmd/jobopt_read.c"
#include "cmd/jobopt_table.c"
#include "cmd/srun_opt.c"
#include "cmd/srun_check.c"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The input variables a test sets: "NAME=value" items. */
static const char *fake_env[8];
static const char *fake_getenv(const char *name)
{
	size_t len = strlen(name);
	for (size_t i = 0; i < N(fake_env) && fake_env[i]; i++)
		if (!strncmp(fake_env[i], name, len) && fake_env[i][len] == '=')
			return fake_env[i] + len + 1;
	return NULL;
}

static int parse(struct jobopt *o, enum jobopt_cmd cmd, const char *line, struct herd_error *err)
{
	static char *argv[64];
	static char buf[1024];
	int argc = 0;
	snprintf(buf, sizeof(buf), "%s", line);
	argv[argc++] = cmd == JOBOPT_SALLOC ? "salloc" : "srun";
	for (char *w = strtok(buf, " "); w && argc < 63; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	FILE *out = fopen("/dev/null", "w");
	int r = srun_opts_parse(o, cmd, argc, argv, fake_getenv, out, err);
	fclose(out);
	return r;
}

#define STR(o, name) jobopt_str(&(o), name)
#define INT(o, name) jobopt_int(&(o), name, 0)

static void test_parse_srun(void **state)
{
	struct jobopt o;
	struct herd_error err;
	memset(fake_env, 0, sizeof(fake_env));
	assert_int_equal(parse(&o, JOBOPT_SRUN,
			       "-N 2 -n 4 -c 2 -l -u -K --wait=5 --cpu-bind=verbose,cores "
			       "-m cyclic:block --mpi=pmi2 --export=NONE -o out-%t -e err -i all "
			       "--overlap -t 1:00 --mem=2G -J step -w n[1-2] prog a b", &err),
			 SRUN_PARSE_OK);
	assert_int_equal(INT(o, "nodes"), 2);
	assert_int_equal(INT(o, "ntasks"), 4);
	assert_int_equal(INT(o, "cpus_per_task"), 2);
	assert_true(jobopt_flag(&o, "label") && jobopt_flag(&o, "unbuffered") &&
		    jobopt_flag(&o, "overlap"));
	assert_int_equal(INT(o, "kill-on-bad-exit"), 1);
	assert_int_equal(INT(o, "wait"), 5);
	assert_string_equal(STR(o, "cpu-bind"), "verbose,cores");
	assert_string_equal(STR(o, "distribution"), "cyclic:block");   /* as typed */
	assert_string_equal(STR(o, "mpi"), "pmi2");
	assert_string_equal(STR(o, "export"), "NONE");
	assert_string_equal(STR(o, "output"), "out-%t");
	assert_string_equal(STR(o, "error"), "err");
	assert_null(STR(o, "input"));
	assert_int_equal(INT(o, "stdin_task"), SRUN_STDIN_ALL);
	assert_int_equal(INT(o, "time_limit"), 60);
	assert_int_equal(INT(o, "mem_mb"), 2048);
	assert_string_equal(STR(o, "name"), "step");
	assert_string_equal(STR(o, "req_nodelist"), "n[1-2]");
	assert_int_equal(o.argc, 3);
	assert_string_equal(o.argv[0], "prog");
	assert_string_equal(o.argv[2], "b");
	assert_int_equal(INT(o, "jobid"), 0);
	jobopt_free(&o);

	/* options after the command belong to it */
	assert_int_equal(parse(&o, JOBOPT_SRUN, "-n1 hostname -l", &err), SRUN_PARSE_OK);
	assert_false(jobopt_flag(&o, "label"));
	assert_int_equal(o.argc, 2);
	jobopt_free(&o);

	/* -K=0, -i with a task, -i with a file pattern, -t 0 = no limit */
	assert_int_equal(parse(&o, JOBOPT_SRUN, "--kill-on-bad-exit=0 -i 3 -t 0 x", &err), 0);
	assert_int_equal(INT(o, "kill-on-bad-exit"), 0);
	assert_int_equal(INT(o, "stdin_task"), 3);
	assert_int_equal(INT(o, "time_limit"), TIME_INFINITE);
	jobopt_free(&o);
	assert_int_equal(parse(&o, JOBOPT_SRUN, "--input=in.%t -i none x", &err), 0);
	assert_int_equal(INT(o, "stdin_task"), SRUN_STDIN_NONE);
	assert_null(STR(o, "input"));
	jobopt_free(&o);
	assert_int_equal(parse(&o, JOBOPT_SRUN, "--input=in.%t x", &err), 0);
	assert_string_equal(STR(o, "input"), "in.%t");
	assert_int_equal(INT(o, "stdin_task"), 0);
	jobopt_free(&o);

	/* --reservation (srun, salloc), SLURM_RESERVATION / SALLOC_RESERVATION */
	assert_int_equal(parse(&o, JOBOPT_SRUN, "--reservation=lab x", &err), 0);
	assert_string_equal(STR(o, "reservation"), "lab");
	jobopt_free(&o);
	fake_env[0] = "SALLOC_RESERVATION=maint1";
	assert_int_equal(parse(&o, JOBOPT_SALLOC, "-N1", &err), 0);
	assert_string_equal(STR(o, "reservation"), "maint1");
	jobopt_free(&o);
	assert_int_equal(parse(&o, JOBOPT_SALLOC, "--reservation=r2 -N1", &err), 0);
	assert_string_equal(STR(o, "reservation"), "r2");   /* the command line wins */
	jobopt_free(&o);
	fake_env[0] = NULL;
}

static void test_input_variables(void **state)
{
	struct jobopt o;
	struct herd_error err;
	memset(fake_env, 0, sizeof(fake_env));
	fake_env[0] = "SLURM_LABELIO=1";
	fake_env[1] = "SLURM_DISTRIBUTION=plane=2";
	fake_env[2] = "SLURM_JOB_ID=12";
	fake_env[3] = "SLURM_KILL_BAD_EXIT=1";
	fake_env[4] = "SLURM_MPI_TYPE=pmix";
	fake_env[5] = "SLURM_NTASKS=9";   /* an output variable of the job: not an input */
	fake_env[6] = "SLURM_JOB_NAME=batch";   /* inside an allocation: not the step's */
	assert_int_equal(parse(&o, JOBOPT_SRUN, "-m block x", &err), SRUN_PARSE_OK);
	assert_true(jobopt_flag(&o, "label"));
	assert_string_equal(STR(o, "distribution"), "block");   /* the command line wins */
	assert_int_equal(INT(o, "jobid"), 12);
	assert_int_equal(INT(o, "kill-on-bad-exit"), 1);
	assert_string_equal(STR(o, "mpi"), "pmix");
	assert_int_equal(INT(o, "ntasks"), 0);
	assert_null(STR(o, "name"));
	jobopt_free(&o);
	/* --jobid over SLURM_JOB_ID; SLURM_JOBID when SLURM_JOB_ID is absent */
	assert_int_equal(parse(&o, JOBOPT_SRUN, "--jobid=40 x", &err), SRUN_PARSE_OK);
	assert_int_equal(INT(o, "jobid"), 40);
	jobopt_free(&o);
	memset(fake_env, 0, sizeof(fake_env));
	fake_env[0] = "SLURM_JOBID=7";
	fake_env[1] = "SLURM_LABELIO=0";
	assert_int_equal(parse(&o, JOBOPT_SRUN, "x", &err), SRUN_PARSE_OK);
	assert_int_equal(INT(o, "jobid"), 7);
	assert_false(jobopt_flag(&o, "label"));
	jobopt_free(&o);
	/* a bad value names its variable */
	memset(fake_env, 0, sizeof(fake_env));
	fake_env[0] = "SLURM_DISTRIBUTION=sideways";
	assert_int_equal(parse(&o, JOBOPT_SRUN, "x", &err), SRUN_PARSE_ERROR);
	assert_string_equal(err.text,
			    "Invalid --distribution specification (from SLURM_DISTRIBUTION=sideways)");
	jobopt_free(&o);
	/* salloc's own */
	memset(fake_env, 0, sizeof(fake_env));
	fake_env[0] = "SALLOC_PARTITION=debug";
	fake_env[1] = "SLURM_JOB_ID=3";   /* salloc makes a new job regardless */
	assert_int_equal(parse(&o, JOBOPT_SALLOC, "-N 2 --no-shell", &err), SRUN_PARSE_OK);
	assert_string_equal(STR(o, "partition"), "debug");
	assert_true(jobopt_flag(&o, "no-shell"));
	assert_int_equal(INT(o, "jobid"), 0);
	assert_int_equal(o.argc, 0);
	jobopt_free(&o);
	memset(fake_env, 0, sizeof(fake_env));
}

static void test_parse_errors(void **state)
{
	static const struct {
		enum jobopt_cmd cmd;
		const char *line, *text;
	} cases[] = {
		{ JOBOPT_SRUN, "-n abc x", "Invalid numeric value \"abc\" for --ntasks." },
		{ JOBOPT_SRUN, "-n 0 x", "Invalid numeric value \"0\" for --ntasks." },
		{ JOBOPT_SRUN, "-c -1 x", "Invalid numeric value \"-1\" for --cpus-per-task." },
		{ JOBOPT_SRUN, "-N x x", "\"x\" is not a valid node count" },
		{ JOBOPT_SRUN, "-N 0 x", "Invalid node count specification" },
		{ JOBOPT_SRUN, "-t 1:xx x", "Invalid --time specification" },
		{ JOBOPT_SRUN, "--mem=lots x", "Invalid --mem specification" },
		{ JOBOPT_SRUN, "-m sideways x", "Invalid --distribution specification" },
		{ JOBOPT_SRUN, "--cpu-bind=foo x", "unrecognized --cpu-bind argument \"foo\"" },
		{ JOBOPT_SRUN, "--mpi=lam x", "invalid MPI type 'lam', --mpi=list for acceptable types" },
		{ JOBOPT_SRUN, "-W x x", "Invalid numeric value \"x\" for --wait." },
		{ JOBOPT_SRUN, "--signal=NOPE x", "Invalid --signal specification" },
		{ JOBOPT_SRUN, "-l", "No executable name specified" },
		{ JOBOPT_SRUN, "--pty --multi-prog x", "--pty and --multi-prog are incompatible" },
		{ JOBOPT_SRUN, "--gres=gpu:1:x:2 x", "Invalid generic resource (gres) specification" },
		{ JOBOPT_SRUN, "--exclusive=foo x", "Invalid --exclusive specification" },
		{ JOBOPT_SRUN, "--hint=foo x", "unrecognized --hint argument \"foo\", see --hint=help" },
		{ JOBOPT_SRUN, "-N 3-2 x", "Maximum node count 2 is less than minimum node count 3" },
		{ JOBOPT_SALLOC, "--kill-command=NOPE", "Invalid --kill-command specification" },
		{ JOBOPT_SALLOC, "-Iabc", "Invalid --immediate specification" },
		{ JOBOPT_SALLOC, "--mem=1 --mem-per-cpu=1",
		  "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive." },
	};
	memset(fake_env, 0, sizeof(fake_env));
	for (size_t i = 0; i < N(cases); i++) {
		struct jobopt o;
		struct herd_error err = { "" };
		int r = parse(&o, cases[i].cmd, cases[i].line, &err);
		if (r != SRUN_PARSE_ERROR || strcmp(err.text, cases[i].text))
			fail_msg("%s: got %d '%s', want '%s'", cases[i].line, r, err.text, cases[i].text);
		jobopt_free(&o);
	}
	/* srun-only options are unknown to salloc: getopt says so, err is empty */
	struct jobopt o;
	struct herd_error err = { "x" };
	int saved = dup(2);
	int devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, 2);
	int r = parse(&o, JOBOPT_SALLOC, "--label", &err);
	dup2(saved, 2);
	close(saved);
	close(devnull);
	assert_int_equal(r, SRUN_PARSE_ERROR);
	assert_string_equal(err.text, "");
	jobopt_free(&o);
}

static void test_info_options(void **state)
{
	struct jobopt o;
	struct herd_error err;
	memset(fake_env, 0, sizeof(fake_env));
	assert_int_equal(parse(&o, JOBOPT_SRUN, "--version", &err), SRUN_PARSE_INFO);
	jobopt_free(&o);
	assert_int_equal(parse(&o, JOBOPT_SRUN, "-h", &err), SRUN_PARSE_INFO);
	jobopt_free(&o);
	assert_int_equal(parse(&o, JOBOPT_SALLOC, "--usage", &err), SRUN_PARSE_INFO);
	jobopt_free(&o);
	assert_int_equal(parse(&o, JOBOPT_SRUN, "--mpi=list", &err), SRUN_PARSE_INFO);
	jobopt_free(&o);
}

static void test_distribution(void **state)
{
	static const struct {
		const char *in, *out;   /* out NULL: refused */
	} cases[] = {
		{ "block", "block" }, { "cyclic", "cyclic" }, { "plane=4", "plane=4" },
		{ "*", "" }, { "*:cyclic", "block" }, { "block:cyclic", "block" },
		{ "cyclic:block:fcyclic", "cyclic" }, { "block,Pack", "block" },
		{ "cyclic:*,NoPack", "cyclic" }, { "Cyclic", "cyclic" },
		{ "plane", NULL }, { "plane=0", NULL }, { "plane=x", NULL }, { "arbitrary", "arbitrary" },
		{ "plane=2:block", NULL },
		{ "block:sideways", NULL }, { "block,Tight", NULL }, { "a:b:c:d", NULL }, { "", NULL },
	};
	for (size_t i = 0; i < N(cases); i++) {
		char out[32] = "unset";
		struct herd_error err = { "" };
		int r = srun_dist_parse(cases[i].in, out, sizeof(out), &err);
		if (cases[i].out) {
			if (r != 0 || strcmp(out, cases[i].out))
				fail_msg("%s: got %d '%s' (%s)", cases[i].in, r, out, err.text);
		} else if (r == 0) {
			fail_msg("%s: accepted as '%s'", cases[i].in, out);
		}
	}
}

static void test_cpu_bind(void **state)
{
	static const char *good[] = {
		"none", "no", "cores", "threads", "sockets", "ldoms", "rank", "verbose,cores",
		"q,threads", "map_cpu:0,1,2", "map_cpu:0x3,4*2", "mask_cpu:0x3,0xC",
		"mask_cpu:f,f0", "verbose,map_cpu:1,3", "quiet",
	};
	static const char *bad[] = {
		"", "foo", "cores,threads", "map_cpu:", "mask_cpu:zz", "map_cpu:1,,2", "map_cpu:a",
		"none,rank", "cores,verbose,banana",
	};
	struct herd_error err;
	for (size_t i = 0; i < N(good); i++)
		if (srun_cpu_bind_check(good[i], &err) < 0)
			fail_msg("%s refused: %s", good[i], err.text);
	for (size_t i = 0; i < N(bad); i++)
		if (srun_cpu_bind_check(bad[i], &err) == 0)
			fail_msg("%s accepted", bad[i]);
	assert_int_equal(srun_cpu_bind_check("map_cpu:", &err), -1);
	assert_string_equal(err.text, "missing list for \"--cpu-bind=map_cpu:<list>\"");
}

static void test_input_parse(void **state)
{
	int task;
	const char *pattern;
	srun_input_parse("all", &task, &pattern);
	assert_int_equal(task, SRUN_STDIN_ALL);
	assert_null(pattern);
	srun_input_parse("NONE", &task, &pattern);
	assert_int_equal(task, SRUN_STDIN_NONE);
	srun_input_parse("12", &task, &pattern);
	assert_int_equal(task, 12);
	assert_null(pattern);
	srun_input_parse("in-%t.txt", &task, &pattern);
	assert_int_equal(task, 0);
	assert_string_equal(pattern, "in-%t.txt");
}

static void test_multi_prog(void **state)
{
	struct herd_error err;
	long ntasks = 0;
	const char *text = "# comment\n0-1 echo a %t\n\n2,3 hostname\n 4 /bin/true # trailing\n";
	char **lines = srun_multi_prog_check("mp.conf", text, &ntasks, &err);
	assert_non_null(lines);
	assert_int_equal(ntasks, 5);
	assert_int_equal(opt_strv_len(lines), 5);
	assert_string_equal(lines[1], "0-1 echo a %t");
	opt_strv_free(lines);

	ntasks = 8;   /* "*" covers whatever -n says */
	lines = srun_multi_prog_check("mp.conf", "0 a\n* b\n", &ntasks, &err);
	assert_non_null(lines);
	opt_strv_free(lines);

	static const struct {
		long ntasks;
		const char *text, *error;
	} bad[] = {
		{ 3, "0-1 a\n", "Configuration file mp.conf invalid: no program for task 2" },
		{ 0, "0-1 a\n1 b\n", "Configuration file mp.conf invalid: task 1 named more than once" },
		{ 2, "0-x a\n", "Invalid task range specification (0-x) in line 1 of configuration file "
				"mp.conf" },
		{ 2, "3-1 a\n", "Invalid task range specification (3-1) in line 1 of configuration file "
				"mp.conf" },
		{ 2, "0-1\n", "No executable in line 1 of configuration file mp.conf" },
		{ 2, "0-4 a\n", "Configuration file mp.conf invalid: task 4 out of range (ntasks=2)" },
		{ 0, "* a\n", "Configuration file mp.conf invalid: the number of tasks cannot be known "
			      "from it; use -n" },
	};
	for (size_t i = 0; i < N(bad); i++) {
		ntasks = bad[i].ntasks;
		lines = srun_multi_prog_check("mp.conf", bad[i].text, &ntasks, &err);
		if (lines)
			fail_msg("%s accepted", bad[i].text);
		assert_string_equal(err.text, bad[i].error);
	}
	ntasks = 0;
	assert_null(srun_multi_prog_read("/nonexistent/mp.conf", &ntasks, &err));
	assert_string_equal(err.text, "Unable to open configuration file /nonexistent/mp.conf");
}

static void test_task_lists(void **state)
{
	char buf[128];
	int a[] = { 3 }, b[] = { 1, 0 }, c[] = { 7, 0, 1, 2, 5, 9, 8 };
	assert_string_equal(srun_task_phrase(a, 1, buf, sizeof(buf)), "task 3");
	assert_string_equal(srun_task_phrase(b, 2, buf, sizeof(buf)), "tasks 0-1");
	assert_string_equal(srun_task_list(c, N(c), buf, sizeof(buf)), "0-2,5,7-9");
	assert_int_equal(srun_label_width(1), 1);
	assert_int_equal(srun_label_width(10), 1);
	assert_int_equal(srun_label_width(11), 2);
	assert_int_equal(srun_label_width(101), 3);
	assert_string_equal(srun_label(3, 2, buf, sizeof(buf)), " 3: ");
	assert_string_equal(srun_label(12, 2, buf, sizeof(buf)), "12: ");
	assert_string_equal(srun_label(0, 1, buf, sizeof(buf)), "0: ");
}

static void test_status(void **state)
{
	char buf[128];
	assert_null(srun_status_text(0, false, buf, sizeof(buf)));
	assert_string_equal(srun_status_text(2 << 8, false, buf, sizeof(buf)),
			    "Exited with exit code 2");
	assert_string_equal(srun_status_text(SIGKILL, false, buf, sizeof(buf)), "Killed");
	assert_string_equal(srun_status_text(SIGTERM, false, buf, sizeof(buf)), "Terminated");
	assert_string_equal(srun_status_text(SIGSEGV | 0x80, false, buf, sizeof(buf)),
			    "Segmentation fault (core dumped)");
	assert_string_equal(srun_status_text(SIGKILL, true, buf, sizeof(buf)), "Out Of Memory");
	assert_int_equal(srun_status_code(0), 0);
	assert_int_equal(srun_status_code(3 << 8), 3);
	assert_int_equal(srun_status_code(SIGKILL), 137);
	assert_int_equal(srun_status_code(SIGSEGV | 0x80), 139);
}

static void test_counts(void **state)
{
	char buf[64];
	int a[] = { 2, 2, 2, 1 }, b[] = { 4 }, c[] = { 1, 2, 1 };
	assert_string_equal(srun_fold_counts(a, 4, buf, sizeof(buf)), "2(x3),1");
	assert_string_equal(srun_fold_counts(b, 1, buf, sizeof(buf)), "4");
	assert_string_equal(srun_fold_counts(c, 3, buf, sizeof(buf)), "1,2,1");
	int cpus[] = { 4, 4, 4 }, out[3];
	srun_tasks_per_node(cpus, 3, 7, 3, 1, out);   /* -N 3 -n 7: 3,2,2 */
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 2);
	assert_int_equal(out[2], 2);
	srun_tasks_per_node(cpus, 2, 6, 0, 1, out);   /* -n 6: fill CPUs, 4,2 */
	assert_int_equal(out[0], 4);
	assert_int_equal(out[1], 2);
	srun_tasks_per_node(cpus, 2, 0, 2, 1, out);   /* -N 2: one each */
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_srun),
		cmocka_unit_test(test_input_variables),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_info_options),
		cmocka_unit_test(test_distribution),
		cmocka_unit_test(test_cpu_bind),
		cmocka_unit_test(test_input_parse),
		cmocka_unit_test(test_multi_prog),
		cmocka_unit_test(test_task_lists),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
