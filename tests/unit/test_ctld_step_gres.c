/* ctld/step_gres.c over jobs and steps made in memory: a step's request read
 * from STEPSPEC (malformed, or of a GRES the job lacks: 2033; --gres=none;
 * zero counts), the pick (lowest free index first, shares split over
 * devices, never vs busy), the devices each step node gets next to the
 * job's other running steps (held, --overlap, ended), --gpus=N for the
 * step spread over its nodes, and the TRES string stored for sacct. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "ctld/ctld.h"
#include "ctld/step_impl.h"

struct ctld ctld;   /* main.c's, which this test does not link */

static struct gres_hold hold(const char *name, const char *type, uint32_t index, uint32_t count)
{
	struct gres_hold h;
	memset(&h, 0, sizeof(h));
	strcpy(h.name, name);
	strcpy(h.type, type);
	h.index = index;
	h.count = count;
	return h;
}

static void pick_lowest_free_first(void **state)
{
	struct gres_hold job[] = { hold("gpu", "h100", 2, 1), hold("gpu", "h100", 0, 1),
				   hold("gpu", "h100", 1, 1), hold("shard", "", 0, 4),
				   hold("shard", "", 1, 4) };
	uint32_t used[5] = { 0, 1, 0, 3, 0 };
	struct gres_hold out[8];

	assert_int_equal(step_gres_pick(job, 5, used, "gpu", "", 1, out, 8), 1);
	assert_int_equal(out[0].index, 1);   /* 0 is used */
	assert_int_equal(used[2], 1);        /* updated */
	assert_int_equal(step_gres_pick(job, 5, used, "gpu", "h100", 1, out, 8), 1);
	assert_int_equal(out[0].index, 2);
	assert_int_equal(step_gres_pick(job, 5, used, "gpu", "", 1, out, 8), STEP_GRES_BUSY);
	assert_int_equal(step_gres_pick(job, 5, used, "gpu", "", 4, out, 8), STEP_GRES_NEVER);
	assert_int_equal(step_gres_pick(job, 5, used, "gpu", "a100", 1, out, 8), STEP_GRES_NEVER);
	/* shares: what is left of shard 0, then shard 1 */
	assert_int_equal(step_gres_pick(job, 5, used, "shard", "", 3, out, 8), 2);
	assert_int_equal(out[0].index, 0);
	assert_int_equal(out[0].count, 1);
	assert_int_equal(out[1].index, 1);
	assert_int_equal(out[1].count, 2);
	assert_int_equal(step_gres_pick(job, 5, used, "shard", "", 3, out, 8), STEP_GRES_BUSY);
}

/* A running job on two nodes with GPUs 0 and 1 on each. */
static struct gres_hold n1[2], n2[2];
static struct gres_hold *alloc[2] = { n1, n2 };
static int nalloc[2] = { 2, 2 };

static void job_init(struct job *job)
{
	memset(job, 0, sizeof(*job));
	n1[0] = n2[0] = hold("gpu", "h100", 0, 1);
	n1[1] = n2[1] = hold("gpu", "h100", 1, 1);
	job->nalloc = 2;
	job->alloc_gres = alloc;
	job->nalloc_gres = nalloc;
	job->state = JOB_RUNNING;
}

static struct step *step_on(int nnodes, int ntasks_each)
{
	struct step *s = calloc(1, sizeof(*s));
	s->nnodes = nnodes;
	s->job_node = calloc(nnodes, sizeof(int));
	s->ntasks = calloc(nnodes, sizeof(int));
	for (int i = 0; i < nnodes; i++) {
		s->job_node[i] = i;
		s->ntasks[i] = ntasks_each;
	}
	s->state = JOB_RUNNING;
	return s;
}

static void step_done(struct step *s)
{
	step_gres_free(s);
	free(s->job_node);
	free(s->ntasks);
	free(s);
}

static int request(const struct job *job, const char *json, struct step_gres_req *r)
{
	struct herd_error err = { "" };
	json_t *spec = json_loads(json, 0, NULL);
	assert_non_null(spec);
	int rc = step_gres_request(job, spec, r, &err);
	if (rc)
		assert_string_equal(err.text, "Invalid generic resource (gres) specification");
	json_decref(spec);
	return rc;
}

static void request_read(void **state)
{
	struct job job;
	struct step_gres_req r;

	job_init(&job);
	assert_int_equal(request(&job, "{}", &r), 0);
	assert_false(r.given);
	assert_int_equal(request(&job, "{\"gres_none\": true, \"tres_per_node\": \"gres/gpu:1\"}", &r), 0);
	assert_true(r.given);
	assert_int_equal(r.n, 0);
	assert_int_equal(request(&job, "{\"tres_per_step\": \"gres/gpu:0\"}", &r), 0);
	assert_true(r.given);   /* zero counts: none */
	assert_int_equal(r.n, 0);
	assert_int_equal(request(&job, "{\"tres_per_node\": \"gres/gpu:h100:1\", \"tres_per_task\": "
				       "\"gres/gpu:h100:2\", \"overlap\": true}", &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.items[0].per_node, 1);
	assert_int_equal(r.items[0].per_task, 2);
	assert_true(r.overlap);
	/* what the job has none of, and what does not read */
	assert_int_equal(request(&job, "{\"tres_per_node\": \"gres/shard:1\"}", &r), HERD_ERR_INVALID_GRES);
	assert_int_equal(request(&job, "{\"tres_per_node\": \"gres/gpu:a100:1\"}", &r), HERD_ERR_INVALID_GRES);
	assert_int_equal(request(&job, "{\"tres_per_node\": \"gres/gpu:x:y:1\"}", &r), HERD_ERR_INVALID_GRES);
	/* more than the job has in all */
	struct herd_error err;
	assert_int_equal(request(&job, "{\"tres_per_node\": \"gres/gpu:3\"}", &r), 0);
	assert_int_equal(step_gres_total_check(&job, &r, 1, 1, &err), 0);   /* 3 of 4: per node, later */
	assert_int_equal(step_gres_total_check(&job, &r, 2, 2, &err), HERD_ERR_INVALID_GRES);
	assert_int_equal(request(&job, "{\"tres_per_task\": \"gres/gpu:1\"}", &r), 0);
	assert_int_equal(step_gres_total_check(&job, &r, 2, 4, &err), 0);
	assert_int_equal(step_gres_total_check(&job, &r, 2, 5, &err), HERD_ERR_INVALID_GRES);
}

static void steps_hold_and_give_back(void **state)
{
	struct job job;
	struct step_gres_req r;
	struct herd_error err;

	job_init(&job);
	assert_int_equal(request(&job, "{\"tres_per_node\": \"gres/gpu:1\"}", &r), 0);
	struct step *a = step_on(1, 1), *b = step_on(1, 1), *c = step_on(1, 1), *o = step_on(1, 1);
	assert_int_equal(step_gres_take(&job, a, &r, &err), 0);
	assert_true(a->gres_holds);
	assert_int_equal(a->ngres[0], 1);
	assert_int_equal(a->gres[0][0].index, 0);
	job.steps = a;
	assert_int_equal(step_gres_node_fits(&job, 0, 1, &r), 0);
	assert_int_equal(step_gres_take(&job, b, &r, &err), 0);
	assert_int_equal(b->gres[0][0].index, 1);
	a->next = b;
	/* both held: the third waits, one asking 3 there never fits */
	assert_int_equal(step_gres_node_fits(&job, 0, 1, &r), STEP_GRES_BUSY);
	assert_int_equal(step_gres_node_fits(&job, 1, 1, &r), 0);
	assert_int_equal(step_gres_take(&job, c, &r, &err), HERD_ERR_NODES_BUSY);
	assert_string_equal(err.text, "Requested nodes are busy");
	assert_null(c->gres);
	struct step_gres_req three;
	assert_int_equal(request(&job, "{\"tres_per_node\": \"gres/gpu:3\"}", &three), 0);
	assert_int_equal(step_gres_node_fits(&job, 0, 1, &three), STEP_GRES_NEVER);
	/* --overlap: all of them, held by none */
	struct step_gres_req ov;
	assert_int_equal(request(&job, "{\"tres_per_node\": \"gres/gpu:2\", \"overlap\": true}", &ov), 0);
	assert_int_equal(step_gres_take(&job, o, &ov, &err), 0);
	assert_false(o->gres_holds);
	assert_int_equal(o->ngres[0], 2);
	/* a ended: its GPU goes to c */
	a->state = JOB_COMPLETED;
	assert_int_equal(step_gres_take(&job, c, &r, &err), 0);
	assert_int_equal(c->gres[0][0].index, 0);
	/* what each stores, for the restart and sacct */
	char *tres = step_gres_tres(&job, c);
	assert_string_equal(tres, "gres/gpu=1,gres/gpu:h100=1");
	free(tres);
	json_t *rec = json_object();
	step_gres_to_json(&job, c, rec);
	struct step *back = step_on(1, 1);
	int rec_node[1] = { 0 };
	step_gres_restore(back, rec, rec_node);
	assert_true(back->gres_given && back->gres_holds);
	assert_int_equal(back->ngres[0], 1);
	assert_int_equal(back->gres[0][0].index, 0);
	assert_string_equal(back->gres[0][0].type, "h100");
	json_decref(rec);
	/* a step that asked nothing has the job's on its nodes, held by none */
	struct step *all = step_on(2, 1);
	struct step_gres_req nothing;
	assert_int_equal(request(&job, "{}", &nothing), 0);
	assert_int_equal(step_gres_take(&job, all, &nothing, &err), 0);
	assert_false(all->gres_given || all->gres_holds);
	tres = step_gres_tres(&job, all);
	assert_string_equal(tres, "gres/gpu=4,gres/gpu:h100=4");
	free(tres);
	step_done(a), step_done(b), step_done(c), step_done(o), step_done(back), step_done(all);
}

static void per_step_count_spreads(void **state)
{
	struct job job;
	struct step_gres_req r;
	struct herd_error err;

	job_init(&job);
	assert_int_equal(request(&job, "{\"tres_per_step\": \"gres/gpu:3\"}", &r), 0);
	struct step *s = step_on(2, 1);
	assert_int_equal(step_gres_take(&job, s, &r, &err), 0);
	assert_int_equal(s->ngres[0], 2);
	assert_int_equal(s->ngres[1], 1);
	job.steps = s;
	/* one GPU left (n2's 1): a second asking 2 waits, on one node it never fits */
	struct step *t = step_on(2, 1), *u = step_on(1, 1);
	assert_int_equal(request(&job, "{\"tres_per_step\": \"gres/gpu:2\"}", &r), 0);
	assert_int_equal(step_gres_take(&job, t, &r, &err), HERD_ERR_NODES_BUSY);
	assert_int_equal(request(&job, "{\"tres_per_step\": \"gres/gpu:3\"}", &r), 0);
	assert_int_equal(step_gres_take(&job, u, &r, &err), HERD_ERR_INVALID_GRES);
	step_done(s), step_done(t), step_done(u);
}

/* Shares picked per node and per step on one device are one record. */
static void shares_merged(void **state)
{
	static struct gres_hold sh[2];
	static struct gres_hold *salloc[1] = { sh };
	static int nsh[1] = { 2 };
	struct job job;
	struct step_gres_req r;
	struct herd_error err;

	memset(&job, 0, sizeof(job));
	sh[0] = hold("shard", "", 0, 4);
	sh[1] = hold("shard", "", 1, 4);
	job.nalloc = 1;
	job.alloc_gres = salloc;
	job.nalloc_gres = nsh;
	assert_int_equal(request(&job, "{\"tres_per_node\": \"gres/shard:1\", "
				       "\"tres_per_step\": \"gres/shard:5\"}", &r), 0);
	struct step *s = step_on(1, 1);
	assert_int_equal(step_gres_take(&job, s, &r, &err), 0);
	assert_int_equal(s->ngres[0], 2);
	assert_int_equal(s->gres[0][0].index, 0);
	assert_int_equal(s->gres[0][0].count, 4);
	assert_int_equal(s->gres[0][1].index, 1);
	assert_int_equal(s->gres[0][1].count, 2);
	char *tres = step_gres_tres(&job, s);
	assert_string_equal(tres, "gres/shard=6");
	free(tres);
	step_done(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pick_lowest_free_first),
		cmocka_unit_test(request_read),
		cmocka_unit_test(steps_hold_and_give_back),
		cmocka_unit_test(per_step_count_spreads),
		cmocka_unit_test(shares_merged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
