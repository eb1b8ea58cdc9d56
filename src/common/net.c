/* The blocking side of the transport: net_call (commands, herdstepd, and the
 * worker threads behind net_call_async) and net_free_port.  See net.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "common/auth.h"
#include "common/frame.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/xmalloc.h"

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Wait for fd to be ready for events before the deadline; -1 on timeout. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ms();
		struct pollfd p = { .fd = fd, .events = events };
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		int n = poll(&p, 1, (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

static int connect_to(const char *host, int port, int64_t deadline, struct herd_error *err)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	char portstr[16];
	int fd, e, one = 1;
	socklen_t elen = sizeof(e);

	snprintf(portstr, sizeof(portstr), "%d", port);
	if ((e = getaddrinfo(host, portstr, &hints, &ai)) != 0)
		return errprintf(err, "cannot resolve %s: %s", host, gai_strerror(e));
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		freeaddrinfo(ai);
		return errprintf(err, "socket: %s", strerror(errno));
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	e = connect(fd, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	if (e < 0 && errno != EINPROGRESS)
		goto error;
	if (e < 0) {
		if (wait_fd(fd, POLLOUT, deadline) < 0)
			goto error;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) < 0 || e) {
			errno = e;
			goto error;
		}
	}
	return fd;
error:
	errprintf(err, "connect to %s:%d: %s", host, port, strerror(errno));
	close(fd);
	return -1;
}

static int io_all(int fd, void *buf, size_t len, int writing, int64_t deadline)
{
	size_t done = 0;
	while (done < len) {
		if (wait_fd(fd, writing ? POLLOUT : POLLIN, deadline) < 0)
			return -1;
		ssize_t n = writing ? send(fd, (char *)buf + done, len - done, MSG_NOSIGNAL)
				    : recv(fd, (char *)buf + done, len - done, 0);
		if (n == 0) {
			errno = ECONNRESET;
			return -1;
		}
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		done += n;
	}
	return 0;
}

int net_call(const struct net_target *to, int type, const json_t *body, int timeout_ms,
	     json_t **reply, struct herd_error *err)
{
	static atomic_uint next_id;
	int64_t deadline = now_ms() + timeout_ms;
	uint32_t id = atomic_fetch_add(&next_id, 1) + (uint32_t)getpid() * 65536u;
	unsigned char hdrbuf[FRAME_HDR_LEN], *frame = NULL;
	struct frame_hdr hdr;
	char *b, *cred, *rbody = NULL;
	size_t blen, flen;
	int fd = -1;

	*reply = NULL;
	b = frame_body_dump(body, &blen);
	cred = auth_encode(to->munge_socket, type, to->dest, b, blen, err);
	if (!cred) {
		free(b);
		return -1;
	}
	frame = frame_encode(type, id, cred, b, blen, &flen);
	free(cred);
	free(b);
	if ((fd = connect_to(to->host, to->port, deadline, err)) < 0)
		goto error;
	if (io_all(fd, frame, flen, 1, deadline) < 0) {
		errprintf(err, "send to %s:%d: %s", to->host, to->port, strerror(errno));
		goto error;
	}
	if (io_all(fd, hdrbuf, sizeof(hdrbuf), 0, deadline) < 0) {
		errprintf(err, "no reply from %s:%d: %s", to->host, to->port, strerror(errno));
		goto error;
	}
	/* A reply may be larger than any request: squeue over 100,000 jobs. */
	if (frame_hdr_decode(hdrbuf, FRAME_MAX_REPLY, &hdr, err) < 0)
		goto error;
	if (hdr.type != (type | MSG_REPLY) || hdr.req_id != id || hdr.cred_len) {
		errprintf(err, "unexpected reply from %s:%d", to->host, to->port);
		goto error;
	}
	rbody = xmalloc(hdr.body_len + 1);
	if (io_all(fd, rbody, hdr.body_len, 0, deadline) < 0) {
		errprintf(err, "reply from %s:%d cut short: %s", to->host, to->port, strerror(errno));
		goto error;
	}
	if (!(*reply = frame_body_parse(rbody, hdr.body_len, err)))
		goto error;
	free(rbody);
	free(frame);
	close(fd);
	return 0;
error:
	free(rbody);
	free(frame);
	if (fd >= 0)
		close(fd);
	return -1;
}

int net_free_port(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	if (fd < 0)
		return -1;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	close(fd);
	return port;
}
