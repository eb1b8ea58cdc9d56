/* The insides of srun's step I/O (srun_io.c: the loop, connections,
 * output and exits; srun_stdin.c: stdin and the terminal), shared by those
 * two files only. */
#ifndef HERD_CMD_SRUN_IO_IMPL_H
#define HERD_CMD_SRUN_IO_IMPL_H
#include <stdbool.h>
#include <uv.h>
#include "cmd/srun_io.h"
#include "common/stepio.h"
#include "common/strbuf.h"

#define MAX_SENT_SIGNALS 16
#define xcalloc(n, size) xmalloc((n) * (size))   /* xmalloc zeroes */

struct srun_io;

/* Before its HELLO a connection is anyone's: it may hold at most
 * SRUN_HELLO_MAX bytes, and at most nnodes + SRUN_HELLO_SPARE such
 * connections stay open (the oldest gives way to a new one). */
#define SRUN_HELLO_MAX 65536
#define SRUN_HELLO_SPARE 32

struct conn {
	uv_tcp_t tcp;
	struct srun_io *io;
	struct stepio_decoder dec;
	int node;               /* -1 until HELLO */
	bool closing;
	struct conn *wait_prev, *wait_next;   /* in io's list of those without HELLO */
};

struct task {
	int node;
	bool exited;
	int status;
	struct strbuf out[2];   /* a partial line of stdout, stderr */
	bool mid_line[2];       /* -u -l: the next byte is not at a line start */
};

struct node {
	char *name;
	long long job_id;       /* its component's job (a het step's nodes are several jobs') */
	int *tasks;
	size_t ntasks;
	struct conn *conn;
	bool done, lost, oom, closed_early, connected;
	int lost_polls;
	int *pend;              /* tasks whose exit is not printed yet */
	size_t npend;
	bool fence_in;
	long long fence_seq;
	json_t *fence_kvs;
};

struct srun_io {
	uv_loop_t loop;
	uv_tcp_t listener;
	struct conn *wait_oldest, *wait_newest;   /* connections without HELLO yet */
	int nwaiting;
	struct srun_io_opts opts;
	char key[33];
	int port;
	long long job_id, step_id;
	long long *job_ids;     /* the step's jobs: one, or a het step's components' */
	int njobs;
	char step_name[64];     /* "StepId=N.S" */
	struct task *tasks;
	int ntasks;
	struct node *nodes;
	int nnodes;
	int width;
	struct cmd_client *client;
	uv_signal_t sigs[12];
	int nsigs;
	uv_timer_t flush_timer, poll_timer, kill_timer, wait_timer, abort_timer;
	bool wait_armed;
	/* stdin */
	union {
		uv_tty_t tty;
		uv_pipe_t pipe;
	} in;
	uv_idle_t in_idle;      /* a regular file or device: read in slices */
	int in_kind;            /* 0 none, 1 stream, 2 file */
	bool in_started, in_paused, in_eof;
	bool tty_raw;
	/* signals */
	int sent[MAX_SENT_SIGNALS];
	int nsent;
	double last_intr;
	bool forcing, terminating, info_busy;
	bool ctld_final;
	double run_start;       /* when srun_io_run began */
	double ctld_final_at;
	char ctld_state[32];
	bool finished;
	bool stdout_broken;
	int exit_code;
};


/* srun_io.c */
void srun_io_send(struct conn *c, uint16_t type, uint32_t task, const void *data, uint32_t len);
void srun_io_send_json(struct conn *c, uint16_t type, json_t *obj);   /* steals obj */

/* srun_stdin.c */
extern struct srun_io *srun_stdin_tty_owner;
bool srun_stdin_wanted(struct srun_io *io);
int srun_stdin_node(struct srun_io *io);           /* -1: every node */
void srun_stdin_start(struct srun_io *io);         /* once its nodes said HELLO */
void srun_stdin_resume(struct srun_io *io);        /* after writes drained */
void srun_stdin_winsize(struct srun_io *io);       /* --pty: WINSIZE to task 0's node */

#endif
