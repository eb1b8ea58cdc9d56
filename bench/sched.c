/* Scheduler benchmark: the controller's own objects in this process (as
 * bench/acct), with 10,000 simulated nodes (declared in a generated
 * herd.conf, marked registered here: no herdd) all busy with running jobs
 * whose time limits end them over the next day, and 100,000 pending jobs of
 * mixed sizes.  It times the main pass (the event-driven one over
 * default_queue_depth jobs and the whole-queue one), the backfill pass (in
 * its worker, as herdctld runs it), and the latency of JOB_INFO requests
 * sent over the real protocol from another thread while backfill runs.  The
 * nodes are full, so the passes plan and start nothing: no launches to
 * nodes that do not exist.  Needs MUNGE ($HERD_CONF's socket: scripts/bench-sched).
 *   sched [--jobs N] [--nodes N] [--bf-max-job-test N] */
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/auth.h"
#include "common/conf.h"
#include "common/fs.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/parse.h"
#include "common/xmalloc.h"
#include "acct/adb.h"
#include "ctld/ctld.h"
#include "core/sched_snap.h"
#include "bench.h"

#define MAIN_TARGET_MS 100.0
#define BF_TARGET_MS 1000.0
#define LATENCY_TARGET_MS 50.0
#define CPUS 32
#define USERS 200

struct ctld ctld;   /* main.c's, which the benchmark does not link */

static struct net_target target;
static atomic_int phase;          /* 0 idle, 1 backfill in progress, 2 stop */
static atomic_uint probe_id;
static double *lat[2];
static atomic_long nlat[2];
#define LAT_MAX 1000000

static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/* JOB_INFO of one job, as `squeue -j ID` asks, again and again. */
static void *prober(void *arg)
{
	while (atomic_load(&phase) != 2) {
		struct herd_error err;
		json_t *reply = NULL;
		json_t *body = json_pack("{s:[I]}", "job_ids", (json_int_t)atomic_load(&probe_id));
		int ph = atomic_load(&phase);
		double t0 = now_s();
		if (net_call(&target, MSG_JOB_INFO, body, 60000, &reply, &err) < 0 ||
		    msg_reply_rc(reply, &err) != 0) {
			fprintf(stderr, "sched: JOB_INFO: %s\n", err.text);
			exit(1);
		}
		double ms = (now_s() - t0) * 1e3;
		if (ph == atomic_load(&phase)) {
			long i = atomic_fetch_add(&nlat[ph], 1);
			if (i < LAT_MAX)
				lat[ph][i] = ms;
		}
		json_decref(reply);
		json_decref(body);
		usleep(2000);
	}
	return NULL;
}

static struct job *new_job(uint32_t uid, int64_t limit)
{
	static char *users[USERS];
	struct job *job = xmalloc(sizeof(*job));
	if (!users[uid % USERS])
		users[uid % USERS] = xasprintf("user%u", uid % USERS);
	job->id = core.next_job_id++;
	job->uid = 10000 + uid % USERS;
	job->gid = job->uid;
	job->user = xstrdup(users[uid % USERS]);
	job->name = xstrdup("bench");
	job->part = core.default_part;
	job->work_dir = xstrdup("/tmp");
	job->time_limit = limit;
	job->time_min = TIME_NOT_GIVEN;
	job->kill_invalid_dep = -1;
	job->durable = true;
	job->submit_time = job->eligible_time = time(NULL) - 3600;
	job->mail_user = xstrdup(job->user);
	return job;
}

/* Every node busy: runs of 1 to 128 whole nodes, ending over the next day. */
static void fill_nodes(time_t now)
{
	for (int i = 0; i < core.nnodes;) {
		uint32_t r = rnd() % 100;
		int n = r < 60 ? 1 : r < 90 ? 2 + rnd() % 15 : 32 + rnd() % 97;
		if (n > core.nnodes - i)
			n = core.nnodes - i;
		int64_t limit = 3600 + rnd() % (23 * 3600);
		struct job *job = new_job(rnd(), limit);
		job->req_nodes = n;
		job->exclusive = true;
		job->state = JOB_RUNNING;
		job->launch = LAUNCH_DONE;
		job->start_time = now - rnd() % limit;
		job->nalloc = n;
		job->alloc_node = xmalloc(n * sizeof(int));
		job->alloc_cpus = xmalloc(n * sizeof(int));
		for (int k = 0; k < n; k++) {
			job->alloc_node[k] = i + k;
			job->alloc_cpus[k] = core.nodes[i + k].cpus;
		}
		job->nodes_str = xasprintf("s%d", i + 1);
		job->priority = 1;
		node_alloc(job);
		job_table_add(job);
		i += n;
	}
}

/* The queue: mostly small jobs, some wide ones, limits from 10 minutes to a day. */
static uint32_t queue_jobs(long njobs)
{
	uint32_t first = core.next_job_id;
	for (long i = 0; i < njobs; i++) {
		uint32_t r = rnd() % 100;
		struct job *job = new_job(rnd(), 600 + rnd() % (86400 - 600));
		if (r < 50) {
			job->req_nodes = 1;
			job->ntasks = 1 + rnd() % CPUS;
		} else if (r < 90) {
			job->req_nodes = 1 + rnd() % 8;
			job->exclusive = true;
		} else {
			job->req_nodes = 16 + rnd() % 241;
			job->exclusive = true;
		}
		job->state = JOB_PENDING;
		job->reason = REASON_NONE;
		job->priority = job_priority(job);
		job_table_add(job);
	}
	return first;
}

static void setup(const char *dir, int nnodes, const char *munge, int bf_max_job_test)
{
	struct herd_error err;
	char path[256];
	snprintf(path, sizeof(path), "%s/herd.conf", dir);
	FILE *f = fopen(path, "w");
	int port = net_free_port();
	fprintf(f, "ClusterName=bench\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=%d\n", port);
	if (munge)
		fprintf(f, "AuthInfo=socket=%s\n", munge);
	fprintf(f, "StateSaveLocation=%s/state\nSlurmUser=root\n", dir);
	fprintf(f, "SchedulerParameters=bf_max_job_test=%d\n", bf_max_job_test);
	for (int i = 0; i < nnodes; i++)
		fprintf(f, "NodeName=s%d NodeAddr=127.0.0.1 Port=%d CPUs=%d RealMemory=128000\n", i + 1,
			port + 1, CPUS);
	fprintf(f, "PartitionName=batch Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP\n");
	fclose(f);

	core.conf = conf_load(path, &err);
	if (!core.conf) {
		fprintf(stderr, "sched: %s\n", err.text);
		exit(1);
	}
	ctld.conf_path = xstrdup(path);
	ctld.loop = uv_default_loop();
	core.cluster = xstrdup("bench");
	ctld.dest_self = auth_dest_ctld(core.cluster);
	ctld.ctld_target = (struct net_target){ xstrdup("127.0.0.1"), port, ctld.dest_self,
						munge ? xstrdup(munge) : NULL };
	core.next_job_id = 1;
	reconf_settings(core.conf);
	node_setup();
	part_setup();
	sched_setup();
	snprintf(path, sizeof(path), "%s/state", dir);
	if (store_open(path, &err) < 0 || store_backend_open(core.conf, &err) < 0 || store_load() < 0) {
		fprintf(stderr, "sched: %s\n", err.text);
		exit(1);
	}
	assoc_setup();
	usage_setup();
	for (int i = 0; i < core.nnodes; i++) {
		struct node *n = &core.nodes[i];
		n->registered = true;
		n->state = NODE_IDLE;
		n->last_seen = time(NULL);
	}
	struct net_server_opts opts = {
		.host = "127.0.0.1", .port = port, .dest = ctld.dest_self, .munge_socket = munge,
		.handler = rpc_handle,
	};
	if (!net_server_start(ctld.loop, &opts, &err)) {
		fprintf(stderr, "sched: %s\n", err.text);
		exit(1);
	}
	target = ctld.ctld_target;
}

static double pct(double *v, long n, double p)
{
	if (n <= 0)
		return -1;
	qsort(v, n, sizeof(*v), cmp_double);
	long i = (long)(p * (n - 1) + 0.5);
	return v[i];
}

static void line(const char *what, double value, double target_ms)
{
	printf("%-44s %10.1f ms   target < %5.0f ms: %s\n", what, value, target_ms,
	       value >= 0 && value < target_ms ? "MET" : "MISSED");
}

/* Run the loop until the backfill pass started now has been applied. */
static double backfill_once(void)
{
	const struct sched_stats *st = sched_stats();
	uint64_t before = st->bf_passes;
	atomic_store(&phase, 1);
	double t0 = now_s();
	backfill_start();
	while (st->bf_passes == before)
		uv_run(ctld.loop, UV_RUN_ONCE);
	atomic_store(&phase, 0);
	return (now_s() - t0) * 1e3;
}

/* Let the loop answer requests for a while, nothing scheduled. */
static void idle_for(double seconds)
{
	double end = now_s() + seconds;
	while (now_s() < end) {
		uv_run(ctld.loop, UV_RUN_NOWAIT);
		usleep(200);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' }, { "nodes", required_argument, NULL, 'n' },
		{ "bf-max-job-test", required_argument, NULL, 'b' }, { NULL, 0, NULL, 0 } };
	long njobs = 100000;
	int nnodes = 10000, bf_max = 500, c;
	while ((c = getopt_long(argc, argv, "j:n:b:", opts, NULL)) != -1) {
		switch (c) {
		case 'j': njobs = atol(optarg); break;
		case 'n': nnodes = atoi(optarg); break;
		case 'b': bf_max = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: sched [--jobs N] [--nodes N] [--bf-max-job-test N]\n");
			return 2;
		}
	}
	struct herd_error err;
	const char *hc = getenv("HERD_CONF");
	struct conf *hconf = hc ? conf_load(hc, &err) : NULL;
	const char *munge = hconf ? conf_munge_socket(hconf) : NULL;

	log_init("sched", LOG_LVL_WARN, NULL);
	char dir[] = "/tmp/herd-bench-sched-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	setup(dir, nnodes, munge, bf_max);
	time_t now = time(NULL);
	fill_nodes(now);
	uint32_t first = queue_jobs(njobs);
	atomic_store(&probe_id, first);
	printf("Scheduler benchmark: %ld pending jobs on %d simulated nodes (%d CPUs each, all busy "
	       "with %u running jobs); bf_max_job_test=%d\n", njobs, nnodes, CPUS,
	       first - 1, sched_conf.bf_max_job_test);

	const struct sched_stats *st = sched_stats();
	double ev[5], whole[3], whole_pass[3], whole_build[3], whole_apply[3], bf[3], bf_wall[3];
	for (int i = 0; i < 5; i++) {
		sched_main_pass(false);
		ev[i] = st->main_last_ms;
	}
	for (int i = 0; i < 3; i++) {
		sched_main_pass(true);
		whole[i] = st->main_last_ms;
		whole_pass[i] = st->main_pass_last_ms;
		whole_build[i] = st->main_build_last_ms;
		whole_apply[i] = st->main_apply_last_ms;
	}
	lat[0] = xmalloc(LAT_MAX * sizeof(double));
	lat[1] = xmalloc(LAT_MAX * sizeof(double));
	pthread_t th;
	pthread_create(&th, NULL, prober, NULL);
	idle_for(2.0);
	for (int i = 0; i < 3; i++) {
		bf_wall[i] = backfill_once();
		bf[i] = st->bf_last_ms;
		idle_for(0.5);
	}
	atomic_store(&phase, 2);
	/* the prober's last call needs the loop to answer it */
	for (int i = 0; i < 200; i++) {
		uv_run(ctld.loop, UV_RUN_NOWAIT);
		usleep(1000);
	}
	pthread_join(th, NULL);

	double first_whole = whole[0];   /* its arrays fresh memory: the next ones reuse them */
	qsort(ev, 5, sizeof(double), cmp_double);
	qsort(whole, 3, sizeof(double), cmp_double);
	qsort(bf, 3, sizeof(double), cmp_double);
	qsort(bf_wall, 3, sizeof(double), cmp_double);
	char what[96];
	snprintf(what, sizeof(what), "main pass, depth %d (median of 5)", sched_conf.default_queue_depth);
	line(what, ev[2], MAIN_TARGET_MS);
	line("main pass, whole queue (median of 3)", whole[1], MAIN_TARGET_MS);
	qsort(whole_pass, 3, sizeof(double), cmp_double);
	qsort(whole_build, 3, sizeof(double), cmp_double);
	qsort(whole_apply, 3, sizeof(double), cmp_double);
	printf("%-44s %10.1f ms + %.1f ms + %.1f ms\n", "  snapshot + sched_pass + applying",
	       whole_build[1], whole_pass[1], whole_apply[1]);
	printf("%-44s %10.1f ms   (its arrays still fresh pages)\n", "  the first whole-queue pass", first_whole);
	snprintf(what, sizeof(what), "backfill pass, %d jobs (median of 3)", sched_conf.bf_max_job_test);
	line(what, bf[1], BF_TARGET_MS);
	printf("%-44s %10.1f ms   (snapshot, worker, apply)\n", "  backfill start to applied (median)",
	       bf_wall[1]);
	long n1 = atomic_load(&nlat[1]) < LAT_MAX ? atomic_load(&nlat[1]) : LAT_MAX;
	long n0 = atomic_load(&nlat[0]) < LAT_MAX ? atomic_load(&nlat[0]) : LAT_MAX;
	snprintf(what, sizeof(what), "JOB_INFO p99 during backfill (%ld calls)", n1);
	line(what, pct(lat[1], n1, 0.99), LATENCY_TARGET_MS);
	printf("%-44s %10.1f ms   (p50 %.1f ms)\n", "  JOB_INFO p99 otherwise", pct(lat[0], n0, 0.99),
	       pct(lat[0], n0, 0.5));
	/* what setup made: the store's files, the config, the directory */
	char path[sizeof(dir) + 16];
	store_close();
	snprintf(path, sizeof(path), "%s/state", dir);
	fs_remove_flat_dir(path);
	snprintf(path, sizeof(path), "%s/herd.conf", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}
