/* ACCT_REPORT: what sreport needs that the job records do not hold: the
 * cluster's CPU count and the time its nodes were down, from node events
 * this file records (kind "node_event" rows: a node down, drained or not
 * responding from start to end).  sreport adds up the jobs' allocated
 * CPU-seconds itself from ACCT_JOBS (doc/accounting.md "Usage, sshare,
 * sreport"), so its figures are sacct's.  Not here: the job records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/gres.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"

struct node_event {
	char *node;
	time_t start, end;          /* end 0: still down */
	int cpus;
	char *reason;
};

static struct {
	struct node_event *ev;
	size_t n, cap;
	time_t *down_since;         /* per node index: the open event's start, 0 = up */
	int nnodes;
	bool loaded;
} rep;

/* Down for the accounting: DOWN, drained, or not answering after it had
 * registered (a node not yet heard from after a restart is not down). */
static bool node_is_down(const struct node *n)
{
	return n->state == NODE_DOWN || n->drain || (n->registered && n->not_responding);
}

static void event_key(const struct node_event *e, char *key, size_t len)
{
	snprintf(key, len, "%s:%lld", e->node, (long long)e->start);
}

static void event_save(const struct node_event *e)
{
	char key[256];
	event_key(e, key, sizeof(key));
	store_acct_put("node_event", key, json_pack("{s:s, s:I, s:I, s:i, s:s}", "node", e->node,
						    "start", (json_int_t)e->start,
						    "end", (json_int_t)e->end, "cpus", e->cpus,
						    "reason", e->reason ? e->reason : ""));
}

static struct node_event *event_add(const char *node, time_t start, time_t end, int cpus,
				    const char *reason)
{
	if (rep.n == rep.cap) {
		rep.cap = rep.cap ? 2 * rep.cap : 32;
		rep.ev = xrealloc(rep.ev, rep.cap * sizeof(*rep.ev));
	}
	struct node_event *e = &rep.ev[rep.n++];
	*e = (struct node_event){ xstrdup(node), start, end, cpus, xstrdup(reason) };
	return e;
}

static struct node_event *event_open(const char *node)
{
	for (size_t i = rep.n; i-- > 0;)
		if (!rep.ev[i].end && !strcmp(rep.ev[i].node, node))
			return &rep.ev[i];
	return NULL;
}

static void load_one(const char *key, const json_t *rec, void *arg)
{
	const char *node = json_string_value(json_object_get(rec, "node"));
	if (!node)
		return;
	event_add(node, json_integer_value(json_object_get(rec, "start")),
		  json_integer_value(json_object_get(rec, "end")),
		  (int)json_integer_value(json_object_get(rec, "cpus")),
		  json_string_value(json_object_get(rec, "reason")));
}

static void report_setup(time_t now)
{
	rep.loaded = true;
	rep.nnodes = core.nnodes;
	rep.down_since = xmalloc((core.nnodes + 1) * sizeof(time_t));
	store_acct_load("node_event", load_one, NULL);
	/* An event left open by the last run goes on if the node is still
	 * down (after its restart: known down or drained), else it ended. */
	for (size_t i = 0; i < rep.n; i++) {
		struct node_event *e = &rep.ev[i];
		if (e->end)
			continue;
		int idx = node_index(e->node);
		const struct node *n = idx >= 0 ? &core.nodes[idx] : NULL;
		if (n && (n->state == NODE_DOWN || n->drain)) {
			rep.down_since[idx] = e->start;
		} else {
			e->end = now;
			event_save(e);
		}
	}
}

/* Every tick: a node that went down opens an event, one back up closes it. */
void report_tick(time_t now)
{
	if (!rep.loaded)
		report_setup(now);
	for (int i = 0; i < core.nnodes && i < rep.nnodes; i++) {
		const struct node *n = &core.nodes[i];
		bool down = node_is_down(n);
		if (down && !rep.down_since[i]) {
			rep.down_since[i] = now;
			event_save(event_add(n->name, now, 0, n->cpus, n->reason));
		} else if (!down && rep.down_since[i]) {
			struct node_event *e = event_open(n->name);
			rep.down_since[i] = 0;
			if (e) {
				e->end = now;
				event_save(e);
			}
		}
	}
}

/* CPU-seconds the nodes were down within [start, end). */
static long long down_cpu_secs(time_t start, time_t end, time_t now)
{
	long long sum = 0;
	for (size_t i = 0; i < rep.n; i++) {
		const struct node_event *e = &rep.ev[i];
		time_t s = e->start > start ? e->start : start;
		time_t t = e->end ? e->end : now;
		if (t > end)
			t = end;
		if (t > s)
			sum += (long long)(t - s) * e->cpus;
	}
	return sum;
}

static const char *const reports[] = {
	"cluster_utilization", "account_utilization_by_user", "user_top_usage",
	"job_sizes_by_account", "wckey_utilization_by_user", "job_sizes_by_wckey", NULL,
};

void report_rpc(struct net_req *req)
{
	const json_t *body = req->body;
	const char *report = json_string_value(json_object_get(body, "report"));
	time_t start = json_integer_value(json_object_get(body, "start_time"));
	time_t end = json_integer_value(json_object_get(body, "end_time"));
	time_t now = core_now();
	size_t i;

	for (i = 0; reports[i] && strcasecmp(reports[i], report); i++)
		;
	if (!reports[i]) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, "Unknown report");
		return;
	}
	if (end < start) {
		net_respond(req, HERD_ERR_INVALID_ARG, NULL, "Start time requested is after end time");
		return;
	}
	if (!rep.loaded)
		report_setup(now);
	long long cpus = 0, gpus = 0;
	for (int k = 0; k < core.nnodes; k++) {
		cpus += core.nodes[k].cpus > 0 ? core.nodes[k].cpus
			: core.nodes[k].conf ? core.nodes[k].conf->cpus : 0;
		for (size_t g = 0; g < core.nodes[k].ngres_decl; g++)   /* Gres=gpu:...: sreport -T gres/gpu */
			if (!strcmp(core.nodes[k].gres_decl[g].name, "gpu"))
				gpus += (long long)core.nodes[k].gres_decl[g].count;
	}
	/* PrivateData=usage: a plain user's report is of their own usage
	 * (sreport asks ACCT_JOBS for their jobs only). */
	bool private = accounting.private_usage && !acct_is_operator(req->uid);
	json_t *events = json_array();
	for (size_t k = 0; k < rep.n; k++) {
		const struct node_event *e = &rep.ev[k];
		if ((e->end && e->end <= start) || e->start >= end)
			continue;
		json_array_append_new(events, json_pack("{s:s, s:I, s:I, s:i}", "node", e->node,
							"start", (json_int_t)e->start,
							"end", (json_int_t)e->end, "cpus", e->cpus));
	}
	net_respond(req, 0,
		    json_pack("{s:s, s:I, s:I, s:i, s:I, s:o, s:b, s:s, s:I}", "cluster", core.cluster,
			      "cpus", (json_int_t)cpus, "gpus", (json_int_t)gpus, "nodes", core.nnodes,
			      "down_cpu_secs", (json_int_t)down_cpu_secs(start, end, now),
			      "events", events, "private", private, "user", names_user(req->uid),
			      "time", (json_int_t)now),
		    NULL);
}
