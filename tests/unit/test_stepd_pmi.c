/* herdstepd's PMI servers: the PMI-1 and PMI-2 wire protocols spoken by a
 * forked client over the real socketpair, garbage, a fence across two
 * servers ("nodes") in one process, the bounds on what tasks and srun make
 * the server hold, and real MPI programs: MPICH over PMI-1, Open MPI over
 * the PMIx server.  The stepd sources are not in
 * libherd, so the ones under test are compiled in here. */
#define _GNU_SOURCE   /* rmtree.c's getdents64 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "stepd/pmi.c"
#include "stepd/pmix.c"
#include "stepd/rmtree.c"
#include "stepd/pmi_kvs.c"

extern char **environ;

/* ---- names and mappings ---- */

static void test_kind_parse(void **state)
{
	static const struct { const char *name; int kind; } cases[] = {
		{ "none", PMI_NONE }, { "pmi1", PMI_PMI1 }, { "pmi", PMI_PMI1 },
		{ "pmi2", PMI_PMI2 }, { "PMI2", PMI_PMI2 }, { "pmix", PMI_PMIX },
		{ "pmix_v3", PMI_PMIX }, { "pmix_v4", PMI_PMIX }, { "openmpi", -1 },
		{ "", -1 }, { NULL, -1 }, { "pmix_v", -1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (pmi_kind_parse(cases[i].name) != cases[i].kind)
			fail_msg("pmi_kind_parse(%s) = %d, want %d", cases[i].name ? cases[i].name : "NULL",
				 pmi_kind_parse(cases[i].name), cases[i].kind);
	assert_string_equal(pmi_kind_name(PMI_PMIX), "pmix");
}

static void test_process_mapping(void **state)
{
	static const struct {
		int size, nodes;
		const char *tpn, *dist, *want;
	} cases[] = {
		{ 8, 4, "2(x4)", "block", "(vector,(0,4,2))" },
		{ 8, 4, "2(x4)", "cyclic", "(vector,(0,4,1))" },
		{ 7, 4, "2(x3),1", "block", "(vector,(0,3,2),(3,1,1))" },
		{ 8, 2, "4(x2)", "plane=2", "(vector,(0,2,2))" },
		{ 3, 2, "2,1", "cyclic", "(vector,(0,2,1))" },
		{ 5, 2, "4,1", "cyclic", "(vector,(0,2,1),(0,1,3))" },
		{ 1, 1, "1", "block", "(vector,(0,1,1))" },
		{ 4, 1, "4", "", "(vector,(0,1,4))" },
		{ 4, 2, "2,3", "block", NULL },        /* does not add up */
		{ 4, 2, "2(x", "block", NULL },
		{ 4, 2, "2,2,2", "block", NULL },
		{ 4, 2, "2,2", "plane=0", NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = pmi_process_mapping(cases[i].size, cases[i].nodes, cases[i].tpn, cases[i].dist);
		if (!cases[i].want != !got || (got && strcmp(got, cases[i].want)))
			fail_msg("mapping of %s %s: got %s, want %s", cases[i].tpn, cases[i].dist,
				 got ? got : "NULL", cases[i].want ? cases[i].want : "NULL");
		free(got);
	}
}

/* --mpi=none sets nothing; a layout that does not hold is refused with a
 * sentence. */
static void test_none_and_bad_layout(void **state)
{
	uv_loop_t loop;
	uv_loop_init(&loop);
	static const int ranks[] = { 0, 1 }, bad[] = { 0, 5 };
	struct pmi_step_info info = {
		.job_id = 1, .step_id = 0, .size = 2, .num_nodes = 1, .node_id = 0,
		.ranks = ranks, .nranks = 2, .node_names = "n1", .tasks_per_node = "2",
		.distribution = "block",
	};
	struct herd_error err = { "" };
	struct pmi_server *s = pmi_create(&loop, PMI_NONE, &info, NULL, NULL, NULL, &err);
	assert_non_null(s);
	char **env = NULL;
	size_t envc = 0;
	int keep = 7;
	assert_int_equal(pmi_task_env(s, 0, &env, &envc, &keep, &err), 0);
	assert_int_equal(envc, 0);
	assert_int_equal(keep, -1);
	pmi_destroy(s);
	info.ranks = bad;
	assert_null(pmi_create(&loop, PMI_PMI2, &info, NULL, NULL, NULL, &err));
	assert_string_equal(err.text, "Invalid task rank 5 for PMI (the step has 2 tasks)");
	info.ranks = ranks;
	info.node_id = 1;
	assert_null(pmi_create(&loop, PMI_PMI2, &info, NULL, NULL, NULL, &err));
	assert_string_equal(err.text, "Invalid step layout for PMI (2 tasks on 1 nodes)");
	/* PMIx needs the step's nodes named. */
	info.node_id = 0;
	info.node_names = "n[1-2]";
	assert_null(pmi_create(&loop, PMI_PMIX, &info, NULL, NULL, NULL, &err));
	assert_string_equal(err.text, "The step's node list 'n[1-2]' does not name its 1 nodes");
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

/* ---- running forked clients on the loop ---- */

#define MAX_KIDS 8

struct kids {
	pid_t pid[MAX_KIDS];
	int status[MAX_KIDS];
	int n, running;
	uv_timer_t timer;
	time_t deadline;
};

static void kids_poll(uv_timer_t *t)
{
	struct kids *k = t->data;
	for (int i = 0; i < k->n; i++) {
		if (k->pid[i] <= 0)
			continue;
		int st;
		if (waitpid(k->pid[i], &st, WNOHANG) == k->pid[i]) {
			k->status[i] = st;
			k->pid[i] = -k->pid[i];
			k->running--;
		}
	}
	if (time(NULL) > k->deadline)
		for (int i = 0; i < k->n; i++)
			if (k->pid[i] > 0)
				kill(k->pid[i], SIGKILL);
	if (!k->running) {
		uv_timer_stop(t);
		uv_stop(t->loop);
	}
}

/* Run the loop until every kid exited (killed after `seconds`). */
static void kids_wait(uv_loop_t *loop, struct kids *k, int seconds)
{
	k->deadline = time(NULL) + seconds;
	uv_timer_init(loop, &k->timer);
	k->timer.data = k;
	uv_timer_start(&k->timer, kids_poll, 5, 5);
	uv_run(loop, UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&k->timer, NULL);
	uv_run(loop, UV_RUN_NOWAIT);
}

/* A forked client keeps only its own socket: the others' ends, inherited
 * through fork without an exec, would keep their connections open. */
static void close_others(int keep)
{
	for (int fd = 3; fd < 1024; fd++)
		if (fd != keep)
			close(fd);
}

static int env_int(char **env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (!strncmp(env[i], name, n) && env[i][n] == '=')
			return atoi(env[i] + n + 1);
	return -1;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* A client script: PMI-1 lines or PMI-2 frames sent, and the exact answer
 * each must get (NULL: none is read). */
struct step {
	int proto;      /* 1: a line as is; 2: framed with the 6-char length */
	const char *send, *want;
};

static int read_full(int fd, char *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0)
			return -1;
		got += r;
	}
	return 0;
}

/* The answer to one step: a PMI-1 line (with its '\n') or a PMI-2 frame's
 * payload. */
static char *read_answer(int fd, int proto)
{
	static char buf[70000];
	size_t n = 0;
	if (proto == 1) {
		while (n < sizeof(buf) - 1) {
			if (read(fd, buf + n, 1) != 1)
				return NULL;
			if (buf[n++] == '\n')
				break;
		}
		buf[n] = 0;
		return buf;
	}
	char head[7] = { 0 };
	if (read_full(fd, head, 6) < 0)
		return NULL;
	n = atoi(head);
	if (n >= sizeof(buf) || read_full(fd, buf, n) < 0)
		return NULL;
	buf[n] = 0;
	return buf;
}

/* In the child: run the script over fd; exit 0 if every answer matched. */
static void client_run(int fd, const struct step *steps, const char *who)
{
	for (int i = 0; steps[i].send; i++) {
		const struct step *st = &steps[i];
		char *msg;
		if (st->proto == 2)
			msg = xasprintf("%-6zu%s", strlen(st->send), st->send);
		else
			msg = xstrdup(st->send);
		if (write(fd, msg, strlen(msg)) != (ssize_t)strlen(msg))
			_exit(90);
		free(msg);
		if (!st->want) {
			usleep(50000);    /* the next write arrives on its own */
			continue;
		}
		char *got = read_answer(fd, st->want[0] == '\n' ? 1 : st->proto);
		if (!got || strcmp(got, st->want)) {
			fprintf(stderr, "%s: step %d '%s': got '%s', want '%s'\n", who, i, st->send,
				got ? got : "(closed)", st->want);
			_exit(1);
		}
	}
	_exit(0);
}

/* Fork a client for local task `local` of s: it finds its socket by PMI_FD
 * as MPI's libpmi does. */
static pid_t fork_client(struct pmi_server *s, int local, const struct step *steps, const char *who)
{
	char **env = NULL;
	size_t envc = 0;
	int keep = -1;
	struct herd_error err = { "" };
	if (pmi_task_env(s, local, &env, &envc, &keep, &err) < 0)
		fail_msg("pmi_task_env: %s", err.text);
	int fd = env_int(env, "PMI_FD");
	assert_int_equal(fd, keep);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close_others(fd);
		client_run(fd, steps, who);
	}
	pmi_task_forked(s, local, pid);
	strv_free(env);
	return pid;
}

/* ---- one node: the protocols ---- */

struct fence_log {
	int calls, last_seq;
	json_t *last;
	struct pmi_server *server;
	json_t *others;       /* what "the other nodes" put */
};

/* A single node's fence: srun's merge is this node's keys and the others'. */
static void fence_self(void *arg, int seq, json_t *kvs)
{
	struct fence_log *f = arg;
	f->calls++;
	f->last_seq = seq;
	json_decref(f->last);
	f->last = json_deep_copy(kvs);
	if (f->others)
		json_object_update(kvs, f->others);
	pmi_fence_done(f->server, seq, kvs);
}

struct abort_log {
	int calls, rank, code;
	char message[128];
};
static struct abort_log aborts;

/* The kids of the run in progress: herdstepd kills the step's tasks when
 * one aborts, and so does the test. */
static struct kids *aborting_kids;

static void on_abort(void *arg, int rank, int code, const char *message)
{
	for (int i = 0; aborting_kids && i < aborting_kids->n; i++)
		if (aborting_kids->pid[i] > 0)
			kill(aborting_kids->pid[i], SIGKILL);
	aborts.calls++;
	aborts.rank = rank;
	aborts.code = code;
	snprintf(aborts.message, sizeof(aborts.message), "%s", message);
}

static const int ranks01[] = { 0, 1 };
static const int ranks2[] = { 2 };

static const struct step pmi1_script[] = {
	{ 1, "cmd=init pmi_version=1 pmi_subversion=1\n",
	  "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n" },
	{ 1, "cmd=get_maxes\n", "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024 rc=0\n" },
	{ 1, "cmd=get_appnum\n", "cmd=appnum appnum=0 rc=0\n" },
	{ 1, "cmd=get_my_kvsname\n", "cmd=my_kvsname kvsname=7.3 rc=0\n" },
	{ 1, "cmd=get_universe_size\n", "cmd=universe_size size=3 rc=0\n" },
	{ 1, "cmd=get kvsname=7.3 key=PMI_process_mapping\n",
	  "cmd=get_result rc=0 value=(vector,(0,1,2),(1,1,1))\n" },
	{ 1, "cmd=put kvsname=7.3 key=bc-0 value=tcp://h:1=x\n", "cmd=put_result rc=0\n" },
	{ 1, "cmd=get kvsname=7.3 key=bc-1\n", "cmd=get_result rc=-1 msg=key_bc-1_not_found\n" },
	/* A command in pieces: the server waits for the end of the line. */
	{ 1, "cmd=get_app", NULL },
	{ 1, "num\n", "cmd=appnum appnum=0 rc=0\n" },
	{ 1, "cmd=barrier_in\n", "cmd=barrier_out rc=0\n" },
	{ 1, "cmd=get kvsname=7.3 key=bc-1\n", "cmd=get_result rc=0 value=from-node-1\n" },
	{ 1, "cmd=get kvsname=7.3 key=bc-0\n", "cmd=get_result rc=0 value=tcp://h:1=x\n" },
	{ 1, "cmd=publish_name service=s port=p\n",
	  "cmd=publish_result rc=-1 msg=publish_name_is_not_supported\n" },
	{ 1, "cmd=lookup_name service=s\n",
	  "cmd=lookup_result rc=-1 msg=lookup_name_is_not_supported\n" },
	{ 1, "cmd=frobnicate a=b\n", "cmd=frobnicate_result rc=-1 msg=unknown_command\n" },
	{ 1, "mcmd=spawn\nnprocs=2\nexecname=/bin/true\nendcmd\n",
	  "cmd=spawn_result rc=-1 msg=spawn_is_not_supported\n" },
	{ 1, "cmd=put kvsname=7.3 key=second value=2\n", "cmd=put_result rc=0\n" },
	{ 1, "cmd=barrier_in\n", "cmd=barrier_out rc=0\n" },
	{ 1, "cmd=finalize\n", "cmd=finalize_ack rc=0\n" },
	{ 0 },
};

/* MPICH's PMI-2 client: one PMI-1 line asking for version 2, then frames. */
static const struct step pmi2_script[] = {
	{ 1, "cmd=init pmi_version=2 pmi_subversion=0\n",
	  "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n" },
	{ 2, "cmd=fullinit;pmirank=1;threaded=FALSE;",
	  "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;size=3;appnum=0;"
	  "debugged=FALSE;pmiverbose=FALSE;" },
	{ 2, "cmd=job-getid;", "cmd=job-getid-response;jobid=7.3;rc=0;" },
	{ 2, "cmd=info-getjobattr;key=PMI_process_mapping;",
	  "cmd=info-getjobattr-response;found=TRUE;value=(vector,(0,1,2),(1,1,1));rc=0;" },
	{ 2, "cmd=info-getjobattr;key=universeSize;",
	  "cmd=info-getjobattr-response;found=TRUE;value=3;rc=0;" },
	{ 2, "cmd=kvs-put;key=semi;value=a;;b;", "cmd=kvs-put-response;rc=0;" },
	{ 2, "cmd=kvs-get;jobid=7.3;srcid=-1;key=bc-1;",
	  "cmd=kvs-get-response;found=FALSE;rc=0;" },
	{ 2, "cmd=kvs-fence;", "cmd=kvs-fence-response;rc=0;" },
	{ 2, "cmd=kvs-get;jobid=7.3;srcid=-1;key=semi;",
	  "cmd=kvs-get-response;found=TRUE;value=a;;b;rc=0;" },
	{ 2, "cmd=kvs-get;jobid=7.3;srcid=-1;key=bc-1;",
	  "cmd=kvs-get-response;found=TRUE;value=from-node-1;rc=0;" },
	{ 2, "cmd=info-putnodeattr;key=shm;value=seg1;", "cmd=info-putnodeattr-response;rc=0;" },
	{ 2, "cmd=info-getnodeattr;key=shm;wait=FALSE;",
	  "cmd=info-getnodeattr-response;found=TRUE;value=seg1;rc=0;" },
	{ 2, "cmd=info-getnodeattr;key=other;wait=FALSE;",
	  "cmd=info-getnodeattr-response;found=FALSE;rc=0;" },
	{ 2, "cmd=name-publish;name=x;port=y;",
	  "cmd=name-publish-response;rc=-1;errmsg=unsupported command;" },
	{ 2, "cmd=kvs-fence;", "cmd=kvs-fence-response;rc=0;" },
	{ 2, "cmd=finalize;", "cmd=finalize-response;rc=0;" },
	{ 0 },
};

static struct pmi_server *one_node(uv_loop_t *loop, struct fence_log *f, const int *ranks,
				   int nranks, int size, const char *tpn)
{
	struct pmi_step_info info = {
		.job_id = 7, .step_id = 3, .size = size, .num_nodes = 2, .node_id = 0,
		.ranks = ranks, .nranks = nranks, .node_names = "n[1-2]",
		.tasks_per_node = tpn, .distribution = "block",
	};
	struct herd_error err = { "" };
	struct pmi_server *s = pmi_create(loop, PMI_PMI2, &info, fence_self, on_abort, f, &err);
	if (!s)
		fail_msg("pmi_create: %s", err.text);
	f->server = s;
	return s;
}

/* One PMI-1 task and one PMI-2 task on the same node: each fence waits for
 * both, whichever protocol they speak, and delivers the other node's keys. */
static void test_protocols(void **state)
{
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct fence_log f = { .others = json_pack("{s:s}", "bc-1", "from-node-1") };
	struct pmi_server *s = one_node(&loop, &f, ranks01, 2, 3, "2,1");
	struct kids k = { .n = 2, .running = 2 };
	k.pid[0] = fork_client(s, 0, pmi1_script, "pmi1 client");
	k.pid[1] = fork_client(s, 1, pmi2_script, "pmi2 client");
	kids_wait(&loop, &k, 20);
	assert_int_equal(k.status[0], 0);
	assert_int_equal(k.status[1], 0);
	assert_int_equal(f.calls, 2);
	assert_int_equal(f.last_seq, 1);
	/* The second fence carried only what was put after the first. */
	json_t *want = json_pack("{s:s}", "second", "2");
	assert_true(json_equal(f.last, want));
	json_decref(want);
	pmi_destroy(s);
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(uv_loop_close(&loop), 0);
	json_decref(f.last);
	json_decref(f.others);
}

/* A PMI-2 client that starts with a frame (no PMI-1 init line), and one
 * that aborts.  The layout given ("1(x2)") puts task 1 on the other node
 * while it is here: no PMI_process_mapping rather than a wrong one. */
static void test_pmi2_direct_and_abort(void **state)
{
	static const struct step direct[] = {
		{ 2, "cmd=fullinit;pmirank=0;threaded=FALSE;",
		  "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=0;size=2;appnum=0;"
		  "debugged=FALSE;pmiverbose=FALSE;" },
		{ 2, "cmd=info-getjobattr;key=PMI_process_mapping;",
		  "cmd=info-getjobattr-response;found=FALSE;rc=0;" },
		{ 2, "cmd=kvs-fence;", "cmd=kvs-fence-response;rc=0;" },
		{ 2, "cmd=finalize;", "cmd=finalize-response;rc=0;" },
		{ 0 },
	};
	static const struct step aborting[] = {
		{ 1, "cmd=init pmi_version=1 pmi_subversion=1\n",
		  "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n" },
		{ 1, "cmd=barrier_in\n", "cmd=barrier_out rc=0\n" },
		{ 1, "cmd=abort exitcode=13\n", NULL },
		{ 0 },
	};
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct fence_log f = { 0 };
	struct pmi_server *s = one_node(&loop, &f, ranks01, 2, 2, "1(x2)");
	memset(&aborts, 0, sizeof(aborts));
	struct kids k = { .n = 2, .running = 2 };
	k.pid[0] = fork_client(s, 0, direct, "direct pmi2");
	k.pid[1] = fork_client(s, 1, aborting, "aborting pmi1");
	kids_wait(&loop, &k, 20);
	assert_int_equal(k.status[0], 0);
	assert_int_equal(k.status[1], 0);
	assert_int_equal(f.calls, 1);
	assert_int_equal(aborts.calls, 1);
	assert_int_equal(aborts.rank, 1);
	assert_int_equal(aborts.code, 13);
	pmi_destroy(s);
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(uv_loop_close(&loop), 0);
	json_decref(f.last);
}

/* Garbage closes that task's connection, logged; the daemon and the other
 * tasks go on, and a fence no longer waits for the closed one. */
static void test_garbage(void **state)
{
	static char long_line[70010];
	memset(long_line, 'x', sizeof(long_line) - 1);
	const char *garbage[] = {
		"\x01\x02\x03 nonsense\n",
		"cmd\n",
		"=value\n",
		"99999 cmd=kvs-fence;",
		"5     x=y;z",
		"11    cmd=kvs-put",
		long_line,
	};
	int n = sizeof(garbage) / sizeof(garbage[0]);
	int ranks[8];
	for (int i = 0; i <= n; i++)
		ranks[i] = i;
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct fence_log f = { 0 };
	char tpn[16];
	snprintf(tpn, sizeof(tpn), "%d,0", n + 1);
	struct pmi_server *s = one_node(&loop, &f, ranks, n + 1, n + 1, tpn);
	struct kids k = { .n = n + 1, .running = n + 1 };
	for (int i = 0; i < n; i++) {
		char **env = NULL;
		size_t envc = 0;
		int keep;
		struct herd_error err;
		assert_int_equal(pmi_task_env(s, i, &env, &envc, &keep, &err), 0);
		pid_t pid = fork();
		if (pid == 0) {
			close_others(keep);
			/* The server may close before it read everything. */
			ssize_t len = strlen(garbage[i]);
			if (write(keep, garbage[i], len) < 0 && errno != EPIPE && errno != ECONNRESET)
				_exit(90);
			char c;
			/* The server must close the connection: EOF, not an answer. */
			_exit(read(keep, &c, 1) <= 0 ? 0 : 1);
		}
		k.pid[i] = pid;
		pmi_task_forked(s, i, pid);
		strv_free(env);
	}
	static const struct step good[] = {
		{ 1, "cmd=init pmi_version=1 pmi_subversion=1\n",
		  "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n" },
		{ 1, "cmd=barrier_in\n", "cmd=barrier_out rc=0\n" },
		{ 1, "cmd=finalize\n", "cmd=finalize_ack rc=0\n" },
		{ 0 },
	};
	/* Let the garbage arrive first, then the well-behaved task. */
	usleep(100000);
	uv_run(&loop, UV_RUN_NOWAIT);
	k.pid[n] = fork_client(s, n, good, "good client");
	kids_wait(&loop, &k, 20);
	for (int i = 0; i <= n; i++)
		if (k.status[i] != 0)
			fail_msg("client %d exited with status %d", i, k.status[i]);
	assert_int_equal(f.calls, 1);
	pmi_destroy(s);
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(uv_loop_close(&loop), 0);
	json_decref(f.last);
}

/* ---- two nodes in one process: srun's merge done by the test ---- */

struct two_nodes {
	struct pmi_server *node[2];
	json_t *got[2];      /* each node's contribution to the fence open */
	int seq[2], fences;
};

struct node_arg {
	struct two_nodes *t;
	int node;
};

/* srun's part: when both nodes entered fence seq, send each the union. */
static void fence_merge(void *arg, int seq, json_t *kvs)
{
	struct node_arg *na = arg;
	struct two_nodes *t = na->t;
	assert_null(t->got[na->node]);
	t->got[na->node] = kvs;
	t->seq[na->node] = seq;
	if (!t->got[0] || !t->got[1])
		return;
	assert_int_equal(t->seq[0], t->seq[1]);
	json_t *merged = json_object();
	json_object_update(merged, t->got[0]);
	json_object_update(merged, t->got[1]);
	json_decref(t->got[0]);
	json_decref(t->got[1]);
	t->got[0] = t->got[1] = NULL;
	t->fences++;
	pmi_fence_done(t->node[0], seq, json_deep_copy(merged));
	pmi_fence_done(t->node[1], seq, merged);
}

static void two_nodes_create(uv_loop_t *loop, struct two_nodes *t, struct node_arg na[2],
			     enum pmi_kind kind, const int *ranks0, int n0, const int *ranks1,
			     int n1, const char *tpn)
{
	for (int n = 0; n < 2; n++) {
		struct pmi_step_info info = {
			.job_id = 7, .step_id = 0, .size = n0 + n1, .num_nodes = 2, .node_id = n,
			.ranks = n ? ranks1 : ranks0, .nranks = n ? n1 : n0,
			.node_names = "n[1-2]", .tasks_per_node = tpn, .distribution = "block",
		};
		na[n] = (struct node_arg){ t, n };
		struct herd_error err = { "" };
		t->node[n] = pmi_create(loop, kind, &info, fence_merge, on_abort, &na[n], &err);
		if (!t->node[n])
			fail_msg("pmi_create node %d: %s", n, err.text);
	}
}

static void test_fence_two_nodes(void **state)
{
	/* Ranks 0, 1 on node 0 (PMI-1), rank 2 on node 1 (PMI-2); two fences. */
	static const struct step r0[] = {
		{ 1, "cmd=init pmi_version=1 pmi_subversion=1\n",
		  "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n" },
		{ 1, "cmd=get kvsname=7.0 key=PMI_process_mapping\n",
		  "cmd=get_result rc=0 value=(vector,(0,1,2),(1,1,1))\n" },
		{ 1, "cmd=put kvsname=7.0 key=k0 value=v0\n", "cmd=put_result rc=0\n" },
		{ 1, "cmd=barrier_in\n", "cmd=barrier_out rc=0\n" },
		{ 1, "cmd=get kvsname=7.0 key=k1\n", "cmd=get_result rc=0 value=v1\n" },
		{ 1, "cmd=get kvsname=7.0 key=k2\n", "cmd=get_result rc=0 value=v2\n" },
		{ 1, "cmd=get kvsname=7.0 key=late2\n", "cmd=get_result rc=-1 msg=key_late2_not_found\n" },
		{ 1, "cmd=barrier_in\n", "cmd=barrier_out rc=0\n" },
		{ 1, "cmd=get kvsname=7.0 key=late2\n", "cmd=get_result rc=0 value=L\n" },
		{ 1, "cmd=finalize\n", "cmd=finalize_ack rc=0\n" },
		{ 0 },
	};
	static const struct step r1[] = {
		{ 1, "cmd=init pmi_version=1 pmi_subversion=1\n",
		  "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n" },
		{ 1, "cmd=put kvsname=7.0 key=k1 value=v1\n", "cmd=put_result rc=0\n" },
		{ 1, "cmd=barrier_in\n", "cmd=barrier_out rc=0\n" },
		{ 1, "cmd=get kvsname=7.0 key=k2\n", "cmd=get_result rc=0 value=v2\n" },
		{ 1, "cmd=barrier_in\n", "cmd=barrier_out rc=0\n" },
		{ 1, "cmd=finalize\n", "cmd=finalize_ack rc=0\n" },
		{ 0 },
	};
	static const struct step r2[] = {
		{ 1, "cmd=init pmi_version=2 pmi_subversion=0\n",
		  "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n" },
		{ 2, "cmd=fullinit;pmirank=2;threaded=FALSE;",
		  "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=2;size=3;appnum=0;"
		  "debugged=FALSE;pmiverbose=FALSE;" },
		{ 2, "cmd=kvs-put;key=k2;value=v2;", "cmd=kvs-put-response;rc=0;" },
		{ 2, "cmd=kvs-fence;", "cmd=kvs-fence-response;rc=0;" },
		{ 2, "cmd=kvs-get;jobid=7.0;srcid=-1;key=k0;",
		  "cmd=kvs-get-response;found=TRUE;value=v0;rc=0;" },
		{ 2, "cmd=kvs-put;key=late2;value=L;", "cmd=kvs-put-response;rc=0;" },
		{ 2, "cmd=kvs-fence;", "cmd=kvs-fence-response;rc=0;" },
		{ 2, "cmd=finalize;", "cmd=finalize-response;rc=0;" },
		{ 0 },
	};
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct two_nodes t = { 0 };
	struct node_arg na[2];
	two_nodes_create(&loop, &t, na, PMI_PMI2, ranks01, 2, ranks2, 1, "2,1");
	struct kids k = { .n = 3, .running = 3 };
	k.pid[0] = fork_client(t.node[0], 0, r0, "rank 0");
	k.pid[1] = fork_client(t.node[0], 1, r1, "rank 1");
	k.pid[2] = fork_client(t.node[1], 0, r2, "rank 2");
	kids_wait(&loop, &k, 20);
	for (int i = 0; i < 3; i++)
		if (k.status[i] != 0)
			fail_msg("rank %d exited with status %d", i, k.status[i]);
	assert_int_equal(t.fences, 2);
	pmi_destroy(t.node[0]);
	pmi_destroy(t.node[1]);
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

/* ---- real MPI ---- */

static char *mpi_prog(const char *mpi, const char *name)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return NULL;
	self[n] = 0;
	*strrchr(self, '/') = 0;
	char *path = xasprintf("%s/mpi/%s/%s", self, mpi, name);
	if (access(path, X_OK) < 0) {
		free(path);
		return NULL;
	}
	return path;
}

/* The environment every MPI rank gets beside its PMI's. */
static const char *const mpi_env[] = {
	/* Open MPI refuses root without these (the tests run as root in CI). */
	"OMPI_ALLOW_RUN_AS_ROOT=1",
	"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
	/* One host: shared memory and self; no InfiniBand or UCX probing, and
	 * no CMA (ptrace is often denied in containers). */
	"OMPI_MCA_btl=self,vader,tcp",
	"OMPI_MCA_pml=ob1",
	"OMPI_MCA_btl_vader_single_copy_mechanism=none",
	/* What herdstepd's task environment has too: Open MPI 4.1 takes a
	 * direct launch (ess pmi, over PMIx) only from its Slurm
	 * personality, which looks for these; without them a rank thinks it
	 * is a singleton. */
	"SLURM_JOBID=9", "SLURM_JOB_ID=9", "SLURM_STEP_ID=1", "SLURM_STEPID=1",
	"SLURM_NODELIST=localhost",
	NULL,
};

/* Fork rank `local` of s running prog, its stdout and stderr to out. */
/* Ranks run as nobody (65534) rather than as the test's user. */
static bool ranks_as_nobody;

static pid_t fork_rank(struct pmi_server *s, int local, const char *prog, int out)
{
	char **env = NULL;
	size_t envc = 0;
	int keep = -1;
	struct herd_error err = { "" };
	for (size_t i = 0; mpi_env[i]; i++)
		pmi_strv_push(&env, &envc, xstrdup(mpi_env[i]));
	for (size_t i = 0; environ[i]; i++)
		if (strncmp(environ[i], "PMI", 3))
			pmi_strv_push(&env, &envc, xstrdup(environ[i]));
	if (pmi_task_env(s, local, &env, &envc, &keep, &err) < 0)
		fail_msg("pmi_task_env: %s", err.text);
	pid_t pid = fork();
	if (pid == 0) {
		if (keep >= 0)
			fcntl(keep, F_SETFD, 0);
		dup2(out, 1);
		dup2(out, 2);
		if (ranks_as_nobody && (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0))
			_exit(126);
		char *argv[] = { (char *)prog, NULL };
		execve(prog, argv, env);
		_exit(127);
	}
	pmi_task_forked(s, local, pid);
	strv_free(env);
	return pid;
}

static char *slurp(int fd)
{
	struct strbuf sb = { 0 };
	char buf[4096];
	ssize_t n;
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(&sb, buf, n);
	strbuf_adds(&sb, "");
	return sb.s;
}

static int temp_file(void)
{
	char path[] = "/tmp/herd-pmi-test.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	if (getenv("PMI_TEST_KEEP"))   /* to read a hanging run's output */
		fprintf(stderr, "output in %s\n", path);
	else
		unlink(path);
	return fd;
}

/* Every rank printed "<word> rank R size N" (and "ok" for allreduce). */
static void check_output(const char *out, const char *word, int size, bool ok)
{
	for (int r = 0; r < size; r++) {
		char *want = xasprintf("%s rank %d size %d %s", word, r, size, ok ? "sum " : "host ");
		if (!strstr(out, want))
			fail_msg("no '%s' in the output:\n%s", want, out);
		free(want);
	}
	if (ok && strstr(out, "WRONG"))
		fail_msg("a wrong sum:\n%s", out);
}

/* MPICH over PMI-1: two nodes of two ranks each, their fences merged. */
static void run_mpich(const char *name, const char *word, bool ok)
{
	char *prog = mpi_prog("mpich", name);
	if (!prog) {
		printf("skipped: mpicc.mpich is not installed, no MPICH %s was built\n", name);
		skip();
	}
	static const int r0[] = { 0, 1 }, r1[] = { 2, 3 };
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct two_nodes t = { 0 };
	struct node_arg na[2];
	two_nodes_create(&loop, &t, na, PMI_PMI1, r0, 2, r1, 2, "2(x2)");
	int out = temp_file();
	struct kids k = { .n = 4, .running = 4 };
	for (int i = 0; i < 4; i++)
		k.pid[i] = fork_rank(t.node[i / 2], i % 2, prog, out);
	kids_wait(&loop, &k, 60);
	char *text = slurp(out);
	for (int i = 0; i < 4; i++)
		if (!WIFEXITED(k.status[i]) || WEXITSTATUS(k.status[i]))
			fail_msg("rank %d: wait status %d; output:\n%s", i, k.status[i], text);
	check_output(text, word, 4, ok);
	assert_true(t.fences >= 1);
	free(text);
	close(out);
	pmi_destroy(t.node[0]);
	pmi_destroy(t.node[1]);
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(uv_loop_close(&loop), 0);
	free(prog);
}

/* MPI_Abort in rank 1 reaches on_abort through PMI-1 with its code. */
static void test_mpich_abort(void **state)
{
	char *prog = mpi_prog("mpich", "abort");
	if (!prog) {
		printf("skipped: mpicc.mpich is not installed, no MPICH abort was built\n");
		skip();
	}
	static const int r0[] = { 0, 1 }, r1[] = { 2, 3 };
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct two_nodes t = { 0 };
	struct node_arg na[2];
	two_nodes_create(&loop, &t, na, PMI_PMI1, r0, 2, r1, 2, "2(x2)");
	int out = temp_file();
	struct kids k = { .n = 4, .running = 4 };
	memset(&aborts, 0, sizeof(aborts));
	aborting_kids = &k;
	for (int i = 0; i < 4; i++)
		k.pid[i] = fork_rank(t.node[i / 2], i % 2, prog, out);
	kids_wait(&loop, &k, 60);
	aborting_kids = NULL;
	char *text = slurp(out);
	if (aborts.calls < 1)
		fail_msg("no abort reached the server; output:\n%s", text);
	assert_int_equal(aborts.rank, 1);
	assert_int_equal(aborts.code, 7);
	free(text);
	close(out);
	pmi_destroy(t.node[0]);
	pmi_destroy(t.node[1]);
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(uv_loop_close(&loop), 0);
	free(prog);
}

static void test_mpich_hello(void **state)
{
	run_mpich("hello", "hello", false);
}

static void test_mpich_allreduce(void **state)
{
	run_mpich("allreduce", "allreduce", true);
}

/* Open MPI over PMIx: libpmix's server is one per process, so each run is
 * in a child process of its own; 2 ranks on one node. */
static void run_openmpi(const char *name, const char *word, bool ok, bool expect_abort)
{
	char *prog = mpi_prog("openmpi", name);
	if (!prog) {
		printf("skipped: mpicc.openmpi is not installed, no Open MPI %s was built\n", name);
		skip();
	}
	int out = temp_file();
	pid_t server = fork();
	assert_true(server >= 0);
	if (server == 0) {
		char host[256] = "localhost";
		gethostname(host, sizeof(host));
		static const int ranks[] = { 0, 1 };
		struct pmi_step_info info = {
			.job_id = 9, .step_id = 1, .size = 2, .num_nodes = 1, .node_id = 0,
			.ranks = ranks, .nranks = 2, .node_names = host, .tasks_per_node = "2",
			.distribution = "block", .uid = getuid(), .gid = getgid(),
		};
		uv_loop_t loop;
		uv_loop_init(&loop);
		struct fence_log f = { 0 };
		struct herd_error err = { "" };
		struct pmi_server *s = pmi_create(&loop, PMI_PMIX, &info, fence_self, on_abort, &f, &err);
		if (!s) {
			dprintf(out, "pmi_create: %s\n", err.text);
			_exit(2);
		}
		f.server = s;
		struct kids k = { .n = 2, .running = 2 };
		memset(&aborts, 0, sizeof(aborts));
		aborting_kids = &k;
		for (int i = 0; i < 2; i++)
			k.pid[i] = fork_rank(s, i, prog, out);
		kids_wait(&loop, &k, 60);
		int rc = 0;
		if (expect_abort && (aborts.calls != 1 || aborts.rank != 1 || aborts.code != 7)) {
			dprintf(out, "aborts: %d calls, rank %d, code %d\n", aborts.calls, aborts.rank,
				aborts.code);
			rc = 1;
		}
		for (int i = 0; i < 2 && !expect_abort; i++)
			if (!WIFEXITED(k.status[i]) || WEXITSTATUS(k.status[i])) {
				dprintf(out, "rank %d: wait status %d\n", i, k.status[i]);
				rc = 1;
			}
		pmi_destroy(s);
		uv_run(&loop, UV_RUN_NOWAIT);
		_exit(rc);
	}
	int st;
	assert_int_equal(waitpid(server, &st, 0), server);
	char *text = slurp(out);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("the PMIx server process: wait status %d; output:\n%s", st, text);
	if (!expect_abort)
		check_output(text, word, 2, ok);
	free(text);
	close(out);
	free(prog);
}

/* Two nodes under PMIx, each a process of its own with its server and one
 * rank, and the test in the middle as srun: each node's fence goes up a
 * pipe as FENCE_IN's JSON, the union comes back down as FENCE_OUT's.  The
 * ranks find each other only through the blobs that crossed. */
struct pipe_node {
	struct pmi_server *s;
	int up, down;
	uv_poll_t poll;
	char buf[1 << 20];
	size_t len;
};

static void node_fence_up(void *arg, int seq, json_t *kvs)
{
	struct pipe_node *pn = arg;
	json_t *msg = json_pack("{s:i,s:o}", "seq", seq, "kvs", kvs);
	char *text = json_dumps(msg, JSON_COMPACT);
	dprintf(pn->up, "%s\n", text);
	free(text);
	json_decref(msg);
}

static void node_fence_down(uv_poll_t *h, int status, int events)
{
	struct pipe_node *pn = h->data;
	ssize_t n = read(pn->down, pn->buf + pn->len, sizeof(pn->buf) - 1 - pn->len);
	if (n <= 0) {
		uv_poll_stop(h);
		return;
	}
	pn->len += n;
	char *nl;
	while ((nl = memchr(pn->buf, '\n', pn->len))) {
		*nl = 0;
		json_t *msg = json_loads(pn->buf, 0, NULL);
		if (msg)
			pmi_fence_done(pn->s, json_integer_value(json_object_get(msg, "seq")),
				       json_incref(json_object_get(msg, "kvs")));
		json_decref(msg);
		pn->len -= nl + 1 - pn->buf;
		memmove(pn->buf, nl + 1, pn->len);
	}
}

static void pipe_node_run(int node, int up, int down, const char *prog, int out)
{
	static const int ranks[2][1] = { { 0 }, { 1 } };
	struct pmi_step_info info = {
		.job_id = 9, .step_id = 2, .size = 2, .num_nodes = 2, .node_id = node,
		.ranks = ranks[node], .nranks = 1, .node_names = "herdn[1-2]",
		.tasks_per_node = "1(x2)", .distribution = "block", .uid = getuid(), .gid = getgid(),
	};
	static struct pipe_node pn;
	pn.up = up;
	pn.down = down;
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct herd_error err = { "" };
	pn.s = pmi_create(&loop, PMI_PMIX, &info, node_fence_up, on_abort, &pn, &err);
	if (!pn.s) {
		dprintf(out, "node %d: pmi_create: %s\n", node, err.text);
		_exit(2);
	}
	uv_poll_init(&loop, &pn.poll, down);
	pn.poll.data = &pn;
	uv_poll_start(&pn.poll, UV_READABLE, node_fence_down);
	struct kids k = { .n = 1, .running = 1 };
	k.pid[0] = fork_rank(pn.s, 0, prog, out);
	kids_wait(&loop, &k, 60);
	int rc = 0;
	if (!WIFEXITED(k.status[0]) || WEXITSTATUS(k.status[0])) {
		dprintf(out, "node %d: rank %d: wait status %d\n", node, node, k.status[0]);
		rc = 1;
	}
	uv_close((uv_handle_t *)&pn.poll, NULL);
	pmi_destroy(pn.s);
	uv_run(&loop, UV_RUN_NOWAIT);
	_exit(rc);
}

static void test_openmpi_two_nodes(void **state)
{
	char *prog = mpi_prog("openmpi", "allreduce");
	if (!prog) {
		printf("skipped: mpicc.openmpi is not installed, no Open MPI allreduce was built\n");
		skip();
	}
	int out = temp_file();
	int up[2][2], down[2][2];
	pid_t node[2];
	for (int n = 0; n < 2; n++) {
		assert_int_equal(pipe(up[n]), 0);
		assert_int_equal(pipe(down[n]), 0);
	}
	for (int n = 0; n < 2; n++) {
		node[n] = fork();
		assert_true(node[n] >= 0);
		if (node[n] == 0) {
			for (int m = 0; m < 2; m++) {
				close(up[m][0]);
				close(down[m][1]);
				if (m != n) {
					close(up[m][1]);
					close(down[m][0]);
				}
			}
			pipe_node_run(n, up[n][1], down[n][0], prog, out);
		}
		close(up[n][1]);
		close(down[n][0]);
	}
	/* srun: read FENCE_IN from both, send the union to both. */
	FILE *in[2] = { fdopen(up[0][0], "r"), fdopen(up[1][0], "r") };
	json_t *got[2] = { NULL, NULL };
	int fences = 0;
	static char line[1 << 20];
	for (;;) {
		int n = !got[0] ? 0 : 1;
		if (!fgets(line, sizeof(line), in[n]))
			break;
		got[n] = json_loads(line, 0, NULL);
		assert_non_null(got[n]);
		if (!got[0] || !got[1])
			continue;
		assert_true(json_equal(json_object_get(got[0], "seq"), json_object_get(got[1], "seq")));
		json_t *kvs = json_object();
		json_object_update(kvs, json_object_get(got[0], "kvs"));
		json_object_update(kvs, json_object_get(got[1], "kvs"));
		/* Each node gave its blob under its own key. */
		assert_non_null(json_object_get(kvs, "pmix.blob.0"));
		assert_non_null(json_object_get(kvs, "pmix.blob.1"));
		json_t *msg = json_pack("{s:O,s:o}", "seq", json_object_get(got[0], "seq"), "kvs", kvs);
		char *text = json_dumps(msg, JSON_COMPACT);
		for (int m = 0; m < 2; m++)
			dprintf(down[m][1], "%s\n", text);
		free(text);
		json_decref(msg);
		json_decref(got[0]);
		json_decref(got[1]);
		got[0] = got[1] = NULL;
		fences++;
	}
	json_decref(got[0]);
	json_decref(got[1]);
	int st[2];
	for (int n = 0; n < 2; n++) {
		assert_int_equal(waitpid(node[n], &st[n], 0), node[n]);
		fclose(in[n]);
		close(down[n][1]);
	}
	char *text = slurp(out);
	for (int n = 0; n < 2; n++)
		if (!WIFEXITED(st[n]) || WEXITSTATUS(st[n]))
			fail_msg("node %d's process: wait status %d; output:\n%s", n, st[n], text);
	if (fences < 1)
		fail_msg("no fence crossed between the nodes; output:\n%s", text);
	check_output(text, "allreduce", 2, true);
	free(text);
	close(out);
	free(prog);
}

static void test_openmpi_hello(void **state)
{
	run_openmpi("hello", "hello", false, false);
}

static void test_openmpi_allreduce(void **state)
{
	run_openmpi("allreduce", "allreduce", true, false);
}

/* MPI_Abort in rank 1 reaches on_abort through PMIx_Abort. */
static void test_openmpi_abort(void **state)
{
	run_openmpi("abort", "abort", false, true);
}

/* Ranks of another user (nobody): once they are connected, libpmix's
 * thread works on files with that user's rights (the clean-ups the tasks
 * register run there), herdstepd's own thread still with root's. */
static int thread_fsuids(uid_t want_thread, char *why, size_t size)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int found = 0;
	pid_t self = (pid_t)syscall(SYS_gettid);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[300], line[256];
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		FILE *f = fopen(path, "r");
		unsigned r, eu, su, fs;
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "Uid: %u %u %u %u", &r, &eu, &su, &fs) == 4) {
				if (atoi(e->d_name) == self && fs != 0)
					snprintf(why, size, "the loop thread's fsuid is %u", fs);
				else if (fs == want_thread)
					found++;
			}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* prog copied where user 65534 can run it (a clone inside a 0700
 * directory, as root's home or mktemp -d, is out of its reach): a 0755
 * directory under /tmp; *dir gets it, for removal. */
static char *reachable_copy(const char *prog, char **dir)
{
	char tmpl[] = "/tmp/herd-pmi-test.XXXXXX";
	*dir = NULL;
	if (!mkdtemp(tmpl) || chmod(tmpl, 0755) < 0)
		return NULL;
	*dir = xstrdup(tmpl);
	char *path = xasprintf("%s/%s", tmpl, strrchr(prog, '/') + 1);
	int in = open(prog, O_RDONLY), outfd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0755);
	char buf[65536];
	ssize_t n;
	while (in >= 0 && outfd >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(outfd, buf, n) != n)
			break;
	if (in >= 0)
		close(in);
	if (outfd >= 0)
		close(outfd);
	return path;
}

static void test_openmpi_thread_files_as_user(void **state)
{
	char *prog = mpi_prog("openmpi", "hello");
	if (!prog) {
		printf("skipped: mpicc.openmpi is not installed, no Open MPI hello was built\n");
		skip();
	}
	if (geteuid() != 0) {
		printf("skipped: needs root (ranks of another user)\n");
		skip();
	}
	char *dir, *built = prog;
	prog = reachable_copy(built, &dir);
	free(built);
	assert_non_null(prog);
	int out = temp_file();
	pid_t server = fork();
	assert_true(server >= 0);
	if (server == 0) {
		char host[256] = "localhost";
		gethostname(host, sizeof(host));
		static const int ranks[] = { 0, 1 };
		struct pmi_step_info info = {
			.job_id = 9, .step_id = 3, .size = 2, .num_nodes = 1, .node_id = 0,
			.ranks = ranks, .nranks = 2, .node_names = host, .tasks_per_node = "2",
			.distribution = "block", .uid = 65534, .gid = 65534,
		};
		uv_loop_t loop;
		uv_loop_init(&loop);
		struct fence_log f = { 0 };
		struct herd_error err = { "" };
		struct pmi_server *s = pmi_create(&loop, PMI_PMIX, &info, fence_self, on_abort, &f, &err);
		if (!s) {
			dprintf(out, "pmi_create: %s\n", err.text);
			_exit(2);
		}
		f.server = s;
		struct kids k = { .n = 2, .running = 2 };
		aborting_kids = &k;
		ranks_as_nobody = true;
		for (int i = 0; i < 2; i++)
			k.pid[i] = fork_rank(s, i, prog, out);
		kids_wait(&loop, &k, 60);
		int rc = 0;
		for (int i = 0; i < 2; i++)
			if (!WIFEXITED(k.status[i]) || WEXITSTATUS(k.status[i])) {
				dprintf(out, "rank %d: wait status %d\n", i, k.status[i]);
				rc = 1;
			}
		char why[128] = "";
		int n = thread_fsuids(65534, why, sizeof(why));
		if (n < 1 || why[0]) {
			dprintf(out, "%d threads with fsuid 65534; %s\n", n, why);
			rc = 1;
		}
		pmi_destroy(s);
		uv_run(&loop, UV_RUN_NOWAIT);
		_exit(rc);
	}
	int st;
	assert_int_equal(waitpid(server, &st, 0), server);
	char *text = slurp(out);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("the PMIx server process: wait status %d; output:\n%s", st, text);
	check_output(text, "hello", 2, false);
	free(text);
	unlink(prog);
	rmdir(dir);
	free(dir);
	free(prog);
}

/* ---- bounds: what the tasks (the user's) and srun (the user's) may make
 * root's herdstepd hold ---- */

#define PUTTER_PUTS 12000

/* A task that puts 1000-byte values under new keys without a fence, far
 * past what one fence may carry: the first puts pass, then each is refused
 * with a sentence, the connection stays; a fence then passes and empties
 * the node's set, so a put passes again.  Exit 0 if all that held. */
static void putter_run(int fd, int proto)
{
	char value[1001], *msg, *got;
	int ok = 0, refused = 0;
	memset(value, 'v', 1000);
	value[1000] = 0;
	if (proto == 1) {
		msg = "cmd=init pmi_version=1 pmi_subversion=1\n";
		if (write(fd, msg, strlen(msg)) < 0 || !read_answer(fd, 1))
			_exit(2);
	}
	for (int i = 0; i <= PUTTER_PUTS; i++) {
		char *put = i == PUTTER_PUTS ? xstrdup(proto == 1 ? "cmd=barrier_in\n" : "cmd=kvs-fence;")
			    : proto == 1 ? xasprintf("cmd=put kvsname=7.3 key=p%d value=%s\n", i, value)
					 : xasprintf("cmd=kvs-put;key=p%d;value=%s;", i, value);
		msg = proto == 1 ? xstrdup(put) : xasprintf("%-6zu%s", strlen(put), put);
		if (write(fd, msg, strlen(msg)) != (ssize_t)strlen(msg))
			_exit(2);
		free(msg);
		free(put);
		if (!(got = read_answer(fd, proto)))
			_exit(3);
		if (i == PUTTER_PUTS) {
			if (!strstr(got, "rc=0"))
				_exit(4);   /* the fence failed */
		} else if (strstr(got, "rc=0")) {
			if (refused)
				_exit(5);   /* a put passed after a refusal */
			ok++;
		} else if (strstr(got, proto == 1 ? "rc=-1 msg=over_1023_KiB_of_puts_before_a_fence"
						  : "rc=-1;errmsg=over 1023 KiB of puts before a fence;")) {
			refused++;
		} else {
			fprintf(stderr, "put %d: %s\n", i, got);
			_exit(6);
		}
	}
	if (ok < 100 || refused < PUTTER_PUTS / 2)
		_exit(7);
	msg = proto == 1 ? xstrdup("cmd=put kvsname=7.3 key=after value=1\n")
			 : xasprintf("%-6zu%s", strlen("cmd=kvs-put;key=after;value=1;"),
				     "cmd=kvs-put;key=after;value=1;");
	if (write(fd, msg, strlen(msg)) < 0 || !(got = read_answer(fd, proto)) || !strstr(got, "rc=0"))
		_exit(8);
	_exit(0);
}

static void test_put_cap(void **state)
{
	for (int proto = 1; proto <= 2; proto++) {
		uv_loop_t loop;
		uv_loop_init(&loop);
		struct fence_log f = { 0 };
		struct pmi_server *s = one_node(&loop, &f, ranks01, 1, 2, "1,1");
		struct mallinfo2 before = mallinfo2();
		char **env = NULL;
		size_t envc = 0;
		int keep;
		struct herd_error err;
		assert_int_equal(pmi_task_env(s, 0, &env, &envc, &keep, &err), 0);
		struct kids k = { .n = 1, .running = 1 };
		k.pid[0] = fork();
		if (k.pid[0] == 0) {
			close_others(keep);
			putter_run(keep, proto);
		}
		pmi_task_forked(s, 0, k.pid[0]);
		strv_free(env);
		kids_wait(&loop, &k, 120);
		if (k.status[0] != 0)
			fail_msg("PMI-%d putter: wait status %d", proto, k.status[0]);
		/* 12 MB were put; what is held is one fence's worth (its merge,
		 * and the test's copy of it), about 1 MiB each. */
		struct mallinfo2 after = mallinfo2();
		size_t grown = after.uordblks > before.uordblks ? after.uordblks - before.uordblks : 0;
		if (grown > 6u << 20)
			fail_msg("PMI-%d: the server grew by %zu bytes", proto, grown);
		assert_true(s->held.bytes <= 3 * PMI_FENCE_MAX_BYTES);
		assert_int_equal(f.calls, 1);
		pmi_destroy(s);
		uv_run(&loop, UV_RUN_NOWAIT);
		assert_int_equal(uv_loop_close(&loop), 0);
		json_decref(f.last);
	}
}

/* A hostile srun: each fence's merge brings many new keys. */
struct flood {
	struct pmi_server *server;
	int fences, keys;
	size_t value_len;
};

static void flood_srun(void *arg, int seq, json_t *kvs)
{
	struct flood *fl = arg;
	char *value = xmalloc(fl->value_len + 1);
	memset(value, 'w', fl->value_len);
	value[fl->value_len] = 0;
	for (int i = 0; i < fl->keys; i++) {
		char key[32];
		snprintf(key, sizeof(key), "f%d-%d", seq, i);
		json_object_set_new(kvs, key, json_string(value));
	}
	free(value);
	fl->fences++;
	pmi_fence_done(fl->server, seq, kvs);
}

/* A task that fences until a fence fails (with a sentence), then finds its
 * own key still served.  Exit 0 if so, 6 if no fence failed. */

static void flooded_run(int fd, const char *want)
{
	char *got;
	const char *init = "cmd=fullinit;pmirank=0;threaded=FALSE;", *put = "cmd=kvs-put;key=own;value=1;",
		   *fence = "cmd=kvs-fence;", *get = "cmd=kvs-get;jobid=7.3;srcid=-1;key=own;";
	char *msg = xasprintf("%-6zu%s%-6zu%s", strlen(init), init, strlen(put), put);
	if (write(fd, msg, strlen(msg)) < 0 || !read_answer(fd, 2) || !(got = read_answer(fd, 2)) ||
	    !strstr(got, "rc=0"))
		_exit(2);
	free(msg);
	for (int i = 0; i < 8; i++) {
		msg = xasprintf("%-6zu%s", strlen(fence), fence);
		if (write(fd, msg, strlen(msg)) < 0 || !(got = read_answer(fd, 2)))
			_exit(3);
		free(msg);
		if (strstr(got, "rc=0"))
			continue;
		if (strcmp(got, want)) {
			fprintf(stderr, "fence %d: %s\n", i, got);
			_exit(4);
		}
		msg = xasprintf("%-6zu%s", strlen(get), get);
		if (write(fd, msg, strlen(msg)) < 0 || !(got = read_answer(fd, 2)) ||
		    strcmp(got, "cmd=kvs-get-response;found=TRUE;value=1;rc=0;"))
			_exit(5);
		_exit(0);
	}
	_exit(6);
}

static void test_merge_cap(void **state)
{
	static const struct {
		int keys;
		size_t value_len;
		const char *want;
	} cases[] = {
		{ 50000, 1, "cmd=kvs-fence-response;rc=-1;"
			    "errmsg=the step's key-value space is full (262144 keys);" },
		{ 20000, 1000, "cmd=kvs-fence-response;rc=-1;"
			       "errmsg=the step's key-value space is full (64 MiB);" },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uv_loop_t loop;
		uv_loop_init(&loop);
		struct flood fl = { .keys = cases[c].keys, .value_len = cases[c].value_len };
		struct pmi_step_info info = {
			.job_id = 7, .step_id = 3, .size = 1, .num_nodes = 1, .node_id = 0,
			.ranks = ranks01, .nranks = 1, .node_names = "n1", .tasks_per_node = "1",
			.distribution = "block",
		};
		struct herd_error err = { "" };
		struct pmi_server *s = pmi_create(&loop, PMI_PMI2, &info, flood_srun, on_abort, &fl, &err);
		assert_non_null(s);
		fl.server = s;
		/* A merge nobody waits for is dropped. */
		pmi_fence_done(s, 5, json_pack("{s:s}", "stray", "x"));
		assert_null(pmi_kvs_get(&s->kvs, "stray"));
		char **env = NULL;
		size_t envc = 0;
		int keep;
		assert_int_equal(pmi_task_env(s, 0, &env, &envc, &keep, &err), 0);
		struct kids k = { .n = 1, .running = 1 };
		k.pid[0] = fork();
		if (k.pid[0] == 0) {
			close_others(keep);
			flooded_run(keep, cases[c].want);
		}
		pmi_task_forked(s, 0, k.pid[0]);
		strv_free(env);
		kids_wait(&loop, &k, 120);
		if (k.status[0] != 0)
			fail_msg("case %zu: the task's wait status %d after %d fences", c, k.status[0],
				 fl.fences);
		assert_true(s->held.keys <= PMI_KVS_MAX_KEYS);
		assert_true(s->held.bytes <= PMI_KVS_MAX_BYTES);
		pmi_destroy(s);
		uv_run(&loop, UV_RUN_NOWAIT);
		assert_int_equal(uv_loop_close(&loop), 0);
	}
}

/* PMIx: a fence's data over one message, or more fences waiting on srun
 * than PMIX_MAX_FENCES, are refused to libpmix (which tells the tasks).
 * In a child: libpmix's server is one per process. */
static int pmix_held_fences, pmix_answered;

static void pmix_fence_hold(void *arg, int seq, json_t *kvs)
{
	pmix_held_fences++;
	json_decref(kvs);
}

static void pmix_modex_done(pmix_status_t status, const char *data, size_t ndata, void *cbdata,
			    pmix_release_cbfunc_t relfn, void *relcbdata)
{
	if (status == PMIX_SUCCESS)
		pmix_answered++;
	if (relfn)
		relfn(relcbdata);
}

static void test_pmix_fence_caps(void **state)
{
	int out = temp_file();
	pid_t server = fork();
	assert_true(server >= 0);
	if (server == 0) {
		char host[256] = "localhost";
		gethostname(host, sizeof(host));
		static const int ranks[] = { 0 };
		struct pmi_step_info info = {
			.job_id = 9, .step_id = 2, .size = 1, .num_nodes = 1, .node_id = 0,
			.ranks = ranks, .nranks = 1, .node_names = host, .tasks_per_node = "1",
			.distribution = "block", .uid = getuid(), .gid = getgid(),
		};
		uv_loop_t loop;
		uv_loop_init(&loop);
		struct herd_error err = { "" };
		struct pmi_server *s = pmi_create(&loop, PMI_PMIX, &info, pmix_fence_hold, on_abort,
						  NULL, &err);
		if (!s) {
			dprintf(out, "pmi_create: %s\n", err.text);
			_exit(2);
		}
		char *big = xmalloc(PMIX_FENCE_MAX_DATA + 1);
		memset(big, 1, PMIX_FENCE_MAX_DATA + 1);
		int rc = 0;
		if (up_fence(NULL, 0, NULL, 0, big, PMIX_FENCE_MAX_DATA + 1, pmix_modex_done, NULL) !=
		    PMIX_ERR_OUT_OF_RESOURCE) {
			dprintf(out, "a fence of %d bytes was taken\n", PMIX_FENCE_MAX_DATA + 1);
			rc = 1;
		}
		for (int i = 0; i < PMIX_MAX_FENCES; i++)
			if (up_fence(NULL, 0, NULL, 0, big, 10, pmix_modex_done, NULL) != PMIX_SUCCESS) {
				dprintf(out, "fence %d was refused\n", i);
				rc = 1;
			}
		if (up_fence(NULL, 0, NULL, 0, big, 10, pmix_modex_done, NULL) !=
		    PMIX_ERR_OUT_OF_RESOURCE) {
			dprintf(out, "fence %d was taken\n", PMIX_MAX_FENCES);
			rc = 1;
		}
		/* herdstepd's loop runs for its tasks; here, for the events. */
		uv_ref((uv_handle_t *)&s->px->async);
		for (int i = 0; i < 100 && pmix_held_fences < PMIX_MAX_FENCES; i++)
			uv_run(&loop, UV_RUN_NOWAIT);
		uv_unref((uv_handle_t *)&s->px->async);
		if (pmix_held_fences != PMIX_MAX_FENCES) {
			dprintf(out, "%d fences reached srun\n", pmix_held_fences);
			rc = 1;
		}
		/* srun answers one: there is room for one more. */
		pmi_fence_done(s, 0, json_pack("{s:s}", "pmix.blob.0", "AQEBAQEBAQEBAQ=="));
		if (pmix_answered != 1 ||
		    up_fence(NULL, 0, NULL, 0, big, 10, pmix_modex_done, NULL) != PMIX_SUCCESS) {
			dprintf(out, "after an answer (%d): no room\n", pmix_answered);
			rc = 1;
		}
		free(big);
		pmi_destroy(s);
		uv_run(&loop, UV_RUN_NOWAIT);
		_exit(rc);
	}
	int st;
	assert_int_equal(waitpid(server, &st, 0), server);
	char *text = slurp(out);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("the PMIx server process: wait status %d; output:\n%s", st, text);
	free(text);
}

int main(void)
{
	/* A client that dies mid-answer must not kill the test (or herdstepd). */
	signal(SIGPIPE, SIG_IGN);
	log_init("test_stepd_pmi", getenv("PMI_TEST_DEBUG") ? LOG_LVL_DEBUG : LOG_LVL_INFO, NULL);
	if (getenv("PMI_TEST"))      /* run one: PMI_TEST=test_openmpi_hello */
		cmocka_set_test_filter(getenv("PMI_TEST"));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_parse),
		cmocka_unit_test(test_process_mapping),
		cmocka_unit_test(test_none_and_bad_layout),
		cmocka_unit_test(test_protocols),
		cmocka_unit_test(test_pmi2_direct_and_abort),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_fence_two_nodes),
		cmocka_unit_test(test_put_cap),
		cmocka_unit_test(test_merge_cap),
		cmocka_unit_test(test_pmix_fence_caps),
		cmocka_unit_test(test_mpich_hello),
		cmocka_unit_test(test_mpich_allreduce),
		cmocka_unit_test(test_mpich_abort),
		cmocka_unit_test(test_openmpi_hello),
		cmocka_unit_test(test_openmpi_allreduce),
		cmocka_unit_test(test_openmpi_two_nodes),
		cmocka_unit_test(test_openmpi_abort),
		cmocka_unit_test(test_openmpi_thread_files_as_user),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
