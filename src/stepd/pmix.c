/* The PMIx server of --mpi=pmix, on libpmix: registers the step's
 * namespace and this node's tasks, and carries PMIx fences through the
 * same fence as PMI-1/2 (this node's modex blob, base64, under
 * "pmix.blob.<node_id>").  libpmix calls us on its own thread; those calls
 * only queue an event for the uv loop, which owns everything else. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <nettle/base64.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/hostlist.h"
#include "common/log.h"
#include "common/stepio.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "stepd/pmi.h"
#include "stepd/rmtree.h"

enum pmix_event_type { PMIX_EV_FENCE, PMIX_EV_ABORT };

/* A fence's data from this node goes to srun base64 in one step I/O
 * message; the tasks (the user's) may ask for fences faster than srun (the
 * user's too) answers them: a few at once are all a real MPI has. */
#define PMIX_FENCE_MAX_DATA ((STEPIO_MAX_PAYLOAD - 256) / 4 * 3)
#define PMIX_MAX_FENCES 16

struct pmix_event {
	struct pmix_event *next;
	enum pmix_event_type type;
	char *data;                 /* fence: this node's blob; abort: message */
	size_t ndata;
	pmix_modex_cbfunc_t cbfunc; /* fence */
	void *cbdata;
	int rank, code;             /* abort */
};

struct pmix_fence {
	struct pmix_fence *next;
	int seq;
	pmix_modex_cbfunc_t cbfunc;
	void *cbdata;
};

struct pmix_state {
	struct pmi_server *s;
	uv_async_t async;
	pthread_mutex_t lock;
	struct pmix_event *events, **events_tail;   /* under lock */
	int fences_out;             /* under lock: handed on, not yet done */
	bool refused;               /* under lock: a refusal was logged */
	struct pmix_fence *fences;                  /* loop thread only */
	int node_id, num_nodes, nranks;
	const int *ranks;           /* copied */
	int *local_ranks;
	char nspace[PMIX_MAX_NSLEN + 1];
	char tmpdir[64];            /* "/tmp/herd-pmix.XXXXXX" */
	uid_t uid;                  /* the tasks' user */
	gid_t gid;
	pthread_t loop_thread;      /* herdstepd's own: stays root */
};

/* libpmix is one per process. */
static bool pmix_in_use;

static void on_async_closed(uv_handle_t *h);

/* ---- libpmix's thread ---- */

static struct pmix_state *the_state;

/* libpmix's thread does, as root and by path names, the clean-ups the
 * tasks register (PMIX_REGISTER_CLEANUP, _DIR: Open MPI's session
 * directory), when they end; a task swapping a directory for a link
 * meanwhile would make it unlink root's files.  So that thread works on
 * files with the tasks' user's rights: setfsuid and setfsgid are the
 * calling thread's own (the raw system calls, which glibc does not spread
 * to other threads as it does setuid), and herdstepd's loop thread stays
 * root.  Done on the first call libpmix makes from its thread: a client's
 * connection, before it can register anything. */
static __thread bool pmix_thread_is_user;

static void pmix_thread_become_user(void)
{
	struct pmix_state *px = the_state;

	if (pmix_thread_is_user || !px || geteuid() != 0 || px->uid == 0 ||
	    pthread_equal(pthread_self(), px->loop_thread))
		return;
	setfsgid(px->gid);
	setfsuid(px->uid);
	if ((uid_t)setfsuid(-1) != px->uid || (gid_t)setfsgid(-1) != px->gid)
		log_error("pmix: libpmix's thread cannot take uid %u gid %u for files",
			  (unsigned)px->uid, (unsigned)px->gid);
	pmix_thread_is_user = true;
}

static void event_queue(struct pmix_event *ev)
{
	struct pmix_state *px = the_state;
	pthread_mutex_lock(&px->lock);
	*px->events_tail = ev;
	px->events_tail = &ev->next;
	pthread_mutex_unlock(&px->lock);
	uv_async_send(&px->async);
}

static pmix_status_t up_connected(const pmix_proc_t *proc, void *server_object,
				  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_thread_become_user();
	log_debug("pmix: %s:%u connected", proc->nspace, proc->rank);
	return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t up_finalized(const pmix_proc_t *proc, void *server_object,
				  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_thread_become_user();
	log_debug("pmix: %s:%u finalized", proc->nspace, proc->rank);
	return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t up_abort(const pmix_proc_t *proc, void *server_object, int status,
			      const char msg[], pmix_proc_t procs[], size_t nprocs,
			      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct pmix_event *ev = xmalloc(sizeof(*ev));
	ev->type = PMIX_EV_ABORT;
	ev->rank = proc->rank;
	ev->code = status;
	ev->data = xstrdup(msg ? msg : "");
	event_queue(ev);
	return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t up_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
			      size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
			      void *cbdata)
{
	log_debug("pmix: fence of %zu procs, %zu bytes of data", nprocs, ndata);
	struct pmix_state *px = the_state;
	pthread_mutex_lock(&px->lock);
	bool over = ndata > PMIX_FENCE_MAX_DATA || px->fences_out >= PMIX_MAX_FENCES;
	if (over && !px->refused)
		log_error("pmix: a fence refused: %zu bytes of data (at most %d), %d fences "
			  "waiting (at most %d)", ndata, PMIX_FENCE_MAX_DATA, px->fences_out,
			  PMIX_MAX_FENCES);
	if (over)
		px->refused = true;
	else
		px->fences_out++;
	pthread_mutex_unlock(&px->lock);
	/* libpmix gives the tasks this status as their fence's. */
	if (over)
		return PMIX_ERR_OUT_OF_RESOURCE;
	struct pmix_event *ev = xmalloc(sizeof(*ev));
	ev->type = PMIX_EV_FENCE;
	ev->data = xmalloc(ndata + 1);
	if (ndata)
		memcpy(ev->data, data, ndata);
	ev->ndata = ndata;
	ev->cbfunc = cbfunc;
	ev->cbdata = cbdata;
	event_queue(ev);
	return PMIX_SUCCESS;
}

/* Every fence carries the whole modex: there is nothing to ask for later. */
static pmix_status_t up_dmodex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
			       pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	return PMIX_ERR_NOT_SUPPORTED;
}

static pmix_status_t up_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return PMIX_ERR_NOT_SUPPORTED;
}

static pmix_status_t up_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
			       size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
	return PMIX_ERR_NOT_SUPPORTED;
}

static pmix_status_t up_unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
				  size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return PMIX_ERR_NOT_SUPPORTED;
}

static pmix_server_module_t pmix_module = {
	.client_connected = up_connected,
	.client_finalized = up_finalized,
	.abort = up_abort,
	.fence_nb = up_fence,
	.direct_modex = up_dmodex,
	.publish = up_publish,
	.lookup = up_lookup,
	.unpublish = up_unpublish,
};

/* ---- the uv loop's thread ---- */

static char *base64_of(const char *data, size_t n)
{
	char *out = xmalloc(BASE64_ENCODE_RAW_LENGTH(n) + 1);
	base64_encode_raw(out, n, (const uint8_t *)data);
	out[BASE64_ENCODE_RAW_LENGTH(n)] = 0;
	return out;
}

/* Appends the decoded text to sb; -1 if it is not base64. */
static int base64_append(struct strbuf *sb, const char *text)
{
	size_t len = strlen(text);
	struct base64_decode_ctx ctx;
	uint8_t *buf = xmalloc(BASE64_DECODE_LENGTH(len) + 1);
	size_t n = BASE64_DECODE_LENGTH(len);
	base64_decode_init(&ctx);
	int ok = base64_decode_update(&ctx, &n, buf, len, text) && base64_decode_final(&ctx);
	if (ok && n)
		strbuf_add(sb, (char *)buf, n);
	free(buf);
	return ok ? 0 : -1;
}

static void on_events(uv_async_t *h)
{
	struct pmix_state *px = h->data;
	pthread_mutex_lock(&px->lock);
	struct pmix_event *ev = px->events;
	px->events = NULL;
	px->events_tail = &px->events;
	pthread_mutex_unlock(&px->lock);
	while (ev) {
		struct pmix_event *next = ev->next;
		if (ev->type == PMIX_EV_FENCE) {
			json_t *kvs = json_object();
			char key[32];
			snprintf(key, sizeof(key), "pmix.blob.%d", px->node_id);
			char *b64 = base64_of(ev->data, ev->ndata);
			json_object_set_new(kvs, key, json_string(b64));
			free(b64);
			struct pmix_fence *f = xmalloc(sizeof(*f));
			f->cbfunc = ev->cbfunc;
			f->cbdata = ev->cbdata;
			/* Queue before handing on: fence_f may answer at once. */
			struct pmix_fence **tail = &px->fences;
			while (*tail)
				tail = &(*tail)->next;
			*tail = f;
			f->seq = pmi_fence_begin(px->s, kvs);
		} else {
			log_info("pmix: task %d aborted the step (code %d%s%s)", ev->rank, ev->code,
				 *ev->data ? ": " : "", ev->data);
			pmi_report_abort(px->s, ev->rank, ev->code, ev->data);
		}
		free(ev->data);
		free(ev);
		ev = next;
	}
}

static void release_blob(void *cbdata)
{
	free(cbdata);
}

void pmix_state_fence_done(struct pmix_state *px, int seq, json_t *kvs)
{
	struct pmix_fence **pf = &px->fences;
	while (*pf && (*pf)->seq != seq)
		pf = &(*pf)->next;
	struct pmix_fence *f = *pf;
	if (!f) {
		log_error("pmix: fence %d ended but none is waiting", seq);
		json_decref(kvs);
		return;
	}
	*pf = f->next;
	pthread_mutex_lock(&px->lock);
	px->fences_out--;
	pthread_mutex_unlock(&px->lock);
	/* Every node's blob in node order: libpmix unpacks them one after
	 * the other. */
	struct strbuf sb = { 0 };
	pmix_status_t status = PMIX_SUCCESS;
	for (int n = 0; n < px->num_nodes; n++) {
		char key[32];
		snprintf(key, sizeof(key), "pmix.blob.%d", n);
		const char *b64 = json_string_value(json_object_get(kvs, key));
		if (b64 && base64_append(&sb, b64) < 0) {
			log_error("pmix: fence %d: node %d's data is not base64", seq, n);
			status = PMIX_ERROR;
		}
	}
	json_decref(kvs);
	if (!sb.s)
		sb.s = xmalloc(1);
	if (f->cbfunc)
		f->cbfunc(status, sb.s, sb.len, f->cbdata, release_blob, sb.s);
	else
		free(sb.s);
	free(f);
}

int pmix_state_task_env(struct pmix_state *px, int local, char ***env, size_t *envc,
			struct herd_error *err)
{
	pmix_proc_t proc;
	PMIX_PROC_LOAD(&proc, px->nspace, px->local_ranks[local]);
	char **penv = calloc(1, sizeof(*penv));
	pmix_status_t rc = PMIx_server_setup_fork(&proc, &penv);
	if (rc != PMIX_SUCCESS) {
		PMIX_ARGV_FREE(penv);
		return errprintf(err, "PMIx_server_setup_fork() for task %d: %s",
				 px->local_ranks[local], PMIx_Error_string(rc));
	}
	for (size_t i = 0; penv && penv[i]; i++)
		pmi_strv_push(env, envc, xstrdup(penv[i]));
	PMIX_ARGV_FREE(penv);
	return 0;
}

/* Waiting for libpmix's completion callbacks while we set things up. */
struct pmix_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	pmix_status_t status;
};

static void wait_done(pmix_status_t status, void *cbdata)
{
	struct pmix_wait *w = cbdata;
	pthread_mutex_lock(&w->lock);
	w->status = status;
	w->done = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static pmix_status_t wait_for(struct pmix_wait *w, pmix_status_t rc)
{
	if (rc == PMIX_OPERATION_SUCCEEDED)
		return PMIX_SUCCESS;
	if (rc != PMIX_SUCCESS)
		return rc;
	pthread_mutex_lock(&w->lock);
	while (!w->done)
		pthread_cond_wait(&w->cond, &w->lock);
	w->done = false;
	pthread_mutex_unlock(&w->lock);
	return w->status;
}

/* PMIx's directory is root's and 0755 in /tmp (sticky): no user can
 * rename it or put anything in it.  libpmix makes its data-store
 * directories there and gives them to the tasks' user, who may write in
 * them; they are emptied with rmtree (never by path names) before libpmix
 * finalizes, whose own clean-up walks by path names as root.  Called twice:
 * before PMIx_server_finalize (the user's part) and after (what is left,
 * and the directory). */
static void pmix_tmpdir_clean(struct pmix_state *px, bool remove_dir)
{
	const char *name = px->tmpdir + strlen("/tmp/");
	int tmp_fd;

	if (!px->tmpdir[0])
		return;
	tmp_fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tmp_fd < 0) {
		log_error("pmix: /tmp: %s", strerror(errno));
		return;
	}
	if (!remove_dir) {
		int fd = openat(tmp_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || rmtree_empty(fd, px->uid) < 0)
			log_warn("pmix: emptying %s: %s", px->tmpdir, strerror(errno));
		if (fd >= 0)
			close(fd);
	} else if (rmtree_remove(tmp_fd, name, px->uid) < 0 && errno != ENOENT) {
		log_warn("pmix: removing %s: %s", px->tmpdir, strerror(errno));
	}
	close(tmp_fd);
}

struct info_list {
	pmix_info_t *v;
	size_t n, cap;
};

/* The list is sized up front (register_nspace counts what it adds). */
static pmix_info_t *info_next(struct info_list *l)
{
	assert(l->n < l->cap);
	return &l->v[l->n++];
}

#define INFO_ADD(l, key, ptr, type) PMIX_INFO_LOAD(info_next(l), key, ptr, type)

static int register_nspace(struct pmix_state *px, const struct pmi_step_info *info,
			   const int *node_of, struct hostlist *hosts, struct herd_error *err)
{
	int size = info->size, num_nodes = info->num_nodes;
	int rc = -1;
	struct strbuf names = { 0 }, ppn = { 0 }, peers = { 0 };
	for (int n = 0; n < num_nodes; n++) {
		if (n)
			strbuf_adds(&names, ",");
		strbuf_adds(&names, hostlist_nth(hosts, n));
		if (n)
			strbuf_adds(&ppn, ";");
		bool first = true;
		for (int r = 0; r < size; r++)
			if (node_of[r] == n) {
				char num[16];
				snprintf(num, sizeof(num), first ? "%d" : ",%d", r);
				strbuf_adds(&ppn, num);
				first = false;
			}
	}
	int leader = -1;
	for (int i = 0; i < px->nranks; i++) {
		char num[16];
		snprintf(num, sizeof(num), i ? ",%d" : "%d", px->local_ranks[i]);
		strbuf_adds(&peers, num);
		if (leader < 0 || px->local_ranks[i] < leader)
			leader = px->local_ranks[i];
	}
	strbuf_adds(&peers, "");
	char *node_regex = NULL, *proc_regex = NULL;
	if (PMIx_generate_regex(names.s, &node_regex) != PMIX_SUCCESS ||
	    PMIx_generate_ppn(ppn.s, &proc_regex) != PMIX_SUCCESS) {
		errprintf(err, "PMIx cannot describe the step's nodes '%s'", info->node_names);
		goto done;
	}
	struct info_list l = { .cap = 20 + size };
	PMIX_INFO_CREATE(l.v, l.cap);
	uint32_t u32;
	char jobid[32];
	snprintf(jobid, sizeof(jobid), "%u.%u", info->job_id, info->step_id);
	INFO_ADD(&l, PMIX_JOBID, jobid, PMIX_STRING);
	u32 = size;
	INFO_ADD(&l, PMIX_UNIV_SIZE, &u32, PMIX_UINT32);
	INFO_ADD(&l, PMIX_JOB_SIZE, &u32, PMIX_UINT32);
	INFO_ADD(&l, PMIX_MAX_PROCS, &u32, PMIX_UINT32);
	u32 = num_nodes;
	INFO_ADD(&l, PMIX_NUM_NODES, &u32, PMIX_UINT32);
	u32 = 0;
	INFO_ADD(&l, PMIX_APPNUM, &u32, PMIX_UINT32);
	u32 = px->nranks;
	INFO_ADD(&l, PMIX_LOCAL_SIZE, &u32, PMIX_UINT32);
	INFO_ADD(&l, PMIX_NODE_SIZE, &u32, PMIX_UINT32);
	INFO_ADD(&l, PMIX_LOCAL_PEERS, peers.s, PMIX_STRING);
	if (leader >= 0) {
		pmix_rank_t lr = leader;
		INFO_ADD(&l, PMIX_LOCALLDR, &lr, PMIX_PROC_RANK);
	}
	/* A "pmix:" expression is a string; anything else (a binary blob)
	 * we replace with the plain list, which libpmix also parses. */
	INFO_ADD(&l, PMIX_NODE_MAP, !strncmp(node_regex, "pmix:", 5) ? node_regex : names.s,
		 PMIX_STRING);
	INFO_ADD(&l, PMIX_PROC_MAP, !strncmp(proc_regex, "pmix:", 5) ? proc_regex : ppn.s,
		 PMIX_STRING);
	INFO_ADD(&l, PMIX_HOSTNAME, (void *)hostlist_nth(hosts, info->node_id), PMIX_STRING);
	u32 = info->node_id;
	INFO_ADD(&l, PMIX_NODEID, &u32, PMIX_UINT32);
	int *seen = xmalloc(num_nodes * sizeof(*seen));
	for (int r = 0; r < size; r++) {
		int n = node_of[r];
		uint16_t local = seen[n]++;
		pmix_data_array_t *d;
		PMIX_DATA_ARRAY_CREATE(d, 7, PMIX_INFO);
		pmix_info_t *pi = d->array;
		pmix_rank_t rank = r;
		uint32_t nodeid = n, appnum = 0;
		PMIX_INFO_LOAD(&pi[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
		PMIX_INFO_LOAD(&pi[1], PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK);
		PMIX_INFO_LOAD(&pi[2], PMIX_APPNUM, &appnum, PMIX_UINT32);
		PMIX_INFO_LOAD(&pi[3], PMIX_LOCAL_RANK, &local, PMIX_UINT16);
		PMIX_INFO_LOAD(&pi[4], PMIX_NODE_RANK, &local, PMIX_UINT16);
		PMIX_INFO_LOAD(&pi[5], PMIX_NODEID, &nodeid, PMIX_UINT32);
		PMIX_INFO_LOAD(&pi[6], PMIX_HOSTNAME, (void *)hostlist_nth(hosts, n), PMIX_STRING);
		INFO_ADD(&l, PMIX_PROC_DATA, d, PMIX_DATA_ARRAY);
		PMIX_DATA_ARRAY_FREE(d);
	}
	free(seen);
	struct pmix_wait w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0 };
	pmix_status_t st = wait_for(&w, PMIx_server_register_nspace(px->nspace, px->nranks, l.v,
								    l.n, wait_done, &w));
	PMIX_INFO_FREE(l.v, l.cap);
	if (st != PMIX_SUCCESS) {
		errprintf(err, "PMIx_server_register_nspace(): %s", PMIx_Error_string(st));
		goto done;
	}
	for (int i = 0; i < px->nranks; i++) {
		pmix_proc_t proc;
		PMIX_PROC_LOAD(&proc, px->nspace, px->local_ranks[i]);
		st = wait_for(&w, PMIx_server_register_client(&proc, info->uid, info->gid, NULL,
							      wait_done, &w));
		if (st != PMIX_SUCCESS) {
			errprintf(err, "PMIx_server_register_client() for task %d: %s",
				  px->local_ranks[i], PMIx_Error_string(st));
			goto done;
		}
	}
	rc = 0;
done:
	free(node_regex);
	free(proc_regex);
	free(names.s);
	free(ppn.s);
	free(peers.s);
	return rc;
}

struct pmix_state *pmix_state_create(struct pmi_server *s, uv_loop_t *loop,
				     const struct pmi_step_info *info, struct herd_error *err)
{
	if (pmix_in_use) {
		errprintf(err, "A PMIx server already runs in this process");
		return NULL;
	}
	struct hostlist *hosts = hostlist_create(info->node_names);
	if (!hosts || hostlist_count(hosts) != (size_t)info->num_nodes) {
		errprintf(err, "The step's node list '%s' does not name its %d nodes",
			  info->node_names ? info->node_names : "", info->num_nodes);
		hostlist_destroy(hosts);
		return NULL;
	}
	int *node_of = xmalloc(info->size * sizeof(*node_of));
	if (pmi_layout(info->size, info->num_nodes, info->tasks_per_node, info->distribution,
		       node_of) < 0) {
		errprintf(err, "Cannot lay out %d tasks as '%s' on %d nodes for PMIx", info->size,
			  info->tasks_per_node ? info->tasks_per_node : "", info->num_nodes);
		free(node_of);
		hostlist_destroy(hosts);
		return NULL;
	}
	/* This node's ranks are what the launch says, whatever the layout. */
	for (int i = 0; i < info->nranks; i++)
		node_of[info->ranks[i]] = info->node_id;

	struct pmix_state *px = xmalloc(sizeof(*px));
	px->s = s;
	px->node_id = info->node_id;
	px->num_nodes = info->num_nodes;
	px->nranks = info->nranks;
	px->local_ranks = xmalloc((info->nranks + 1) * sizeof(int));
	memcpy(px->local_ranks, info->ranks, info->nranks * sizeof(int));
	px->events_tail = &px->events;
	pthread_mutex_init(&px->lock, NULL);
	snprintf(px->nspace, sizeof(px->nspace), "herd.%u.%u", info->job_id, info->step_id);
	snprintf(px->tmpdir, sizeof(px->tmpdir), "/tmp/herd-pmix.XXXXXX");
	if (!mkdtemp(px->tmpdir)) {
		errprintf(err, "Cannot make a directory for PMIx in /tmp: %s", strerror(errno));
		px->tmpdir[0] = 0;
		goto error;
	}
	/* Root's (not the user's: see pmix_tmpdir_clean); the tasks only
	 * need to reach what libpmix makes for them inside. */
	px->uid = info->uid;
	px->gid = info->gid;
	px->loop_thread = pthread_self();
	if (chmod(px->tmpdir, 0755) < 0)
		log_warn("pmix: chmod %s: %s", px->tmpdir, strerror(errno));
	uv_async_init(loop, &px->async, on_events);
	px->async.data = px;
	/* Not a reason for herdstepd's loop to go on: the tasks are. */
	uv_unref((uv_handle_t *)&px->async);
	the_state = px;
	pmix_in_use = true;

	pmix_info_t *init;
	char server_ns[PMIX_MAX_NSLEN + 1];
	snprintf(server_ns, sizeof(server_ns), "herdstepd.%u.%u", info->job_id, info->step_id);
	pmix_rank_t server_rank = info->node_id;
	uint32_t uid = info->uid, gid = info->gid;
	PMIX_INFO_CREATE(init, 6);
	PMIX_INFO_LOAD(&init[0], PMIX_SERVER_TMPDIR, px->tmpdir, PMIX_STRING);
	PMIX_INFO_LOAD(&init[1], PMIX_SYSTEM_TMPDIR, px->tmpdir, PMIX_STRING);
	PMIX_INFO_LOAD(&init[2], PMIX_SERVER_NSPACE, server_ns, PMIX_STRING);
	PMIX_INFO_LOAD(&init[3], PMIX_SERVER_RANK, &server_rank, PMIX_PROC_RANK);
	PMIX_INFO_LOAD(&init[4], PMIX_USERID, &uid, PMIX_UINT32);
	PMIX_INFO_LOAD(&init[5], PMIX_GRPID, &gid, PMIX_UINT32);
	pmix_status_t st = PMIx_server_init(&pmix_module, init, 6);
	PMIX_INFO_FREE(init, 6);
	if (st != PMIX_SUCCESS) {
		errprintf(err, "PMIx_server_init(): %s", PMIx_Error_string(st));
		uv_close((uv_handle_t *)&px->async, on_async_closed);
		goto error_closed;
	}
	if (register_nspace(px, info, node_of, hosts, err) < 0) {
		free(node_of);
		hostlist_destroy(hosts);
		pmix_state_destroy(px);
		return NULL;
	}
	free(node_of);
	hostlist_destroy(hosts);
	return px;
error_closed:
	/* The async handle closes on the loop's next turn: keep px. */
	pmix_in_use = false;
	the_state = NULL;
	pmix_tmpdir_clean(px, false);
	pmix_tmpdir_clean(px, true);
	free(node_of);
	hostlist_destroy(hosts);
	return NULL;
error:
	free(node_of);
	hostlist_destroy(hosts);
	free(px->local_ranks);
	free(px);
	return NULL;
}

static void on_async_closed(uv_handle_t *h)
{
	struct pmix_state *px = h->data;
	free(px->local_ranks);
	free(px);
}

void pmix_state_destroy(struct pmix_state *px)
{
	pmix_tmpdir_clean(px, false);
	/* Joins libpmix's thread: no event arrives after this. */
	PMIx_server_finalize();
	pmix_in_use = false;
	the_state = NULL;
	for (struct pmix_event *ev = px->events, *next; ev; ev = next) {
		next = ev->next;
		free(ev->data);
		free(ev);
	}
	px->events = NULL;
	for (struct pmix_fence *f = px->fences, *next; f; f = next) {
		next = f->next;
		free(f);
	}
	px->fences = NULL;
	pmix_tmpdir_clean(px, true);
	uv_close((uv_handle_t *)&px->async, on_async_closed);
}

/* ASan builds (make SAN=1): libpmix and the libevent it runs on keep
 * allocations from PMIx_server_init to the process's exit that their
 * finalize does not free; LeakSanitizer is told so here rather than in
 * every test's environment.  Herd's own leaks are still reported. */
#if defined(__SANITIZE_ADDRESS__)
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpmix.so\nleak:libevent_core\nleak:libevent\n";
}
#endif
