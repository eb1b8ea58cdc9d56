/* herdstepd's cgroups: cgroup.conf parsing, table by table, then real
 * cgroups on this machine (as root): a cpuset a child is bound to, a memory
 * limit that OOM-kills, a freeze that stops a busy child, the step's pids,
 * devices, and the directories gone after destroy; v2 through a cgroup2
 * mount where there is one.  The stepd sources are not in libherd, so the
 * one under test is compiled in here. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "stepd/cgroup.c"
#include "stepd/cgroup_dev.c"

static char node[64];          /* "unit-PID": runs never share cgroups */
static pid_t kids[8];
static int nkids;
static struct cgroup_step *live;   /* destroyed by teardown if a test failed */
static char confdir[64];

/* ---- helpers ---- */

static void write_conf(const char *text)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/cgroup.conf", confdir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void load(const char *text, struct cgroup_conf *cc)
{
	struct herd_error err = { "" };
	write_conf(text);
	int rc = cgroup_conf_load(confdir, cc, &err);
	if (rc != 0)
		print_message("cgroup_conf_load: %s\n", err.text);
	assert_int_equal(rc, 0);
}

/* A child that waits for a byte on go[0], then runs fn; returns its pid. */
static pid_t spawn(int go[2], void (*fn)(int out), int out)
{
	assert_int_equal(pipe(go), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(99);
		fn(out);
		_exit(0);
	}
	close(go[0]);
	kids[nkids++] = pid;
	return pid;
}

static void release(int go[2])
{
	assert_int_equal(write(go[1], "x", 1), 1);
	close(go[1]);
}

static int reap(pid_t pid)
{
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	for (int i = 0; i < nkids; i++)
		if (kids[i] == pid)
			kids[i] = 0;
	return status;
}

static void busy(int out)
{
	for (volatile unsigned long i = 0;; i++)
		;
}

/* utime + stime of pid in clock ticks, from /proc/PID/stat. */
static unsigned long long cpu_ticks(pid_t pid, char *state)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	char *p = strrchr(buf, ')');
	assert_non_null(p);
	unsigned long long ut = 0, st = 0;
	char s = 0;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	assert_int_equal(sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				&s, &ut, &st), 3);
	if (state)
		*state = s;
	return ut + st;
}

static void sleep_ms(int ms)
{
	cg_sleep_ms(ms);
}

static bool dir_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Real cgroups need root and a writable hierarchy; say which is missing. */
static bool v1_usable(void)
{
	if (geteuid() != 0) {
		print_message("skipped: not root, cgroups cannot be created\n");
		return false;
	}
	if (!cg_fs_is("/sys/fs/cgroup/freezer", CGROUP_SUPER_MAGIC) ||
	    !cg_fs_is("/sys/fs/cgroup/memory", CGROUP_SUPER_MAGIC)) {
		print_message("skipped: /sys/fs/cgroup has no cgroup v1 freezer and memory\n");
		return false;
	}
	char *own = cg_own_path("freezer");
	char *probe = xasprintf("/sys/fs/cgroup/freezer%s/herd-probe-%ld", own, (long)getpid());
	bool ok = mkdir(probe, 0755) == 0;
	if (ok)
		rmdir(probe);
	else
		print_message("skipped: %s: %s (cgroup filesystem not writable)\n", probe,
			      strerror(errno));
	free(own);
	free(probe);
	return ok;
}

/* Remove herd/NODE in every hierarchy a test used (herd/ itself stays:
 * another herdstepd on this host may be using it). */
static void remove_node_dirs(void)
{
	for (int c = 0; c < CG_NCTL; c++) {
		char *own = cg_own_path(cg_ctl_names[c]);
		char *d = xasprintf("/sys/fs/cgroup/%s%s/herd/%s", cg_ctl_names[c], own, node);
		rmdir(d);
		free(d);
		free(own);
	}
	char *own = cg_own_path(NULL);
	char *d = xasprintf("/sys/fs/cgroup/unified%s/herd/%s", own, node);
	rmdir(d);
	free(d);
	free(own);
}

static int setup(void **state)
{
	nkids = 0;
	live = NULL;
	return 0;
}

static int teardown(void **state)
{
	for (int i = 0; i < nkids; i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
	if (live) {
		cgroup_freeze(live, false);
		cgroup_step_destroy(live);
	}
	remove_node_dirs();
	return 0;
}

/* ---- cgroup.conf ---- */

static void test_conf_table(void **state)
{
	static const struct {
		const char *text;
		int rc;
		bool cores, ram, swap, devices;
		double allowed_ram, allowed_swap;
		const char *mountpoint, *plugin, *error;
	} cases[] = {
		{ "", 0, false, false, false, false, 100, 0, "/sys/fs/cgroup", "autodetect", NULL },
		{ "# only a comment\n\n", 0, false, false, false, false, 100, 0, "/sys/fs/cgroup",
		  "autodetect", NULL },
		{ "ConstrainCores=yes\nConstrainRAMSpace=yes\nAllowedRAMSpace=95.5\n"
		  "ConstrainSwapSpace=yes\nAllowedSwapSpace=10\nConstrainDevices=yes\n",
		  0, true, true, true, true, 95.5, 10, "/sys/fs/cgroup", "autodetect", NULL },
		{ "constraincores=YES  constrainramspace=no # two on a line\n", 0, true, false,
		  false, false, 100, 0, "/sys/fs/cgroup", "autodetect", NULL },
		{ "CgroupPlugin=cgroup/v2\nCgroupMountpoint=/sys/fs/cgroup/unified\n", 0, false,
		  false, false, false, 100, 0, "/sys/fs/cgroup/unified", "cgroup/v2", NULL },
		{ "CGROUPPLUGIN=cgroup/v1\n", 0, false, false, false, false, 100, 0,
		  "/sys/fs/cgroup", "cgroup/v1", NULL },
		{ "CgroupPlugin=disabled\n", 0, false, false, false, false, 100, 0,
		  "/sys/fs/cgroup", "disabled", NULL },
		/* Documented keys Herd does not act on load and change nothing. */
		{ "MaxRAMPercent=98\nMinRAMSpace=30\nAllowedKmemSpace=100\nConstrainKmemSpace=no\n"
		  "MemorySwappiness=0\nSignalChildrenProcesses=yes\nIgnoreSystemd=yes\n"
		  "IgnoreSystemdOnFailure=yes\nEnableControllers=yes\nCgroupAutomount=yes\n",
		  0, false, false, false, false, 100, 0, "/sys/fs/cgroup", "autodetect", NULL },
		{ "ConstrainCores=yes\nConstrainNothing=yes\n", -1, 0, 0, 0, 0, 0, 0, NULL, NULL,
		  "line 2: unknown parameter \"ConstrainNothing\"" },
		{ "ConstrainCores=maybe\n", -1, 0, 0, 0, 0, 0, 0, NULL, NULL,
		  "line 1: ConstrainCores=maybe: expected yes or no" },
		{ "\nAllowedRAMSpace=lots\n", -1, 0, 0, 0, 0, 0, 0, NULL, NULL,
		  "line 2: AllowedRAMSpace=lots: expected a percentage" },
		{ "AllowedSwapSpace=-5\n", -1, 0, 0, 0, 0, 0, 0, NULL, NULL,
		  "line 1: AllowedSwapSpace=-5: expected a percentage" },
		{ "CgroupPlugin=cgroup/v3\n", -1, 0, 0, 0, 0, 0, 0, NULL, NULL,
		  "line 1: CgroupPlugin=cgroup/v3: expected autodetect" },
		{ "ConstrainCores\n", -1, 0, 0, 0, 0, 0, 0, NULL, NULL,
		  "line 1: \"ConstrainCores\" is not Key=Value" },
		{ "CgroupMountpoint=\n", -1, 0, 0, 0, 0, 0, 0, NULL, NULL,
		  "line 1: CgroupMountpoint has no value" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cgroup_conf cc;
		struct herd_error err = { "" };
		write_conf(cases[i].text);
		int rc = cgroup_conf_load(confdir, &cc, &err);
		print_message("case %zu: rc %d %s\n", i, rc, err.text);
		assert_int_equal(rc, cases[i].rc);
		if (rc < 0) {
			assert_non_null(strstr(err.text, cases[i].error));
			assert_non_null(strstr(err.text, "cgroup.conf"));
			continue;
		}
		assert_int_equal(cc.constrain_cores, cases[i].cores);
		assert_int_equal(cc.constrain_ram, cases[i].ram);
		assert_int_equal(cc.constrain_swap, cases[i].swap);
		assert_int_equal(cc.constrain_devices, cases[i].devices);
		assert_true(cc.allowed_ram == cases[i].allowed_ram);
		assert_true(cc.allowed_swap == cases[i].allowed_swap);
		assert_string_equal(cc.mountpoint, cases[i].mountpoint);
		assert_string_equal(cc.plugin, cases[i].plugin);
		cgroup_conf_free(&cc);
	}
}

static void test_conf_missing(void **state)
{
	struct cgroup_conf cc;
	struct herd_error err = { "" };
	assert_int_equal(cgroup_conf_load("/nonexistent-herd-dir", &cc, &err), 0);
	assert_false(cc.constrain_cores || cc.constrain_ram || cc.constrain_swap ||
		     cc.constrain_devices);
	assert_true(cc.allowed_ram == 100);
	assert_string_equal(cc.mountpoint, "/sys/fs/cgroup");
	assert_string_equal(cc.plugin, "autodetect");
	cgroup_conf_free(&cc);
}

/* ---- handles that do nothing ---- */

static void check_noop(const char *conf)
{
	struct cgroup_conf cc;
	load(conf, &cc);
	struct cgroup_limits lim = { "0", 20 };
	struct cgroup_step *cg = cgroup_step_create(&cc, node, 1, "0", &lim);
	assert_non_null(cg);
	assert_int_equal(cgroup_version(cg), 0);
	assert_int_equal(cgroup_add_task(cg, getpid(), 0), 0);
	assert_int_equal(cgroup_freeze(cg, true), 0);
	assert_int_equal(cgroup_freeze(cg, false), 0);
	size_t n = 99;
	pid_t *pids = cgroup_pids(cg, &n);
	assert_int_equal(n, 0);
	free(pids);
	struct cgroup_usage u = { 1, 1, true };
	assert_int_equal(cgroup_usage(cg, &u), 0);
	assert_int_equal(u.cpu_time_us, 0);
	assert_int_equal(u.max_rss_kb, 0);
	assert_false(u.oom);
	cgroup_step_destroy(cg);
	cgroup_conf_free(&cc);
}

static void test_noop_disabled(void **state)
{
	check_noop("CgroupPlugin=disabled\nConstrainCores=yes\n");
}

static void test_noop_no_cgroupfs(void **state)
{
	check_noop("CgroupMountpoint=/tmp\n");
}

static void test_noop_wrong_version(void **state)
{
	if (!cg_fs_is("/sys/fs/cgroup/freezer", CGROUP_SUPER_MAGIC) || geteuid() != 0) {
		print_message("skipped: this host's /sys/fs/cgroup is not cgroup v1\n");
		skip();
	}
	check_noop("CgroupPlugin=cgroup/v2\n");
}

/* Not root (here: root turned nobody): the mkdir fails, one line says so,
 * and the handle does nothing. */
static void test_noop_not_root(void **state)
{
	if (geteuid() != 0) {
		print_message("skipped: not root, cannot become another user to test this\n");
		skip();
	}
	static const char *const mounts[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	for (int m = 0; m < 2; m++) {
		char probe[128];
		snprintf(probe, sizeof(probe), "%s/cgroup.controllers", mounts[m]);
		if (m == 0 ? !cg_fs_is("/sys/fs/cgroup/freezer", CGROUP_SUPER_MAGIC) &&
			     access(probe, F_OK) < 0
			   : !cg_fs_is(mounts[m], CGROUP2_SUPER_MAGIC))
			continue;   /* no such hierarchy on this host */
		int out[2];
		assert_int_equal(pipe(out), 0);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			dup2(out[1], 2);
			if (setgid(65534) < 0 || setuid(65534) < 0)
				_exit(2);
			struct cgroup_conf cc = { .allowed_ram = 100, .plugin = "autodetect",
						  .mountpoint = (char *)mounts[m] };
			struct cgroup_step *cg = cgroup_step_create(&cc, node, 31, "0", NULL);
			int v = cgroup_version(cg);
			int rc = cgroup_add_task(cg, getpid(), 0) | cgroup_freeze(cg, true);
			cgroup_step_destroy(cg);
			_exit(v == 0 && rc == 0 ? 0 : 1);
		}
		close(out[1]);
		char buf[2048];
		size_t got = 0;
		ssize_t r;
		while ((r = read(out[0], buf + got, sizeof(buf) - 1 - got)) > 0)
			got += r;
		buf[got] = '\0';
		close(out[0]);
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		print_message("%s as nobody: %s", mounts[m], buf);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_non_null(strstr(buf, "cgroups not usable ("));
		assert_non_null(strstr(buf, "Permission denied"));
		assert_non_null(strstr(buf, "processes are tracked without them"));
		assert_int_equal(strchr(buf, '\n') - buf + 1, (long)got);   /* one line */
	}
}

/* ---- v1 ---- */

static int report_cpu;

static void report_affinity(int out)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	int r[2] = { -1, -1 };
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		r[0] = CPU_COUNT(&set);
		r[1] = CPU_ISSET(report_cpu, &set);
	}
	if (write(out, r, sizeof(r)) != sizeof(r))
		_exit(98);
}

static void test_v1_cores(void **state)
{
	if (!v1_usable())
		skip();
	/* CPU 0, or where this process may not use it, its first CPU. */
	cpu_set_t mine;
	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	int cpu = 0;
	while (!CPU_ISSET(cpu, &mine))
		cpu++;
	char cpus[16];
	snprintf(cpus, sizeof(cpus), "%d", cpu);
	struct cgroup_conf cc;
	load("ConstrainCores=yes\n", &cc);
	struct cgroup_limits lim = { cpus, 0 };
	struct cgroup_step *cg = live = cgroup_step_create(&cc, node, 11, "0", &lim);
	assert_int_equal(cgroup_version(cg), 1);
	assert_non_null(cg->step[CG_CPUSET]);
	char buf[64];
	assert_true(cg_read(cg->step[CG_CPUSET], "cpuset.cpus", buf, sizeof(buf)) > 0);
	char want[20];
	snprintf(want, sizeof(want), "%d\n", cpu);
	assert_string_equal(buf, want);

	int go[2], res[2];
	assert_int_equal(pipe(res), 0);
	report_cpu = cpu;
	pid_t pid = spawn(go, report_affinity, res[1]);
	close(res[1]);
	assert_int_equal(cgroup_add_task(cg, pid, 0), 0);
	release(go);
	int r[2];
	assert_int_equal(read(res[0], r, sizeof(r)), sizeof(r));
	close(res[0]);
	assert_int_equal(r[0], 1);   /* exactly one CPU ... */
	assert_int_equal(r[1], 1);   /* ... and it is the step's */
	assert_int_equal(reap(pid), 0);

	char *step = xstrdup(cg->step[CG_CPUSET]), *task = cg_task_dir(step, 0);
	char *job = xstrdup(cg->job[CG_CPUSET]);
	assert_true(dir_exists(task));
	live = NULL;
	cgroup_step_destroy(cg);
	assert_false(dir_exists(task));
	assert_false(dir_exists(step));
	assert_false(dir_exists(job));   /* the job's only step */
	free(task);
	free(step);
	free(job);
	cgroup_conf_free(&cc);
}

static void touch_100mb(int out)
{
	size_t len = 100 << 20;
	char *p = malloc(len);
	if (!p)
		_exit(97);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	_exit(0);
}

static void test_v1_memory_oom(void **state)
{
	if (!v1_usable())
		skip();
	struct cgroup_conf cc;
	/* Swap too, so the limit is the limit on a host with swap. */
	load("ConstrainRAMSpace=yes\nConstrainSwapSpace=yes\nAllowedSwapSpace=0\n", &cc);
	struct cgroup_limits lim = { NULL, 20 };
	struct cgroup_step *cg = live = cgroup_step_create(&cc, node, 12, "0", &lim);
	assert_int_equal(cgroup_version(cg), 1);
	uint64_t limit;
	assert_int_equal(cg_read_u64(cg->step[CG_MEMORY], "memory.limit_in_bytes", &limit), 0);
	assert_int_equal(limit, 20 << 20);

	int go[2];
	pid_t pid = spawn(go, touch_100mb, -1);
	assert_int_equal(cgroup_add_task(cg, pid, 0), 0);
	release(go);
	int status = reap(pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	struct cgroup_usage u;
	assert_int_equal(cgroup_usage(cg, &u), 0);
	print_message("oom %d max_rss_kb %llu\n", u.oom, (unsigned long long)u.max_rss_kb);
	assert_true(u.oom);
	assert_true(u.max_rss_kb > 15 * 1024);
	assert_true(u.max_rss_kb <= 20 * 1024);
	live = NULL;
	cgroup_step_destroy(cg);
	cgroup_conf_free(&cc);

	/* AllowedRAMSpace is a percentage of the step's memory; memsw is RAM
	 * plus AllowedSwapSpace percent of it. */
	load("ConstrainRAMSpace=yes\nAllowedRAMSpace=50\nConstrainSwapSpace=yes\n"
	     "AllowedSwapSpace=25\n", &cc);
	cg = live = cgroup_step_create(&cc, node, 12, "1", &lim);
	assert_int_equal(cg_read_u64(cg->step[CG_MEMORY], "memory.limit_in_bytes", &limit), 0);
	assert_int_equal(limit, 10 << 20);
	if (cg_exists(cg->step[CG_MEMORY], "memory.memsw.limit_in_bytes")) {
		assert_int_equal(cg_read_u64(cg->step[CG_MEMORY], "memory.memsw.limit_in_bytes",
					     &limit), 0);
		assert_int_equal(limit, 15 << 20);
	}
	cgroup_conf_free(&cc);
	/* Swap alone: RAM and swap together are bounded. */
	load("ConstrainSwapSpace=yes\nAllowedSwapSpace=50\n", &cc);
	struct cgroup_step *swap_only = cgroup_step_create(&cc, node, 12, "3", &lim);
	if (cg_exists(swap_only->step[CG_MEMORY], "memory.memsw.limit_in_bytes")) {
		assert_int_equal(cg_read_u64(swap_only->step[CG_MEMORY],
					     "memory.memsw.limit_in_bytes", &limit), 0);
		assert_int_equal(limit, 30 << 20);
		assert_int_equal(cg_read_u64(swap_only->step[CG_MEMORY], "memory.limit_in_bytes",
					     &limit), 0);
		assert_int_equal(limit, 30 << 20);
	}
	cgroup_step_destroy(swap_only);
	/* Without ConstrainRAMSpace the step is tracked, not limited. */
	struct cgroup_step *free_step = cgroup_step_create(NULL, node, 12, "2", &lim);
	assert_int_equal(cg_read_u64(free_step->step[CG_MEMORY], "memory.limit_in_bytes",
				     &limit), 0);
	assert_true(limit > (1ULL << 40));
	assert_null(free_step->step[CG_CPUSET]);   /* ConstrainCores not set */
	assert_null(free_step->step[CG_DEVICES]);
	cgroup_step_destroy(free_step);
	live = NULL;
	cgroup_step_destroy(cg);
	cgroup_conf_free(&cc);
}

static void test_v1_freeze(void **state)
{
	if (!v1_usable())
		skip();
	struct cgroup_step *cg = live = cgroup_step_create(NULL, node, 13, "batch", NULL);
	assert_int_equal(cgroup_version(cg), 1);
	int go[2];
	pid_t pid = spawn(go, busy, -1);
	assert_int_equal(cgroup_add_task(cg, pid, 0), 0);
	release(go);
	/* Let it run until it has used some CPU. */
	for (int i = 0; i < 300 && cpu_ticks(pid, NULL) < 2; i++)
		sleep_ms(10);

	assert_int_equal(cgroup_freeze(cg, true), 0);
	char buf[64];
	assert_true(cg_read(cg->step[CG_FREEZER], "freezer.state", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "FROZEN\n");
	char st;
	unsigned long long t0 = cpu_ticks(pid, &st);
	sleep_ms(400);
	unsigned long long t1 = cpu_ticks(pid, &st);
	print_message("frozen: ticks %llu -> %llu, state %c\n", t0, t1, st);
	assert_true(t1 == t0);
	assert_true(st != 'R');

	assert_int_equal(cgroup_freeze(cg, false), 0);
	unsigned long long t2 = t1;
	for (int i = 0; i < 300 && t2 == t1; i++) {
		sleep_ms(10);
		t2 = cpu_ticks(pid, NULL);
	}
	assert_true(t2 > t1);   /* thawed: it runs again */

	struct cgroup_usage u;
	assert_int_equal(cgroup_usage(cg, &u), 0);
	print_message("cpu_time_us %llu\n", (unsigned long long)u.cpu_time_us);
	assert_true(u.cpu_time_us >= 10000);   /* it ran at least the 2 ticks above */
	assert_false(u.oom);
	kill(pid, SIGKILL);
	reap(pid);
	char *step = xstrdup(cg->step[CG_FREEZER]);
	live = NULL;
	cgroup_step_destroy(cg);
	assert_false(dir_exists(step));
	free(step);
}

static void test_v1_pids_and_shared_job(void **state)
{
	if (!v1_usable())
		skip();
	struct cgroup_step *cg = live = cgroup_step_create(NULL, node, 14, "0", NULL);
	struct cgroup_step *other = cgroup_step_create(NULL, node, 14, "extern", NULL);
	assert_int_equal(cgroup_version(cg), 1);
	assert_int_equal(cgroup_version(other), 1);
	int go[2][2];
	pid_t a = spawn(go[0], busy, -1), b = spawn(go[1], busy, -1);
	assert_int_equal(cgroup_add_task(cg, a, 0), 0);
	assert_int_equal(cgroup_add_task(cg, b, 1), 0);
	size_t n;
	pid_t *pids = cgroup_pids(cg, &n);
	assert_int_equal(n, 2);
	assert_true((pids[0] == a && pids[1] == b) || (pids[0] == b && pids[1] == a));
	free(pids);
	pids = cgroup_pids(other, &n);
	assert_int_equal(n, 0);
	free(pids);
	release(go[0]);
	release(go[1]);
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	reap(a);
	reap(b);

	/* The job's directory stays while another of its steps is there. */
	char *job = xstrdup(cg->job[CG_FREEZER]);
	live = NULL;
	cgroup_step_destroy(cg);
	assert_true(dir_exists(job));
	cgroup_step_destroy(other);
	assert_false(dir_exists(job));
	free(job);
}

/* A task that double-forks into a new session: the escaped grandchild is
 * still in the step's cgroup, which is what cgroup_pids is for. */
static void escape(int out)
{
	pid_t pid = fork();
	if (pid == 0) {
		setsid();
		pid_t self = getpid();
		if (write(out, &self, sizeof(self)) != sizeof(self))
			_exit(98);
		for (;;)
			pause();
	}
	_exit(pid > 0 ? 0 : 97);
}

static void test_v1_pids_escaped(void **state)
{
	if (!v1_usable())
		skip();
	/* As herdstepd: orphans come to us, so the test can reap them. */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	struct cgroup_step *cg = live = cgroup_step_create(NULL, node, 16, "0", NULL);
	assert_int_equal(cgroup_version(cg), 1);
	int go[2], res[2];
	assert_int_equal(pipe(res), 0);
	pid_t pid = spawn(go, escape, res[1]);
	close(res[1]);
	assert_int_equal(cgroup_add_task(cg, pid, 0), 0);
	release(go);
	pid_t grandchild;
	assert_int_equal(read(res[0], &grandchild, sizeof(grandchild)), sizeof(grandchild));
	close(res[0]);
	kids[nkids++] = grandchild;
	assert_int_equal(reap(pid), 0);
	size_t n;
	pid_t *pids = cgroup_pids(cg, &n);
	assert_int_equal(n, 1);
	assert_int_equal(pids[0], grandchild);
	free(pids);
	kill(grandchild, SIGKILL);
	reap(grandchild);
	pids = cgroup_pids(cg, &n);
	assert_int_equal(n, 0);
	free(pids);
	live = NULL;
	cgroup_step_destroy(cg);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

/* What a task can open: /dev/null, then confdir's kmsg (char 1:11, not
 * allowed), gpu0 (char 195:0, the step's GRES: with no driver, ENXIO) and
 * gpu1 (char 195:1, not the step's).  0 or the errno of each. */
#define NDEV_PROBES 4
static void open_devices(int out)
{
	int r[NDEV_PROBES];
	const char *names[NDEV_PROBES] = { NULL, "kmsg", "gpu0", "gpu1" };
	for (int i = 0; i < NDEV_PROBES; i++) {
		char path[128];
		if (names[i])
			snprintf(path, sizeof(path), "%s/%s", confdir, names[i]);
		else
			snprintf(path, sizeof(path), "/dev/null");
		int fd = open(path, O_RDONLY | O_NONBLOCK);
		r[i] = fd >= 0 ? 0 : errno;
	}
	if (write(out, r, sizeof(r)) != sizeof(r))
		_exit(98);
}

/* The device files outside the default set, made here so the test does not
 * depend on what /dev holds.  false (said) when mknod is not allowed. */
static bool make_devices(void)
{
	static const struct { const char *name; unsigned major, minor; } devs[] = {
		{ "kmsg", 1, 11 }, { "gpu0", 195, 0 }, { "gpu1", 195, 1 },
	};
	for (size_t i = 0; i < sizeof(devs) / sizeof(*devs); i++) {
		char path[128];
		snprintf(path, sizeof(path), "%s/%s", confdir, devs[i].name);
		unlink(path);
		if (mknod(path, S_IFCHR | 0600, makedev(devs[i].major, devs[i].minor)) < 0) {
			print_message("skipped: mknod: %s\n", strerror(errno));
			return false;
		}
	}
	return true;
}

/* A task in cg opens what it is allowed (gpu0: ENXIO, no driver behind it)
 * and gets EPERM for the rest. */
static void check_devices(struct cgroup_step *cg)
{
	int go[2], res[2];
	assert_int_equal(pipe(res), 0);
	pid_t pid = spawn(go, open_devices, res[1]);
	close(res[1]);
	assert_int_equal(cgroup_add_task(cg, pid, 0), 0);
	release(go);
	int r[NDEV_PROBES];
	assert_int_equal(read(res[0], r, sizeof(r)), sizeof(r));
	close(res[0]);
	reap(pid);
	assert_int_equal(r[0], 0);        /* /dev/null is allowed */
	assert_int_equal(r[1], EPERM);    /* kmsg is not */
	assert_int_equal(r[2], ENXIO);    /* the step's GPU is */
	assert_int_equal(r[3], EPERM);    /* another GPU is not */
}

static void test_v1_devices(void **state)
{
	if (!v1_usable())
		skip();
	if (!cg_fs_is("/sys/fs/cgroup/devices", CGROUP_SUPER_MAGIC)) {
		print_message("skipped: no devices controller mounted\n");
		skip();
	}
	if (!make_devices())
		skip();
	struct cgroup_conf cc;
	load("ConstrainDevices=yes\n", &cc);
	struct cgroup_step *cg = live = cgroup_step_create(&cc, node, 15, "0", NULL);
	assert_int_equal(cgroup_version(cg), 1);
	assert_non_null(cg->step[CG_DEVICES]);
	char gpu0[128], missing[128];
	snprintf(gpu0, sizeof(gpu0), "%s/gpu0", confdir);
	snprintf(missing, sizeof(missing), "%s/no-such-device", confdir);
	const char *files[] = { gpu0, missing, "/etc/passwd" };
	assert_int_equal(cgroup_constrain_devices(cg, files, 3), 0);
	char list[1024];
	assert_true(cg_read(cg->step[CG_DEVICES], "devices.list", list, sizeof(list)) > 0);
	assert_non_null(strstr(list, "c 1:3 rwm"));
	assert_non_null(strstr(list, "c 195:0 rwm"));
	assert_null(strstr(list, "c 195:1 rwm"));
	assert_null(strstr(list, "a *:* rwm"));
	check_devices(cg);
	live = NULL;
	cgroup_step_destroy(cg);
	cgroup_conf_free(&cc);
}

/* v2: the eBPF device program (cgroup_dev.c) on the step's cgroup. */
static void test_v2_devices(void **state)
{
	const char *mnt = "/sys/fs/cgroup/unified";
	if (cg_fs_is("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC))
		mnt = "/sys/fs/cgroup";
	if (!cg_fs_is(mnt, CGROUP2_SUPER_MAGIC) || geteuid() != 0) {
		print_message("skipped: no cgroup2 filesystem or not root\n");
		skip();
	}
	if (!make_devices())
		skip();
	struct cgroup_conf cc;
	char conf[256];
	snprintf(conf, sizeof(conf), "CgroupMountpoint=%s\nConstrainDevices=yes\n", mnt);
	load(conf, &cc);
	struct cgroup_step *cg = live = cgroup_step_create(&cc, node, 22, "0", NULL);
	if (cgroup_version(cg) != 2) {
		print_message("skipped: %s is not writable here\n", mnt);
		cgroup_conf_free(&cc);
		skip();
	}
	char gpu0[128];
	snprintf(gpu0, sizeof(gpu0), "%s/gpu0", confdir);
	const char *files[] = { gpu0 };
	assert_int_equal(cgroup_constrain_devices(cg, files, 1), 0);
	check_devices(cg);
	live = NULL;
	cgroup_step_destroy(cg);
	cgroup_conf_free(&cc);
}

/* ---- v2 ---- */

static void test_v2_unified(void **state)
{
	const char *mnt = "/sys/fs/cgroup/unified";
	if (!cg_fs_is("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC) && !cg_fs_is(mnt, CGROUP2_SUPER_MAGIC)) {
		print_message("skipped: no cgroup2 filesystem at /sys/fs/cgroup or %s\n", mnt);
		skip();
	}
	if (cg_fs_is("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC))
		mnt = "/sys/fs/cgroup";
	if (geteuid() != 0) {
		print_message("skipped: not root\n");
		skip();
	}
	struct cgroup_conf cc;
	char conf[256];
	snprintf(conf, sizeof(conf), "CgroupMountpoint=%s\nCgroupPlugin=autodetect\n", mnt);
	load(conf, &cc);
	struct cgroup_step *cg = live = cgroup_step_create(&cc, node, 21, "0", NULL);
	if (cgroup_version(cg) == 0) {
		print_message("skipped: %s is not writable here\n", mnt);
		cgroup_conf_free(&cc);
		skip();
	}
	assert_int_equal(cgroup_version(cg), 2);
	int go[2];
	pid_t pid = spawn(go, busy, -1);
	assert_int_equal(cgroup_add_task(cg, pid, 3), 0);
	release(go);
	size_t n;
	pid_t *pids = cgroup_pids(cg, &n);
	assert_int_equal(n, 1);
	assert_int_equal(pids[0], pid);
	free(pids);
	for (int i = 0; i < 300 && cpu_ticks(pid, NULL) < 2; i++)
		sleep_ms(10);

	assert_int_equal(cgroup_freeze(cg, true), 0);
	char buf[16];
	assert_true(cg_read(cg->step[CG_V2], "cgroup.freeze", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "1\n");
	unsigned long long t0 = cpu_ticks(pid, NULL);
	sleep_ms(400);
	unsigned long long t1 = cpu_ticks(pid, NULL);
	print_message("v2 frozen: ticks %llu -> %llu\n", t0, t1);
	assert_true(t1 == t0);
	assert_int_equal(cgroup_freeze(cg, false), 0);
	unsigned long long t2 = t1;
	for (int i = 0; i < 300 && t2 == t1; i++) {
		sleep_ms(10);
		t2 = cpu_ticks(pid, NULL);
	}
	assert_true(t2 > t1);
	struct cgroup_usage u;
	assert_int_equal(cgroup_usage(cg, &u), 0);
	print_message("v2 cpu_time_us %llu max_rss_kb %llu\n", (unsigned long long)u.cpu_time_us,
		      (unsigned long long)u.max_rss_kb);
	assert_true(u.cpu_time_us >= 10000);
	kill(pid, SIGKILL);
	reap(pid);
	char *step = xstrdup(cg->step[CG_V2]), *job = xstrdup(cg->job[CG_V2]);
	live = NULL;
	cgroup_step_destroy(cg);
	assert_false(dir_exists(step));
	assert_false(dir_exists(job));
	free(step);
	free(job);
	cgroup_conf_free(&cc);
}

int main(void)
{
	snprintf(node, sizeof(node), "unit-%ld", (long)getpid());
	snprintf(confdir, sizeof(confdir), "/tmp/herd-cgtest-XXXXXX");
	if (!mkdtemp(confdir)) {
		perror("mkdtemp");
		return 1;
	}
	log_init("test_stepd_cgroup", LOG_LVL_INFO, NULL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_table),
		cmocka_unit_test(test_conf_missing),
		cmocka_unit_test_setup_teardown(test_noop_disabled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_noop_no_cgroupfs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_noop_wrong_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_noop_not_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_cores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_memory_oom, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_freeze, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_pids_and_shared_job, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_pids_escaped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_unified, setup, teardown),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char path[128];
	snprintf(path, sizeof(path), "%s/cgroup.conf", confdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/kmsg", confdir);
	unlink(path);
	rmdir(confdir);
	return rc;
}
