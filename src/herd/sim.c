/* `herd sim`: the command line.  Reads the trace and (optionally) the
 * cluster's herd.conf, chooses the machine and the pass's settings for the
 * policy, replays (sim_run.c) and prints the figures, the CSV and the SVG
 * (sim_out.c).  Errors are "herd sim: error: ..." and exit 1. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/xmalloc.h"
#include "herd/sim.h"
#include "herd/sim_core.h"

/* EASY and FCFS are replayed exactly: no window (a planned start as far
 * ahead as it is), one-second plan times, every job looked at. */
#define SIM_EXACT_WINDOW (400 * 86400 * 10)   /* ~11 years of virtual time */

static void sim_usage(FILE *f)
{
	fputs("Usage: herd sim --swf FILE [--jobs N] [--procs P] [--node-cpus C]\n"
	      "                [--policy slurm|fcfs|easy|multifactor] [-c herd.conf]\n"
	      "                [--csv FILE] [--plot FILE.svg]\n"
	      "       herd sim --jobs FILE [-c herd.conf] [--accounts FILE] [--reservations FILE]\n"
	      "                [--procs P] [--node-cpus C] [--csv FILE] [--plot FILE.svg]\n"
	      "Replay a Standard Workload Format trace (plain or .gz), or a list of sbatch\n"
	      "submissions, through Herd's scheduler in virtual time and print utilization,\n"
	      "waits, bounded slowdown and makespan.\n"
	      "  --swf FILE        the trace\n"
	      "  --jobs N          with --swf: the first N jobs of it (default: all)\n"
	      "  --jobs FILE       without --swf: one job a line, \"<submit s> <user> <run s>\n"
	      "                    <sbatch options>\" ('#' comments), replayed by --policy slurm\n"
	      "  --accounts FILE   (slurm) associations and QOS in sacctmgr dump's flat format,\n"
	      "                    loaded as by sacctmgr load before the first job\n"
	      "  --reservations FILE (slurm) one 'scontrol create reservation' spec a line,\n"
	      "                    created at second 0 (StartTime=now+N: N s after it)\n"
	      "  --procs P         the machine's processors (default: the header's MaxProcs,\n"
	      "                    else MaxNodes, else the CPUs of herd.conf's nodes)\n"
	      "  --node-cpus C     model the P processors as nodes of C CPUs (default: one node)\n"
	      "  --policy NAME     slurm (the default): the controller's own code on herd.conf's\n"
	      "                    nodes, partitions, priority, scheduler and preemption\n"
	      "                    settings; the trace's users (field 12) as user u<N> in\n"
	      "                    account g<G> (its group, 13), its queue (15, else the\n"
	      "                    partition, 16) N as herd.conf's Nth partition (1-based;\n"
	      "                    none or past the last: the default partition), a job with\n"
	      "                    a preceding job (17) submitted its think time (18) after\n"
	      "                    that job's end.  Reference models: fcfs (strict order),\n"
	      "                    easy (FCFS with EASY backfill) and multifactor (the\n"
	      "                    configured priority and backfill on the trace alone)\n"
	      "  -c, --conf FILE   herd.conf (default: $HERD_CONF; none: Slurm's defaults)\n"
	      "  --csv FILE        per-job CSV: job_id,submit,start,end,wait,run_time,estimate,\n"
	      "                    procs,bounded_slowdown,\n"
	      "                    jobid,jobname,user,nodelist,last_start\n"
	      "  --plot FILE.svg   utilization, queue length and wait over time (also --chart)\n",
	      f);
}

static int fail(const char *fmt, const char *arg)
{
	fputs("herd sim: error: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 1;
}

static int parse_count(const char *s, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

/* One "key=value" of SchedulerParameters; -1 when present but not a number. */
static int sched_param(const char *params, const char *key, long *value)
{
	size_t len = strlen(key);
	for (const char *p = params; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t tok = comma ? (size_t)(comma - p) : strlen(p);
		if (tok > len && !strncasecmp(p, key, len) && p[len] == '=') {
			char buf[32], *end;
			size_t vlen = tok - len - 1;
			if (vlen == 0 || vlen >= sizeof(buf))
				return -1;
			memcpy(buf, p + len + 1, vlen);
			buf[vlen] = '\0';
			errno = 0;
			long v = strtol(buf, &end, 10);
			if (errno || *end || v < 0)
				return -1;
			*value = v;
			return 0;
		}
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* The multifactor policy's settings from the config (Slurm's defaults
 * without one): SchedulerType, SchedulerParameters' bf_* and
 * default_queue_depth, and the Priority* keys (with
 * PriorityType=priority/multifactor; priority/basic, Slurm's default,
 * leaves every priority the same). */
static int multifactor_opts(const struct conf *conf, struct sim_opts *o, struct herd_error *err)
{
	const char *type = conf ? conf_get(conf, "SchedulerType") : NULL;
	const char *params = conf ? conf_get(conf, "SchedulerParameters") : NULL;
	long window = 1440, resolution = 60, job_test = 500, job_user = 0, depth = 100;
	char perr[160];

	if (type && strcasecmp(type, "sched/backfill") && strcasecmp(type, "sched/builtin"))
		return errprintf(err, "SchedulerType=%s: sched/backfill or sched/builtin", type);
	o->backfill = !type || !strcasecmp(type, "sched/backfill");
	if (sched_param(params, "bf_window", &window) || sched_param(params, "bf_resolution", &resolution) ||
	    sched_param(params, "bf_max_job_test", &job_test) ||
	    sched_param(params, "bf_max_job_user", &job_user) ||
	    sched_param(params, "default_queue_depth", &depth) || window <= 0 || resolution <= 0 ||
	    window > INT_MAX / 60)
		return errprintf(err, "SchedulerParameters=%s: a bad number", params);
	o->window = (int)(window * 60);
	o->resolution = (int)resolution;
	o->max_job_test = (int)(o->backfill ? job_test : depth);
	o->max_job_user = (int)job_user;
	o->max_reservations = 0;   /* every job holds its planned start: conservative */

	struct prio_weights *w = &o->prio.weights;
	prio_weights_init(w);
	o->prio.decay_half_life = 7 * 86400;
	const char *prio_type = conf ? conf_get(conf, "PriorityType") : NULL;
	if (prio_type && strcasecmp(prio_type, "priority/basic") &&
	    strcasecmp(prio_type, "priority/multifactor"))
		return errprintf(err, "PriorityType=%s: priority/basic or priority/multifactor", prio_type);
	if (!prio_type || !strcasecmp(prio_type, "priority/basic")) {
		/* as herdctld: the weights count only under priority/multifactor */
		fprintf(stderr, "herd sim: warning: PriorityType=priority/basic%s: every priority is "
			"the same, jobs go in submit order\n", prio_type ? "" : " (the default)");
		return 0;
	}
	w->age = (uint32_t)conf_get_int(conf, "PriorityWeightAge", 0);
	w->assoc = (uint32_t)conf_get_int(conf, "PriorityWeightAssoc", 0);
	w->fairshare = (uint32_t)conf_get_int(conf, "PriorityWeightFairshare", 0);
	w->job_size = (uint32_t)conf_get_int(conf, "PriorityWeightJobSize", 0);
	w->partition = (uint32_t)conf_get_int(conf, "PriorityWeightPartition", 0);
	w->qos = (uint32_t)conf_get_int(conf, "PriorityWeightQOS", 0);
	w->max_age = conf_get_time(conf, "PriorityMaxAge", PRIO_MAX_AGE_DEFAULT);
	w->favor_small = conf_get_bool(conf, "PriorityFavorSmall", false);
	if (prio_flags_parse(conf_get(conf, "PriorityFlags"), &w->flags, perr, sizeof(perr)) ||
	    prio_tres_weights_parse(conf_get(conf, "PriorityWeightTRES"), w->tres, perr, sizeof(perr)))
		return errprintf(err, "%s", perr);
	int64_t hl = conf_get_time(conf, "PriorityDecayHalfLife", 7 * 86400);
	o->prio.decay_half_life = hl > 0 ? hl : 0;
	return 0;
}

/* The machine: P processors as nodes of node_cpus (one node by default:
 * the trace knows processors, not nodes), else herd.conf's nodes. */
static int build_machine(long procs, long node_cpus, const struct conf *conf,
			 struct sim_machine *m, struct herd_error *err)
{
	if (procs > 0) {
		long per = node_cpus > 0 && node_cpus < procs ? node_cpus : procs;
		m->nnodes = (int)((procs + per - 1) / per);
		m->cpus = xmalloc(m->nnodes * sizeof(int));
		for (int i = 0; i < m->nnodes; i++)
			m->cpus[i] = (int)(i + 1 < m->nnodes ? per : procs - per * (m->nnodes - 1));
		return 0;
	}
	if (!conf || conf->nnodes == 0)
		return errprintf(err, "the machine's size is unknown: give --procs (the trace has no MaxProcs)");
	m->nnodes = (int)conf->nnodes;
	m->cpus = xmalloc(m->nnodes * sizeof(int));
	for (size_t i = 0; i < conf->nnodes; i++)
		m->cpus[i] = conf->nodes[i].cpus > 0 ? conf->nodes[i].cpus : 1;
	return 0;
}

/* herd.conf for --policy slurm without -c: the machine as nodes n[1-N] in
 * one partition, written to a temporary file and read as any herd.conf. */
static struct conf *machine_conf(const struct sim_machine *m, struct herd_error *err)
{
	char path[] = "/tmp/herd-sim-conf-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		errprintf(err, "cannot write a herd.conf for the machine: %s", strerror(errno));
		return NULL;
	}
	fprintf(f, "ClusterName=sim\nSlurmctldHost=localhost\n");
	for (int i = 0; i < m->nnodes; i++)
		fprintf(f, "NodeName=n%d CPUs=%d\n", i + 1, m->cpus[i]);
	fprintf(f, "PartitionName=batch Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	fclose(f);
	struct conf *conf = conf_load(path, err);
	unlink(path);
	return conf;
}

static const char *policy_name(enum sim_policy p)
{
	return p == SIM_FCFS ? "fcfs" : p == SIM_EASY ? "easy"
	       : p == SIM_MULTIFACTOR ? "multifactor" : "slurm";
}

/* Write and close an output opened before the replay (a bad path fails
 * before the work, not after). */
static int finish_file(FILE *f, const struct sim_result *res, const char *title, bool svg)
{
	int rc = svg ? sim_write_svg(f, res, title) : sim_write_csv(f, res);
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

int herd_sim_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "swf", required_argument, NULL, 's' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "accounts", required_argument, NULL, 'a' },
		{ "reservations", required_argument, NULL, 'r' },
		{ "procs", required_argument, NULL, 'p' },
		{ "node-cpus", required_argument, NULL, 'n' },
		{ "policy", required_argument, NULL, 'P' },
		{ "conf", required_argument, NULL, 'c' },
		{ "csv", required_argument, NULL, 'C' },
		{ "chart", required_argument, NULL, 'g' },
		{ "plot", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *swf = NULL, *conf_path = NULL, *csv = NULL, *chart = NULL;
	const char *jobs_arg = NULL, *accounts = NULL, *resvs = NULL;
	long jobs = 0, procs = 0, node_cpus = 0;
	bool policy_given = false;
	struct sim_arrival *arr = NULL;
	size_t narr = 0;
	struct sim_core_start start = { 0 };
	struct sim_opts opts = { .policy = SIM_SLURM };
	struct swf_trace trace = { 0 };
	struct sim_result res = { 0 };
	struct conf *conf = NULL;
	struct herd_error err = { "" };
	FILE *csv_f = NULL, *chart_f = NULL;
	int c, rc = 1;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': swf = optarg; break;
		case 'c': conf_path = optarg; break;
		case 'C': csv = optarg; break;
		case 'g': chart = optarg; break;
		case 'j': jobs_arg = optarg; break;
		case 'a': accounts = optarg; break;
		case 'r': resvs = optarg; break;
		case 'p':
			if (parse_count(optarg, 1 << 24, &procs))
				return fail("--procs: not a positive number (at most 16777216): '%s'", optarg);
			break;
		case 'n':
			if (parse_count(optarg, 1 << 24, &node_cpus))
				return fail("--node-cpus: not a positive number: '%s'", optarg);
			break;
		case 'P':
			policy_given = true;
			if (!strcmp(optarg, "fcfs"))
				opts.policy = SIM_FCFS;
			else if (!strcmp(optarg, "easy"))
				opts.policy = SIM_EASY;
			else if (!strcmp(optarg, "multifactor"))
				opts.policy = SIM_MULTIFACTOR;
			else if (!strcmp(optarg, "slurm"))
				opts.policy = SIM_SLURM;
			else
				return fail("--policy: slurm, fcfs, easy or multifactor, not '%s'", optarg);
			break;
		case 'h':
			sim_usage(stdout);
			return 0;
		case ':':
			return fail("option '%s' needs a value", argv[optind - 1]);
		default:
			return fail("unrecognized option '%s' (see herd sim --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fail("unexpected argument '%s'", argv[optind]);
	/* --jobs: how many of the trace's jobs with --swf, else the jobs file */
	if (swf && jobs_arg && parse_count(jobs_arg, LONG_MAX, &jobs))
		return fail("--jobs: not a positive number: '%s'", jobs_arg);
	if (!swf && !jobs_arg)
		return fail("%s", "--swf FILE or --jobs FILE is required (see herd sim --help)");
	if (!swf) {
		if (policy_given && opts.policy != SIM_SLURM)
			return fail("--jobs FILE: replayed by --policy slurm, not '%s'",
				    policy_name(opts.policy));
		opts.policy = SIM_SLURM;
	}
	if ((accounts || resvs) && opts.policy != SIM_SLURM)
		return fail("%s", "--accounts and --reservations need --policy slurm");
	if (!conf_path)
		conf_path = getenv("HERD_CONF");
	if (conf_path && *conf_path && !(conf = conf_load(conf_path, &err)))
		goto error;
	if (swf && swf_load(swf, (size_t)jobs, &trace, &err))
		goto error;
	if (!swf && !(arr = sim_jobs_load(jobs_arg, &narr, &err)))
		goto error;
	start.local_users = !swf;   /* a jobs file: real users, associations only from --accounts */
	if (accounts && !(start.accounts = sim_accounts_load(accounts, &err)))
		goto error;
	if (resvs && !(start.reservations = sim_resv_load(resvs, &err)))
		goto error;
	start.accounts_path = accounts;
	start.reservations_path = resvs;
	if (csv && !(csv_f = fopen(csv, "w"))) {
		errprintf(&err, "%s: %s", csv, strerror(errno));
		goto error;
	}
	if (chart && !(chart_f = fopen(chart, "w"))) {
		errprintf(&err, "%s: %s", chart, strerror(errno));
		goto error;
	}
	if (procs == 0)
		procs = trace.max_procs > 0 ? trace.max_procs : trace.max_nodes;
	if (procs > 1 << 24) {
		errprintf(&err, "%s: MaxProcs %ld is too big (give --procs)", swf, procs);
		goto error;
	}
	if (!swf && !conf && procs == 0) {
		errprintf(&err, "--jobs FILE runs on herd.conf's nodes: give -c herd.conf (or --procs)");
		goto error;
	}
	if (build_machine(procs, node_cpus, conf, &opts.machine, &err))
		goto error;
	switch (opts.policy) {
	case SIM_FCFS:
		opts.backfill = false;
		break;
	case SIM_EASY:
		opts.backfill = true;
		opts.max_reservations = 1;
		opts.window = SIM_EXACT_WINDOW;
		opts.resolution = 1;
		break;
	case SIM_MULTIFACTOR:
		if (multifactor_opts(conf, &opts, &err))
			goto error;
		break;
	case SIM_SLURM:
		/* the controller's own code, on herd.conf's nodes and partitions
		 * (or the machine above as one partition); it keeps conf */
		if (!conf && !(conf = machine_conf(&opts.machine, &err)))
			goto error;
		if (swf)
			arr = sim_swf_arrivals(&trace, conf, &narr, &res);
		int bad = sim_core_run(arr, narr, conf, &start, &res, &err);
		conf = NULL;
		if (bad)
			goto error;
		break;
	}
	if (opts.policy != SIM_SLURM && sim_run(&trace, &opts, &res, &err))
		goto error;

	struct sim_metrics m;
	sim_metrics_compute(res.jobs, res.njobs, res.procs, &m);
	if (swf)
		printf("Trace:                 %s (%zu jobs read)\n", swf, trace.njobs);
	else
		printf("Jobs file:             %s (%zu jobs read)\n", jobs_arg, narr);
	printf("Policy:                %s\n", policy_name(opts.policy));
	printf("Processors:            %ld (%d node%s)\n", res.procs, res.nnodes,
	       res.nnodes == 1 ? "" : "s");
	printf("Jobs:                  %zu (skipped: %zu bigger than the machine, %zu without a size "
	       "or run time)\n", res.njobs, res.skipped_big, res.skipped_bad);
	printf("Utilization:           %.4f%%\n", 100 * m.utilization);
	printf("Mean wait:             %.2f s\n", m.mean_wait);
	printf("Max wait:              %lld s\n", (long long)m.max_wait);
	printf("Mean bounded slowdown: %.4f (tau = %d s)\n", m.mean_bsld, SIM_BSLD_TAU);
	printf("Makespan:              %lld s\n", (long long)m.makespan);
	fflush(stdout);

	char title[200];
	const char *src = swf ? swf : jobs_arg, *base = strrchr(src, '/');
	snprintf(title, sizeof(title), "%s, %s, %ld processors", base ? base + 1 : src,
		 policy_name(opts.policy), res.procs);
	if (csv_f) {
		int bad = finish_file(csv_f, &res, title, false);
		csv_f = NULL;
		if (bad) {
			errprintf(&err, "%s: %s", csv, strerror(errno));
			goto error;
		}
	}
	if (chart_f) {
		int bad = finish_file(chart_f, &res, title, true);
		chart_f = NULL;
		if (bad) {
			errprintf(&err, "%s: %s", chart, strerror(errno));
			goto error;
		}
	}
	rc = 0;
	goto out;
error:
	fprintf(stderr, "herd sim: error: %s\n", err.text);
out:
	if (csv_f)
		fclose(csv_f);
	if (chart_f)
		fclose(chart_f);
	sim_result_free(&res);
	sim_arrivals_free(arr, narr);
	json_decref(start.accounts);
	json_decref(start.reservations);
	swf_trace_free(&trace);
	free(opts.machine.cpus);
	conf_destroy(conf);
	return rc;
}
