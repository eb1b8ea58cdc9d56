/* The PMI-1 ("simple PMI", MPICH's libpmi) and PMI-2 wire protocols
 * herdstepd serves its tasks over one socketpair each, and the fence that
 * joins this node's key-value puts to the step's.  A connection speaks
 * PMI-1 lines ("cmd=put kvsname=k key=x value=y\n") until a client asks for
 * version 2 (or starts with a PMI-2 length header), then PMI-2 frames
 * ("27    cmd=kvs-fence;" ...).  The PMIx server is pmix.c. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include "common/hostlist.h"
#include "common/log.h"
#include "common/stepio.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "stepd/pmi.h"
#include "stepd/pmi_kvs.h"

/* A client that sends more than this without a complete command is not a
 * PMI library: MPICH's longest command is 1024-byte values plus keys. */
#define PMI_MAX_MSG 65536
/* What we tell PMI-1 clients in get_maxes (MPICH's own defaults). */
#define PMI_KVSNAME_MAX 256
#define PMI_KEYLEN_MAX 64
#define PMI_VALLEN_MAX 1024
/* This node's puts of one fence go to srun in one step I/O message. */
#define PMI_FENCE_MAX_BYTES (STEPIO_MAX_PAYLOAD - 64)

enum pmi_proto { PROTO_PMI1, PROTO_PMI2 };

struct pmi_conn {
	struct pmi_server *s;
	int local, rank;
	int fd, child_fd;
	uv_poll_t poll;
	bool open;              /* fd is being watched */
	enum pmi_proto proto;
	char *buf;
	size_t len, cap;
	int fences;             /* fences this task entered */
	bool waiting;           /* inside fence number `fences - 1` */
	char *wait_key;         /* PMI-2 info-getnodeattr with wait=TRUE */
	bool mcmd;              /* inside a PMI-1 "mcmd=" block (spawn) */
	bool started;           /* its first byte came */
	bool refused;           /* a put was refused (logged once) */
};

struct pmi_server {
	uv_loop_t *loop;
	enum pmi_kind kind;
	uint32_t job_id, step_id;
	int size, num_nodes, node_id, nranks;
	char jobid[32];          /* "job.step": PMI_JOBID, the KVS name */
	char *mapping;           /* PMI_process_mapping */
	struct pmi_conn *conns;
	struct pmi_kvs_budget held;   /* by the three sets below */
	struct pmi_kvs kvs;      /* the step's merged key-values */
	struct pmi_kvs pending;  /* this node's puts since the last fence */
	struct pmi_kvs node_attrs;   /* PMI-2 info-putnodeattr */
	int fence_seq;           /* the fence being gathered */
	int fence_out;           /* the fence srun's merge is awaited for, -1 none */
	pmi_fence_f fence;
	pmi_abort_f on_abort;
	void *arg;
	int closing;             /* handles not yet closed */
	bool destroyed;
	struct pmix_state *px;
};

int pmi_kind_parse(const char *name)
{
	static const struct { const char *name; enum pmi_kind kind; } names[] = {
		{ "none", PMI_NONE }, { "pmi1", PMI_PMI1 }, { "pmi", PMI_PMI1 },
		{ "pmi2", PMI_PMI2 }, { "pmix", PMI_PMIX }, { "pmix_v2", PMI_PMIX },
		{ "pmix_v3", PMI_PMIX }, { "pmix_v4", PMI_PMIX }, { "pmix_v5", PMI_PMIX },
	};
	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(name, names[i].name))
			return names[i].kind;
	return -1;
}

const char *pmi_kind_name(enum pmi_kind kind)
{
	static const char *const names[] = { "none", "pmi1", "pmi2", "pmix" };
	return kind >= 0 && kind <= PMI_PMIX ? names[kind] : "none";
}

void pmi_strv_push(char ***v, size_t *n, char *item)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = item;
	(*v)[*n] = NULL;
}

/* "2(x3),1" -> counts per node; -1 if it does not parse or does not give
 * exactly num_nodes nodes. */
static int parse_tasks_per_node(const char *s, int num_nodes, int *out)
{
	int n = 0;
	while (s && *s) {
		char *end;
		long count = strtol(s, &end, 10), rep = 1;
		if (end == s || count < 0)
			return -1;
		s = end;
		if (!strncmp(s, "(x", 2)) {
			rep = strtol(s + 2, &end, 10);
			if (end == s + 2 || *end != ')' || rep < 1)
				return -1;
			s = end + 1;
		}
		for (long i = 0; i < rep; i++) {
			if (n >= num_nodes)
				return -1;
			out[n++] = count;
		}
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return n == num_nodes ? 0 : -1;
}

/* The node of every rank, as the controller lays tasks out: block fills
 * node 0 first, cyclic deals one task per node round-robin, plane=P deals
 * blocks of P; a node that is full is skipped. */
static int layout_nodes(int size, int num_nodes, const int *counts, const char *dist, int *node_of)
{
	int plane = 0;
	if (!dist || !*dist || !strncmp(dist, "block", 5))
		plane = -1;
	else if (!strncmp(dist, "cyclic", 6))
		plane = 1;
	else if (!strncmp(dist, "plane=", 6))
		plane = atoi(dist + 6);
	else
		plane = -1;       /* arbitrary and the rest: as block */
	if (plane == 0)
		return -1;
	int *left = xmalloc(num_nodes * sizeof(*left));
	int total = 0;
	for (int i = 0; i < num_nodes; i++)
		total += left[i] = counts[i];
	if (total != size) {
		free(left);
		return -1;
	}
	int rank = 0;
	if (plane < 0) {
		for (int n = 0; n < num_nodes; n++)
			for (int k = 0; k < counts[n]; k++)
				node_of[rank++] = n;
	} else {
		while (rank < size)
			for (int n = 0; n < num_nodes && rank < size; n++)
				for (int k = 0; k < plane && left[n] > 0 && rank < size; k++, left[n]--)
					node_of[rank++] = n;
	}
	free(left);
	return 0;
}

int pmi_layout(int size, int num_nodes, const char *tasks_per_node, const char *distribution,
	       int *node_of)
{
	if (size < 1 || num_nodes < 1)
		return -1;
	int *counts = xmalloc(num_nodes * sizeof(*counts));
	int rc = parse_tasks_per_node(tasks_per_node, num_nodes, counts);
	if (rc == 0)
		rc = layout_nodes(size, num_nodes, counts, distribution, node_of);
	free(counts);
	return rc;
}

struct map_block { int start, nodes, count; };

/* MPICH's PMI_process_mapping: "(vector,(start,nodes,count),...)", each
 * block meaning `count` consecutive ranks on each of the `nodes` nodes from
 * `start`; MPICH repeats the vector until every rank has a node, so a
 * cyclic layout is one block "(0,N,1)". */
char *pmi_process_mapping(int size, int num_nodes, const char *tasks_per_node,
			  const char *distribution)
{
	if (size < 1 || num_nodes < 1)
		return NULL;
	int *node_of = xmalloc(size * sizeof(*node_of));
	struct map_block *b = xmalloc(size * sizeof(*b));
	char *out = NULL;
	int nb = 0;
	if (pmi_layout(size, num_nodes, tasks_per_node, distribution, node_of) < 0)
		goto done;
	for (int r = 0; r < size;) {
		int n = node_of[r], c = 0;
		while (r + c < size && node_of[r + c] == n)
			c++;
		if (nb && b[nb - 1].count == c && b[nb - 1].start + b[nb - 1].nodes == n)
			b[nb - 1].nodes++;
		else
			b[nb++] = (struct map_block){ n, 1, c };
		r += c;
	}
	/* The shortest prefix of blocks whose repetition gives the layout. */
	int period = nb;
	for (int p = 1; p < nb; p++) {
		int r = 0;
		bool ok = true;
		for (int i = 0; ok && r < size; i = (i + 1) % p)
			for (int j = 0; ok && j < b[i].nodes; j++)
				for (int k = 0; ok && k < b[i].count && r < size; k++)
					ok = node_of[r++] == b[i].start + j;
		if (ok) {
			period = p;
			break;
		}
	}
	struct strbuf sb = { 0 };
	strbuf_adds(&sb, "(vector");
	for (int i = 0; i < period; i++) {
		char item[64];
		snprintf(item, sizeof(item), ",(%d,%d,%d)", b[i].start, b[i].nodes, b[i].count);
		strbuf_adds(&sb, item);
	}
	strbuf_adds(&sb, ")");
	out = sb.s;
done:
	free(node_of);
	free(b);
	return out;
}

/* ---- connections ---- */

static void conn_close(struct pmi_conn *c, const char *why);
static void fence_check(struct pmi_server *s);

static void conn_send(struct pmi_conn *c, const char *msg, size_t len)
{
	if (!c->open)
		return;
	while (len) {
		ssize_t n = write(c->fd, msg, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* The task does not read its answers (or is gone): a
			 * well-behaved client always waits for each one. */
			conn_close(c, n < 0 ? strerror(errno) : "short write");
			return;
		}
		msg += n;
		len -= n;
	}
}

/* PMI-1: one line, "cmd=x a=b\n". */
static void pmi1_reply(struct pmi_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pmi1_reply(struct pmi_conn *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = xvasprintf(fmt, ap);
	va_end(ap);
	char *msg = xasprintf("%s\n", line);
	conn_send(c, msg, strlen(msg));
	free(line);
	free(msg);
}

/* PMI-2 frame: the payload length in 6 characters, left-aligned and
 * space-padded as MPICH writes it, then "cmd=x;k=v;...". */
static void pmi2_send(struct pmi_conn *c, const char *payload)
{
	size_t len = strlen(payload);
	char head[24];   /* len is under PMI_MAX_MSG: 6 characters */
	snprintf(head, sizeof(head), "%-6zu", len);
	char *msg = xmalloc(len + 7);
	memcpy(msg, head, 6);
	memcpy(msg + 6, payload, len);
	conn_send(c, msg, len + 6);
	free(msg);
}

/* PMI-2 values escape ';' as ";;". */
static void pmi2_add(struct strbuf *sb, const char *key, const char *value)
{
	strbuf_adds(sb, key);
	strbuf_adds(sb, "=");
	for (const char *p = value; *p; p++)
		strbuf_add(sb, *p == ';' ? ";;" : p, *p == ';' ? 2 : 1);
	strbuf_adds(sb, ";");
}

/* A sentence as one PMI-1 word (its values end at a space). */
static char *pmi1_word(const char *text)
{
	char *w = xstrdup(text);
	for (char *p = w; *p; p++)
		if (*p == ' ' || *p == '\t' || *p == '=')
			*p = '_';
	return w;
}

/* PMI-2: an error answer with its sentence. */
static void pmi2_reply_err(struct pmi_conn *c, const char *cmd, const char *text)
{
	struct strbuf sb = { 0 };
	strbuf_adds(&sb, "cmd=");
	strbuf_adds(&sb, cmd);
	strbuf_adds(&sb, ";rc=-1;");
	pmi2_add(&sb, "errmsg", text);
	pmi2_send(c, sb.s);
	free(sb.s);
}

/* A task's put into one of the server's sets; the first refusal of each
 * task is logged (a task that goes on putting must not fill root's log). */
static int pmi_put(struct pmi_conn *c, struct pmi_kvs *kvs, const char *key, const char *value,
		   struct herd_error *err)
{
	if (pmi_kvs_put(kvs, key, value, err) == 0)
		return 0;
	if (!c->refused)
		log_error("pmi: task %d: put of %.64s refused: %s", c->rank, key, err->text);
	c->refused = true;
	return -1;
}

/* Key-value pairs of one command.  PMI-1: space-separated "k=v" (a value
 * may hold '='); PMI-2: ';'-terminated with ";;" for a ';' in a value. */
struct pmi_args {
	int n;
	char *key[32], *value[32];
};

static const char *arg_get(const struct pmi_args *a, const char *key)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->key[i], key))
			return a->value[i];
	return NULL;
}

static int parse_pmi1(char *line, struct pmi_args *a)
{
	a->n = 0;
	for (char *save = NULL, *tok = strtok_r(line, " \t\r", &save); tok;
	     tok = strtok_r(NULL, " \t\r", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq || eq == tok || a->n == 32)
			return -1;
		*eq = 0;
		a->key[a->n] = tok;
		a->value[a->n++] = eq + 1;
	}
	return a->n ? 0 : -1;
}

static int parse_pmi2(char *msg, struct pmi_args *a)
{
	a->n = 0;
	char *p = msg;
	while (*p) {
		char *key = p, *eq = strchr(p, '=');
		if (!eq || eq == key || a->n == 32)
			return -1;
		*eq = 0;
		char *v = eq + 1, *w = v;
		p = v;
		for (;;) {
			if (!*p)
				return -1;       /* a pair must end with ';' */
			if (*p == ';' && p[1] == ';') {
				*w++ = ';';
				p += 2;
			} else if (*p == ';') {
				p++;
				break;
			} else
				*w++ = *p++;
		}
		*w = 0;
		a->key[a->n] = key;
		a->value[a->n++] = v;
	}
	return a->n && !strcmp(a->key[0], "cmd") ? 0 : -1;
}

static const char *kvs_lookup(struct pmi_server *s, const char *key)
{
	if (!strcmp(key, "PMI_process_mapping") && s->mapping)
		return s->mapping;
	const char *v = pmi_kvs_get(&s->kvs, key);
	if (!v)
		v = pmi_kvs_get(&s->pending, key);
	return v;
}

static void fence_enter(struct pmi_conn *c)
{
	if (c->waiting) {
		conn_close(c, "a second fence before the first ended");
		return;
	}
	c->fences++;
	c->waiting = true;
	fence_check(c->s);
}

static void do_abort(struct pmi_conn *c, int code, const char *msg)
{
	struct pmi_server *s = c->s;
	log_info("pmi: task %d aborted the step (code %d%s%s)", c->rank, code, msg ? ": " : "",
		 msg ? msg : "");
	if (s->on_abort)
		s->on_abort(s->arg, c->rank, code, msg ? msg : "");
}

/* ---- PMI-1 ---- */

static int pmi1_handle(struct pmi_conn *c, struct pmi_args *a)
{
	struct pmi_server *s = c->s;
	const char *cmd = arg_get(a, "cmd");
	if (!cmd)
		return -1;
	if (!strcmp(cmd, "init")) {
		const char *ver = arg_get(a, "pmi_version");
		int v = ver ? atoi(ver) : 1;
		if (v == 2) {
			/* MPICH's PMI-2 client opens with this PMI-1 line, then
			 * speaks PMI-2 frames. */
			pmi1_reply(c, "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0");
			c->proto = PROTO_PMI2;
		} else if (v == 1)
			/* 1.1, whichever 1.x was asked: the commands are the same. */
			pmi1_reply(c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
		else
			pmi1_reply(c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1");
	} else if (!strcmp(cmd, "get_maxes"))
		pmi1_reply(c, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d rc=0",
			   PMI_KVSNAME_MAX, PMI_KEYLEN_MAX, PMI_VALLEN_MAX);
	else if (!strcmp(cmd, "get_appnum"))
		pmi1_reply(c, "cmd=appnum appnum=0 rc=0");
	else if (!strcmp(cmd, "get_my_kvsname"))
		pmi1_reply(c, "cmd=my_kvsname kvsname=%s rc=0", s->jobid);
	else if (!strcmp(cmd, "get_universe_size"))
		pmi1_reply(c, "cmd=universe_size size=%d rc=0", s->size);
	else if (!strcmp(cmd, "barrier_in"))
		fence_enter(c);
	else if (!strcmp(cmd, "put")) {
		const char *key = arg_get(a, "key"), *value = arg_get(a, "value");
		if (!key || !value || strlen(key) >= PMI_KEYLEN_MAX || strlen(value) >= PMI_VALLEN_MAX) {
			pmi1_reply(c, "cmd=put_result rc=-1 msg=invalid_key_or_value");
			return 0;
		}
		struct herd_error err;
		if (pmi_put(c, &s->pending, key, value, &err) < 0) {
			char *msg = pmi1_word(err.text);
			pmi1_reply(c, "cmd=put_result rc=-1 msg=%s", msg);
			free(msg);
			return 0;
		}
		pmi1_reply(c, "cmd=put_result rc=0");
	} else if (!strcmp(cmd, "get")) {
		const char *key = arg_get(a, "key");
		const char *value = key ? kvs_lookup(s, key) : NULL;
		if (value && strpbrk(value, " \t\r\n"))
			/* A PMI-2 task's value PMI-1 cannot carry on its line. */
			pmi1_reply(c, "cmd=get_result rc=-1 msg=value_of_%s_has_spaces", key);
		else if (value)
			pmi1_reply(c, "cmd=get_result rc=0 value=%s", value);
		else
			pmi1_reply(c, "cmd=get_result rc=-1 msg=key_%s_not_found", key ? key : "");
	} else if (!strcmp(cmd, "finalize"))
		pmi1_reply(c, "cmd=finalize_ack rc=0");
	else if (!strcmp(cmd, "abort")) {
		const char *code = arg_get(a, "exitcode");
		do_abort(c, code ? atoi(code) : 1, arg_get(a, "message"));
	} else if (!strcmp(cmd, "publish_name"))
		pmi1_reply(c, "cmd=publish_result rc=-1 msg=publish_name_is_not_supported");
	else if (!strcmp(cmd, "unpublish_name"))
		pmi1_reply(c, "cmd=unpublish_result rc=-1 msg=unpublish_name_is_not_supported");
	else if (!strcmp(cmd, "lookup_name"))
		pmi1_reply(c, "cmd=lookup_result rc=-1 msg=lookup_name_is_not_supported");
	else if (!strcmp(cmd, "initack"))
		/* PMI_PORT clients (not ours: we give PMI_FD) identify themselves. */
		pmi1_reply(c, "cmd=initack rc=0\ncmd=set size=%d\ncmd=set rank=%d\ncmd=set debug=0",
			   s->size, c->rank);
	else
		pmi1_reply(c, "cmd=%s_result rc=-1 msg=unknown_command", cmd);
	return 0;
}

/* ---- PMI-2 ---- */

static void pmi2_reply_rc(struct pmi_conn *c, const char *cmd, int rc)
{
	char *msg = xasprintf("cmd=%s;rc=%d;", cmd, rc);
	pmi2_send(c, msg);
	free(msg);
}

static void pmi2_found(struct pmi_conn *c, const char *cmd, const char *value)
{
	struct strbuf sb = { 0 };
	strbuf_adds(&sb, "cmd=");
	strbuf_adds(&sb, cmd);
	strbuf_adds(&sb, value ? ";found=TRUE;" : ";found=FALSE;");
	if (value)
		pmi2_add(&sb, "value", value);
	strbuf_adds(&sb, "rc=0;");
	pmi2_send(c, sb.s);
	free(sb.s);
}

static int pmi2_handle(struct pmi_conn *c, struct pmi_args *a)
{
	struct pmi_server *s = c->s;
	const char *cmd = a->value[0];
	if (!strcmp(cmd, "fullinit")) {
		char *msg = xasprintf("cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;"
				      "rank=%d;size=%d;appnum=0;debugged=FALSE;pmiverbose=FALSE;",
				      c->rank, s->size);
		pmi2_send(c, msg);
		free(msg);
	} else if (!strcmp(cmd, "job-getid")) {
		char *msg = xasprintf("cmd=job-getid-response;jobid=%s;rc=0;", s->jobid);
		pmi2_send(c, msg);
		free(msg);
	} else if (!strcmp(cmd, "kvs-put")) {
		const char *key = arg_get(a, "key"), *value = arg_get(a, "value");
		if (!key || !value) {
			pmi2_reply_rc(c, "kvs-put-response", -1);
			return 0;
		}
		struct herd_error err;
		if (pmi_put(c, &s->pending, key, value, &err) < 0) {
			pmi2_reply_err(c, "kvs-put-response", err.text);
			return 0;
		}
		pmi2_reply_rc(c, "kvs-put-response", 0);
	} else if (!strcmp(cmd, "kvs-fence"))
		fence_enter(c);
	else if (!strcmp(cmd, "kvs-get")) {
		const char *key = arg_get(a, "key");
		pmi2_found(c, "kvs-get-response", key ? kvs_lookup(s, key) : NULL);
	} else if (!strcmp(cmd, "info-getjobattr")) {
		const char *key = arg_get(a, "key");
		const char *value = NULL;
		char num[16];
		if (key && !strcmp(key, "PMI_process_mapping"))
			value = s->mapping;
		else if (key && !strcmp(key, "universeSize")) {
			snprintf(num, sizeof(num), "%d", s->size);
			value = num;
		}
		pmi2_found(c, "info-getjobattr-response", value);
	} else if (!strcmp(cmd, "info-putnodeattr")) {
		const char *key = arg_get(a, "key"), *value = arg_get(a, "value");
		if (!key || !value) {
			pmi2_reply_rc(c, "info-putnodeattr-response", -1);
			return 0;
		}
		struct herd_error err;
		if (pmi_put(c, &s->node_attrs, key, value, &err) < 0) {
			pmi2_reply_err(c, "info-putnodeattr-response", err.text);
			return 0;
		}
		pmi2_reply_rc(c, "info-putnodeattr-response", 0);
		/* Release the tasks waiting for it. */
		for (int i = 0; i < s->nranks; i++) {
			struct pmi_conn *w = &s->conns[i];
			if (w->wait_key && !strcmp(w->wait_key, key)) {
				free(w->wait_key);
				w->wait_key = NULL;
				pmi2_found(w, "info-getnodeattr-response", value);
			}
		}
	} else if (!strcmp(cmd, "info-getnodeattr")) {
		const char *key = arg_get(a, "key"), *wait = arg_get(a, "wait");
		const char *value = key ? pmi_kvs_get(&s->node_attrs, key) : NULL;
		if (!value && key && wait && !strcmp(wait, "TRUE") && !c->wait_key)
			c->wait_key = xstrdup(key);
		else
			pmi2_found(c, "info-getnodeattr-response", value);
	} else if (!strcmp(cmd, "finalize"))
		pmi2_reply_rc(c, "finalize-response", 0);
	else if (!strcmp(cmd, "abort")) {
		do_abort(c, 1, arg_get(a, "msg"));
	} else {
		char *resp = xasprintf("%s-response", cmd);
		/* name-publish, spawn, job-connect...: not served. */
		pmi2_reply_err(c, resp, "unsupported command");
		free(resp);
	}
	return 0;
}

/* Take every complete command out of c->buf. */
static void conn_parse(struct pmi_conn *c)
{
	size_t off = 0;
	while (c->open && off < c->len) {
		char *p = c->buf + off;
		size_t left = c->len - off;
		struct pmi_args a;
		/* A PMI-2 client that skips the PMI-1 init line: its very first
		 * byte is a frame's length. */
		if (!c->started && isdigit((unsigned char)*p))
			c->proto = PROTO_PMI2;
		c->started = true;
		if (c->proto == PROTO_PMI1) {
			char *nl = memchr(p, '\n', left);
			if (!nl)
				break;
			*nl = 0;
			off += nl - p + 1;
			if (memchr(p, 0, nl - p)) {
				conn_close(c, "a NUL byte in a command");
				break;
			}
			/* mcmd=spawn ... endcmd: multi-line, and not served. */
			if (!strncmp(p, "mcmd=", 5)) {
				c->mcmd = true;
				continue;
			}
			if (c->mcmd) {
				if (!strcmp(p, "endcmd")) {
					c->mcmd = false;
					pmi1_reply(c, "cmd=spawn_result rc=-1 msg=spawn_is_not_supported");
				}
				continue;
			}
			if (parse_pmi1(p, &a) < 0 || pmi1_handle(c, &a) < 0) {
				conn_close(c, "a malformed PMI-1 command");
				break;
			}
		} else {
			if (left < 6)
				break;
			char head[7];
			memcpy(head, p, 6);
			head[6] = 0;
			char *end;
			long n = strtol(head, &end, 10);
			while (*end == ' ')
				end++;
			if (*end || end == head || n <= 0 || n > PMI_MAX_MSG) {
				conn_close(c, "a malformed PMI-2 length");
				break;
			}
			if (left < 6 + (size_t)n)
				break;
			char *msg = xstrndup(p + 6, n);
			off += 6 + n;
			if (strlen(msg) != (size_t)n || parse_pmi2(msg, &a) < 0 || pmi2_handle(c, &a) < 0) {
				free(msg);
				conn_close(c, "a malformed PMI-2 command");
				break;
			}
			free(msg);
		}
	}
	if (!c->open)
		return;
	memmove(c->buf, c->buf + off, c->len - off);
	c->len -= off;
	if (c->len >= PMI_MAX_MSG)
		conn_close(c, "a command over 64 KiB");
}

static void on_readable(uv_poll_t *h, int status, int events)
{
	struct pmi_conn *c = h->data;
	if (status < 0) {
		conn_close(c, uv_strerror(status));
		return;
	}
	if (c->cap - c->len < 4096) {
		c->cap = c->cap ? c->cap * 2 : 8192;
		c->buf = xrealloc(c->buf, c->cap);
	}
	ssize_t n = read(c->fd, c->buf + c->len, c->cap - c->len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c, NULL);
		return;
	}
	c->len += n;
	conn_parse(c);
}

static void on_poll_closed(uv_handle_t *h)
{
	struct pmi_conn *c = h->data;
	struct pmi_server *s = c->s;
	close(c->fd);
	c->fd = -1;
	if (--s->closing == 0 && s->destroyed) {
		free(s->conns);
		free(s);
	}
}

/* why NULL: the task closed it (exited or finalized). */
static void conn_close(struct pmi_conn *c, const char *why)
{
	if (!c->open)
		return;
	if (why)
		log_error("pmi: task %d: closing its PMI connection: %s", c->rank, why);
	c->open = false;
	c->waiting = false;
	uv_poll_stop(&c->poll);
	c->s->closing++;
	uv_close((uv_handle_t *)&c->poll, on_poll_closed);
	/* The others' fence no longer waits for this task. */
	if (!c->s->destroyed)
		fence_check(c->s);
}

/* ---- the fence ---- */

int pmi_fence_begin(struct pmi_server *s, json_t *kvs)
{
	int seq = s->fence_seq++;
	if (s->fence)
		s->fence(s->arg, seq, kvs);
	else
		json_decref(kvs);
	return seq;
}

/* When every open connection waits in fence number fence_seq, hand this
 * node's puts on. */
static void fence_check(struct pmi_server *s)
{
	int entered = 0, open = 0;
	for (int i = 0; i < s->nranks; i++) {
		struct pmi_conn *c = &s->conns[i];
		if (!c->open)
			continue;
		open++;
		if (c->waiting && c->fences == s->fence_seq + 1)
			entered++;
	}
	if (!open || entered < open)
		return;
	json_t *kvs = pmi_kvs_take(&s->pending);
	s->fence_out = s->fence_seq;
	pmi_fence_begin(s, kvs);
}

void pmi_fence_done(struct pmi_server *s, int seq, json_t *kvs)
{
	if (s->px) {
		pmix_state_fence_done(s->px, seq, kvs);
		return;
	}
	/* srun is the user's: only the merge of the fence it was sent, and
	 * only what fits the step's space. */
	if (seq != s->fence_out) {
		log_error("pmi: a merge for fence %d, which is not awaited", seq);
		json_decref(kvs);
		return;
	}
	s->fence_out = -1;
	struct herd_error err = { "" };
	int rc = pmi_kvs_merge(&s->kvs, kvs, &err);
	json_decref(kvs);
	if (rc < 0)
		log_error("pmi: fence %d fails: %s", seq, err.text);
	for (int i = 0; i < s->nranks; i++) {
		struct pmi_conn *c = &s->conns[i];
		if (!c->open || !c->waiting || c->fences != seq + 1)
			continue;
		c->waiting = false;
		if (rc == 0 && c->proto == PROTO_PMI1)
			pmi1_reply(c, "cmd=barrier_out rc=0");
		else if (rc == 0)
			pmi2_reply_rc(c, "kvs-fence-response", 0);
		else if (c->proto == PROTO_PMI1) {
			char *msg = pmi1_word(err.text);
			pmi1_reply(c, "cmd=barrier_out rc=-1 msg=%s", msg);
			free(msg);
		} else
			pmi2_reply_err(c, "kvs-fence-response", err.text);
	}
}

void pmi_report_abort(struct pmi_server *s, int rank, int code, const char *message)
{
	if (s->on_abort)
		s->on_abort(s->arg, rank, code, message ? message : "");
}

/* ---- the server ---- */

struct pmi_server *pmi_create(uv_loop_t *loop, enum pmi_kind kind,
			      const struct pmi_step_info *info, pmi_fence_f fence,
			      pmi_abort_f on_abort, void *arg, struct herd_error *err)
{
	if (info->size < 1 || info->num_nodes < 1 || info->nranks < 0 || info->node_id < 0 ||
	    info->node_id >= info->num_nodes || info->nranks > info->size) {
		errprintf(err, "Invalid step layout for PMI (%d tasks on %d nodes)", info->size,
			  info->num_nodes);
		return NULL;
	}
	for (int i = 0; i < info->nranks; i++)
		if (info->ranks[i] < 0 || info->ranks[i] >= info->size) {
			errprintf(err, "Invalid task rank %d for PMI (the step has %d tasks)",
				  info->ranks[i], info->size);
			return NULL;
		}
	struct pmi_server *s = xmalloc(sizeof(*s));
	s->loop = loop;
	s->kind = kind;
	s->job_id = info->job_id;
	s->step_id = info->step_id;
	s->size = info->size;
	s->num_nodes = info->num_nodes;
	s->node_id = info->node_id;
	s->nranks = kind == PMI_NONE ? 0 : info->nranks;
	snprintf(s->jobid, sizeof(s->jobid), "%u.%u", info->job_id, info->step_id);
	s->fence = fence;
	s->on_abort = on_abort;
	s->arg = arg;
	pmi_kvs_init(&s->kvs, &s->held, 0);
	pmi_kvs_init(&s->pending, &s->held, PMI_FENCE_MAX_BYTES);
	pmi_kvs_init(&s->node_attrs, &s->held, 0);
	s->fence_out = -1;
	s->conns = xmalloc((s->nranks ? s->nranks : 1) * sizeof(*s->conns));
	if (kind == PMI_NONE)
		return s;
	s->mapping = pmi_process_mapping(info->size, info->num_nodes, info->tasks_per_node,
					 info->distribution);
	if (s->mapping) {
		/* A map that puts this node's tasks elsewhere is worse than none
		 * (MPICH then finds its node-mates by host name): MPICH would
		 * wait on shared memory with tasks that are not here. */
		int *node_of = xmalloc(info->size * sizeof(*node_of));
		pmi_layout(info->size, info->num_nodes, info->tasks_per_node, info->distribution,
			   node_of);
		for (int i = 0; i < info->nranks && s->mapping; i++)
			if (node_of[info->ranks[i]] != info->node_id) {
				log_warn("pmi: the layout '%s' (%s) puts task %d on node %d, not %d: "
					 "no PMI_process_mapping", info->tasks_per_node,
					 info->distribution ? info->distribution : "block",
					 info->ranks[i], node_of[info->ranks[i]], info->node_id);
				free(s->mapping);
				s->mapping = NULL;
			}
		free(node_of);
	} else
		log_warn("pmi: no PMI_process_mapping for tasks_per_node '%s' (%s)",
			 info->tasks_per_node ? info->tasks_per_node : "",
			 info->distribution ? info->distribution : "block");
	for (int i = 0; i < s->nranks; i++) {
		s->conns[i].s = s;
		s->conns[i].local = i;
		s->conns[i].rank = info->ranks[i];
		s->conns[i].fd = s->conns[i].child_fd = -1;
	}
	if (kind == PMI_PMIX) {
		s->px = pmix_state_create(s, loop, info, err);
		if (!s->px)
			goto error;
		return s;
	}
	for (int i = 0; i < s->nranks; i++) {
		struct pmi_conn *c = &s->conns[i];
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
			errprintf(err, "socketpair() for PMI: %s", strerror(errno));
			goto error;
		}
		c->fd = sv[0];
		c->child_fd = sv[1];
		fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
		int rc = uv_poll_init(loop, &c->poll, c->fd);
		if (rc < 0) {
			close(sv[0]);
			close(sv[1]);
			c->fd = c->child_fd = -1;
			errprintf(err, "Cannot watch a PMI socket: %s", uv_strerror(rc));
			goto error;
		}
		c->poll.data = c;
		c->open = true;
		uv_poll_start(&c->poll, UV_READABLE, on_readable);
	}
	return s;
error:
	pmi_destroy(s);
	return NULL;
}

int pmi_task_env(struct pmi_server *s, int local, char ***env, size_t *envc, int *keep_fd,
		 struct herd_error *err)
{
	*keep_fd = -1;
	if (s->kind == PMI_NONE)
		return 0;
	if (local < 0 || local >= s->nranks)
		return errprintf(err, "No local task %d for PMI", local);
	struct pmi_conn *c = &s->conns[local];
	if (s->px)
		return pmix_state_task_env(s->px, local, env, envc, err);
	if (c->child_fd < 0)
		return errprintf(err, "Task %d's PMI socket is gone", c->rank);
	*keep_fd = c->child_fd;
	pmi_strv_push(env, envc, xasprintf("PMI_FD=%d", c->child_fd));
	pmi_strv_push(env, envc, xasprintf("PMI_RANK=%d", c->rank));
	pmi_strv_push(env, envc, xasprintf("PMI_SIZE=%d", s->size));
	pmi_strv_push(env, envc, xasprintf("PMI_JOBID=%s", s->jobid));
	pmi_strv_push(env, envc, xstrdup("PMI_SPAWNED=0"));
	pmi_strv_push(env, envc, xasprintf("PMI_APPNUM=0"));
	return 0;
}

void pmi_task_forked(struct pmi_server *s, int local, pid_t pid)
{
	if (local < 0 || local >= s->nranks || s->px)
		return;
	struct pmi_conn *c = &s->conns[local];
	if (c->child_fd >= 0) {
		close(c->child_fd);
		c->child_fd = -1;
	}
}

void pmi_destroy(struct pmi_server *s)
{
	if (!s)
		return;
	int saved = errno;
	s->destroyed = true;
	if (s->px)
		pmix_state_destroy(s->px);
	for (int i = 0; i < s->nranks; i++) {
		struct pmi_conn *c = &s->conns[i];
		if (c->child_fd >= 0)
			close(c->child_fd);
		conn_close(c, NULL);
		free(c->buf);
		free(c->wait_key);
	}
	pmi_kvs_free(&s->kvs);
	pmi_kvs_free(&s->pending);
	pmi_kvs_free(&s->node_attrs);
	free(s->mapping);
	if (s->closing == 0) {
		free(s->conns);
		free(s);
	}
	errno = saved;
}
