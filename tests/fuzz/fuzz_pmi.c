/* The PMI-1 and PMI-2 wire protocols herdstepd (root) serves to a job's
 * tasks (stepd/pmi.c): a real server on a libuv loop, the input written
 * into the task's end of its socket as an MPI library would, the answers
 * read back, then the task's end closed.  A one-node step: this node's
 * fence is the step's, merged at once. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>
#include "stepd/pmi.h"
#include "fuzz.h"

static struct pmi_server *server;

static void on_fence(void *arg, int seq, json_t *kvs)
{
	pmi_fence_done(server, seq, kvs);
}

static void on_abort(void *arg, int rank, int code, const char *message)
{
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

/* Read and drop what the server answered; false once it closed. */
static bool drain(int fd)
{
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n > 0)
			continue;
		return n < 0 && (errno == EAGAIN || errno == EINTR);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uv_loop_t loop;
	static bool loop_ready;
	if (!loop_ready) {
		uv_loop_init(&loop);
		loop_ready = true;
	}
	int ranks[1] = { 0 };
	struct pmi_step_info info = {
		.job_id = 7, .step_id = 0, .size = 1, .num_nodes = 1, .node_id = 0,
		.ranks = ranks, .nranks = 1, .node_names = "n1", .tasks_per_node = "1",
		.uid = getuid(), .gid = getgid(),
	};
	struct herd_error err;
	server = pmi_create(&loop, PMI_PMI1, &info, on_fence, on_abort, NULL, &err);
	if (!server)
		abort();
	char **env = NULL;
	size_t envc = 0;
	int fd;
	if (pmi_task_env(server, 0, &env, &envc, &fd, &err) < 0)
		abort();
	for (size_t i = 0; i < envc; i++)
		free(env[i]);
	free(env);
	fd = dup(fd);            /* the task's end, as the forked task holds it */
	pmi_task_forked(server, 0, 1);
	fcntl(fd, F_SETFL, O_NONBLOCK);

	size_t off = 0;
	bool alive = true;
	for (int round = 0; alive; round++) {
		if (off < size) {
			ssize_t n = write(fd, data + off, size - off);
			if (n > 0)
				off += n;
			else if (n < 0 && errno != EAGAIN)
				off = size;      /* the server closed its end */
			if (off == size)
				shutdown(fd, SHUT_WR);
		} else if (!size && round == 0)
			shutdown(fd, SHUT_WR);
		uv_run(&loop, UV_RUN_NOWAIT);
		alive = drain(fd);
		if (round > 1000000)
			abort();   /* the server stopped reading: a hang */
	}
	close(fd);
	pmi_destroy(server);
	server = NULL;
	uv_run(&loop, UV_RUN_NOWAIT);
	return 0;
}
