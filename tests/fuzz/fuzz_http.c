/* HTTP requests to herdrestd (restd/http.c): the input is what a client
 * sends on a connection, served by libmicrohttpd with herdrestd's own
 * request handler and routing (herdrestd forwards tokens to the controller,
 * which checks them: fuzz_jwt).  The controller is unreachable (no munged
 * socket), so requests that reach it end in an error answer.
 * http.c is included whole for its static handler. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include "restd/http.c"
#include "fuzz.h"

static struct restd restd = {
	.ctld = { "127.0.0.1", 1, "cluster:ctld", "/nonexistent/munge.socket" },
	.cluster = "cluster",
	.metrics_max_age = 10,
	.call_timeout_ms = 100,
};
static struct restd_server srv = { NULL, &restd };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	/* herdrestd's options, but polled from here instead of a thread per
	 * connection, and connections handed over instead of accepted. */
	srv.mhd = MHD_start_daemon(
		MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, &srv,
		MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONN_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
		MHD_OPTION_END);
	if (!srv.mhd)
		abort();
	return 0;
}

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
	int sv[2];
	struct sockaddr_in peer = { .sin_family = AF_INET, .sin_port = htons(40000),
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		abort();
	if (MHD_add_connection(srv.mhd, sv[0], (struct sockaddr *)&peer, sizeof(peer)) != MHD_YES)
		abort();
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	size_t off = 0;
	bool alive = true;
	if (!size)
		shutdown(sv[1], SHUT_WR);
	for (int round = 0; alive; round++) {
		if (off < size) {
			ssize_t n = write(sv[1], data + off, size - off);
			if (n > 0)
				off += n;
			else if (n < 0 && errno != EAGAIN)
				off = size;
			if (off == size)
				shutdown(sv[1], SHUT_WR);
		}
		MHD_run(srv.mhd);
		alive = drain(sv[1]);
		if (round > 100000)
			abort();   /* the server neither answers nor closes: a hang */
	}
	close(sv[1]);
	return 0;
}
