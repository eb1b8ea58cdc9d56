/* The operator's tool `herd`: shared pieces of `herd up` and `herd down`.
 * A cluster lives in one directory (DIR): herd.conf, state/, spool/, log/,
 * run/ and, when herd starts its own MUNGE, munge/.  Not a daemon: it starts
 * and stops daemons and exits. */
#ifndef HERD_HERD_H
#define HERD_HERD_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "common/error.h"

/* Every process `herd up` started, one "PID STARTTIME NAME" line each, so
 * `herd down` stops exactly those (the start time guards against PID reuse). */
#define HERD_PIDS_FILE "run/herd.pids"

int herd_up_main(int argc, char **argv);
int herd_down_main(int argc, char **argv);

/* proc.c */

/* Start time of pid in clock ticks since boot (field 22 of /proc/PID/stat),
 * 0 when the process is gone or is a zombie. */
unsigned long long proc_start_time(pid_t pid);
/* True when pid is alive (not a zombie) and still has start time `start`. */
bool proc_alive(pid_t pid, unsigned long long start);
/* The process's NUL-separated cmdline or environ, joined; NULL if unreadable.
 * *len gets the length.  Caller frees. */
char *proc_read(pid_t pid, const char *what, size_t *len);
/* True when the NUL-separated buffer holds an entry containing needle. */
bool proc_buf_has(const char *buf, size_t len, const char *needle);
/* Short name of the process (/proc/PID/comm), into name[16]; -1 if gone. */
int proc_comm(pid_t pid, char name[16]);

/* Start argv[0] detached (own session, stdin from /dev/null, stdout and stderr
 * appended to out_path, no other descriptors inherited, env plus the extra
 * "KEY=VALUE" entries).  Returns the child's PID or -1 with err. */
pid_t proc_spawn(char *const argv[], const char *out_path, char *const extra_env[],
		 struct herd_error *err);

/* Append "PID STARTTIME NAME" to DIR/run/herd.pids. */
int pids_record(const char *dir, pid_t pid, const char *name, struct herd_error *err);

struct pid_entry {
	pid_t pid;
	unsigned long long start;
	char name[64];
};
/* Read DIR/run/herd.pids; *n entries (0 when the file is absent). */
struct pid_entry *pids_load(const char *dir, size_t *n);

/* Send sig to those of procs still alive; returns how many. */
size_t proc_signal_all(const struct pid_entry *procs, size_t n, int sig);
/* Wait up to timeout_ms until none of procs is alive; false if some still are. */
bool proc_wait_gone(const struct pid_entry *procs, size_t n, int timeout_ms);
/* Stop the given processes: SIGTERM, wait up to grace_ms, then SIGKILL.
 * Returns how many were stopped. */
size_t proc_stop_all(const struct pid_entry *procs, size_t n, int grace_ms);

/* up_gpus.c: `herd up --gpus`.  The fake GPUs of nodes n1..nN: device
 * files in DIR/dev/<node>/, DIR/gres.conf (or, nvml, the fake NVML's files
 * and AutoDetect=nvml). */
struct up_gpus {
	int count;            /* per node; 0 = none */
	const char *type;     /* --gpu-type, or NULL */
	bool nvml;            /* --gpu-nvml */
	int real;             /* without --gpus: the GPUs NVML reports here */
	char real_type[64];   /* their type when they all have one */
};
int up_gpus_make(const char *dir, int nodes, const struct up_gpus *g, struct herd_error *err);
/* Without --gpus: NVML's GPUs (none when no NVML answers) into g->real and
 * g->type; up_gpus_real writes the gres.conf that has herdd detect them. */
void up_gpus_detect(struct up_gpus *g);
int up_gpus_real(const char *dir, struct herd_error *err);
char **up_gpus_env(const char *dir, int node, const char *fake_lib);

/* Directory holding our own binary (from /proc/self/exe); caller frees. */
char *herd_bindir(void);

/* install.c */

/* Copy Herd's programs from bindir (else sbindir) into DIR/bin, mode 0755,
 * for the cluster's users to run; returns DIR/bin (caller frees) or NULL
 * with err. */
char *herd_install_programs(const char *dir, const char *bindir, const char *sbindir,
			    struct herd_error *err);
/* A warning on stderr when some directory on the way to dir keeps other
 * users out (no o+x): they could not read herd.conf nor run a job there. */
void herd_warn_unreachable(const char *dir);

#endif
