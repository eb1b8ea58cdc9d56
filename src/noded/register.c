/* NODE_REGISTER: at start and then as the heartbeat, every
 * max(1, SlurmdTimeout/3) s (at most 30 s), with the jobs still alive here.
 * While the controller is down we keep trying, quietly and a little faster,
 * so the node is back as soon as the controller is. */
#include <stdlib.h>
#include "common/auth.h"
#include "common/log.h"
#include "common/msg.h"
#include "noded/noded.h"

#define REGISTER_TIMEOUT_MS 10000
#define REGISTER_RETRY_MS 2000

static uint64_t register_interval_ms(const struct noded *nd)
{
	long timeout = conf_get_int(nd->conf, "SlurmdTimeout", 300);
	long interval = timeout / 3;

	if (interval < 1)
		interval = 1;
	if (interval > 30)
		interval = 30;
	return (uint64_t)interval * 1000;
}

static void register_send(struct noded *nd);

static void register_tick(uv_timer_t *t)
{
	register_send(t->data);
}

static void register_schedule(struct noded *nd)
{
	uint64_t ms = register_interval_ms(nd);
	if (nd->ctld_state == 0 && ms > REGISTER_RETRY_MS)
		ms = REGISTER_RETRY_MS;
	uv_timer_start(&nd->heartbeat, register_tick, ms, 0);
}

static void register_reply(void *arg, json_t *reply, const struct herd_error *err)
{
	struct noded *nd = arg;
	struct herd_error rerr = { "" };

	nd->register_in_flight = false;
	if (!reply) {
		if (nd->ctld_state != 0)
			log_info("controller unreachable: %s; retrying", err->text);
		else
			log_debug("controller unreachable: %s", err->text);
		nd->ctld_state = 0;
	} else if (msg_reply_rc(reply, &rerr) != 0) {
		/* reachable but refusing (e.g. a node it does not know): say so
		 * each time, this needs an operator */
		log_error("controller refused NODE_REGISTER: %s", rerr.text);
		nd->ctld_state = 1;
	} else {
		if (nd->ctld_state != 1)
			log_info("registered with the controller at %s:%d", conf_ctld_host(nd->conf),
				 conf_ctld_port(nd->conf));
		nd->ctld_state = 1;
	}
	register_schedule(nd);
}

static void register_send(struct noded *nd)
{
	const struct hw *hw = &nd->hw;
	struct net_target to = {
		.host = conf_ctld_host(nd->conf),
		.port = conf_ctld_port(nd->conf),
		.dest = nd->dest_ctld,
		.munge_socket = conf_munge_socket(nd->conf),
	};
	json_t *body;

	if (nd->register_in_flight)
		return;
	jobs_reap(nd);
	body = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:I, s:I, s:I, s:s, s:s, s:o, s:o}",
			 "node", nd->node, "cpus", hw->cpus, "boards", hw->boards,
			 "sockets", hw->sockets, "cores", hw->cores, "threads", hw->threads,
			 "memory", (json_int_t)hw->memory_mb, "boot_time", (json_int_t)hw->boot_time,
			 "start_time", (json_int_t)nd->start_time, "arch", hw->arch, "os", hw->os,
			 "jobs", jobs_ids(nd), "steps", jobs_steps(nd));
	/* the node's GRES devices (doc/gres.md): the controller compares them with Gres= */
	json_object_set_new(body, "gres", gres_devs_to_json(hw->gres, hw->ngres));
	nd->register_in_flight = true;
	net_call_async(nd->loop, &to, MSG_NODE_REGISTER, body, REGISTER_TIMEOUT_MS, register_reply, nd);
	json_decref(body);
}

/* The controller asks (at its start): register now, not at the next beat. */
void register_now(struct noded *nd)
{
	uv_timer_stop(&nd->heartbeat);
	register_send(nd);
}

static void reap_tick(uv_timer_t *t)
{
	jobs_reap(t->data);
	mps_tick(t->data);
}

void register_start(struct noded *nd)
{
	uv_timer_init(nd->loop, &nd->heartbeat);
	nd->heartbeat.data = nd;
	/* A killed herdstepd's tasks are killed within a second, not at the
	 * next beat (which waits on the controller's answer to the last) */
	uv_timer_init(nd->loop, &nd->reaper);
	nd->reaper.data = nd;
	uv_timer_start(&nd->reaper, reap_tick, 1000, 1000);
	nd->ctld_state = -1;
	register_send(nd);
}
