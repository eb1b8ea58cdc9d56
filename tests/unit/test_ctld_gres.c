/* core/node_gres.c over nodes made in memory: Gres= names checked against
 * GresTypes with Slurm's sentence, a registration's devices taken and
 * compared (fewer than declared drains with Slurm's reason; a declared
 * type matches a detected one as a substring), malformed records ignored,
 * and the strings NODE_INFO carries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "common/gres.h"
#include "ctld/ctld.h"

struct ctld ctld;   /* main.c's, which this test does not link */

static struct conf_kv kv[] = { { "GresTypes", "gpu,shard" } };
static struct conf_node conf_nodes[] = {
	{ .name = "n1", .gres = "gpu:h100:2,shard:8" },
	{ .name = "n2" },
};
static struct conf conf = { .path = "herd.conf", .kv = kv, .nkv = 1, .nodes = conf_nodes,
			    .nnodes = 2 };

static void check_names_gres_types(void **state)
{
	struct herd_error err = { "" };

	assert_int_equal(node_gres_check(&conf, &err), 0);
	conf_nodes[1].gres = "gpu:2,foo:1";
	assert_int_equal(node_gres_check(&conf, &err), -1);
	assert_string_equal(err.text, "herd.conf: Invalid GRES configured on node n2: foo:1 "
				      "(gres/foo is not in GresTypes=gpu,shard)");
	conf_nodes[1].gres = "gpu:x:y:2";
	assert_int_equal(node_gres_check(&conf, &err), -1);
	assert_string_equal(err.text, "herd.conf: Invalid GRES configured on node n2: gpu:x:y:2");
	conf_nodes[1].gres = NULL;
	kv[0].value = NULL;   /* no GresTypes: no name is allowed */
	assert_int_equal(node_gres_check(&conf, &err), -1);
	kv[0].value = "gpu,shard";
}

static json_t *gpu(const char *type, int index, const char *file, const char *cores)
{
	return json_pack("{s:s, s:s, s:i, s:s, s:s, s:s, s:i}", "name", "gpu", "type", type,
			 "index", index, "file", file, "cores", cores, "links", "", "count", 1);
}

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void report_compared_and_shown(void **state)
{
	struct node n = { .name = "n1", .conf = &conf_nodes[0], .cores = 2 };

	core.conf = &conf;
	node_gres_setup(&n, &conf);
	json_t *o = json_object();
	node_gres_json(&n, o);
	assert_string_equal(jstr(o, "gres"), "gpu:h100:2,shard:8");
	assert_string_equal(jstr(o, "gres_used"), "gpu:h100:0(IDX:N/A),shard:0");
	json_decref(o);

	/* two detected H100s (NVML's type), and the shards */
	json_t *devs = json_pack("[o,o,{s:s,s:s,s:i,s:s,s:s,s:s,s:i}]",
				 gpu("nvidia_h100_80gb_hbm3", 0, "/dev/nvidia0", "0-1"),
				 gpu("nvidia_h100_80gb_hbm3", 1, "/dev/nvidia1", "2-3"),
				 "name", "shard", "type", "", "index", 0, "file", "", "cores", "",
				 "links", "", "count", 8);
	node_gres_report(&n, devs);
	assert_false(n.drain);
	assert_int_equal(n.ngres_devs, 3);
	o = json_object();
	node_gres_json(&n, o);
	assert_string_equal(jstr(o, "gres"), "gpu:h100:2(S:0-1),shard:8");
	assert_int_equal(json_array_size(json_object_get(o, "gres_devs")), 3);
	json_decref(o);

	/* a malformed report changes nothing */
	json_array_append_new(devs, json_pack("{s:s}", "name", "gpu"));
	node_gres_report(&n, devs);
	assert_int_equal(n.ngres_devs, 3);
	assert_false(n.drain);
	json_decref(devs);

	/* one GPU fewer: drained with Slurm's reason, by SlurmUser (root) */
	devs = json_pack("[o]", gpu("nvidia_h100_80gb_hbm3", 0, "/dev/nvidia0", "0-1"));
	node_gres_report(&n, devs);
	json_decref(devs);
	assert_true(n.drain);
	assert_string_equal(n.reason, "gres/gpu count reported lower than configured (1 < 2)");
	assert_string_equal(n.reason_user, "root");

	/* an A100 is not an H100 */
	n.drain = false;
	free(n.reason);
	n.reason = NULL;
	devs = json_pack("[o,o]", gpu("nvidia_a100", 0, "/dev/nvidia0", ""),
			 gpu("nvidia_a100", 1, "/dev/nvidia1", ""));
	node_gres_report(&n, devs);
	json_decref(devs);
	assert_true(n.drain);
	assert_string_equal(n.reason, "gres/gpu count reported lower than configured (0 < 2)");
	free(n.gres_decl), free(n.gres_devs), free(n.gres_slots), free(n.gres_shown), free(n.gres_used_shown);
	free(n.reason), free(n.reason_user);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_names_gres_types),
		cmocka_unit_test(report_compared_and_shown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
