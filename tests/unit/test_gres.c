/* gres: gres.conf lines to device records, node Gres= strings, the strings
 * shown, and malformed input refused with file:line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/gres.h"

static void test_global_and_node_lines(void **state)
{
	const char *text =
		"# a comment\n"
		"AutoDetect=off\n"
		"NodeName=n[1-2] Name=gpu Type=h100 File=/dev/nvidia[0-3] Cores=0-3 \\\n"
		"   Links=-1,2,0,0\n"
		"NodeName=n3 Name=gpu File=/dev/nvidia0\n"
		"Name=shard Count=32   # every node\n"
		"name=mps count=4K flags=CountOnly\n"
		"NodeName=n2 AutoDetect=nvml\n";
	struct gres_conf gc;
	struct herd_error err = { "" };

	assert_int_equal(gres_conf_parse(text, "gres.conf", "n2", &gc, &err), 0);
	assert_int_equal(gc.ndevs, 6);
	assert_int_equal(gc.autodetect, GRES_AUTODETECT_NVML);
	for (int i = 0; i < 4; i++) {
		char file[32];
		snprintf(file, sizeof(file), "/dev/nvidia%d", i);
		assert_string_equal(gc.devs[i].name, "gpu");
		assert_string_equal(gc.devs[i].type, "h100");
		assert_string_equal(gc.devs[i].file, file);
		assert_string_equal(gc.devs[i].cores, "0-3");
		assert_string_equal(gc.devs[i].links, "-1,2,0,0");
		assert_int_equal(gc.devs[i].index, i);
		assert_int_equal(gc.devs[i].count, 1);
	}
	assert_string_equal(gc.devs[4].name, "shard");
	assert_int_equal(gc.devs[4].count, 32);
	assert_int_equal(gc.devs[4].index, 0);
	assert_string_equal(gc.devs[4].file, "");
	assert_int_equal(gc.devs[5].count, 4096);
	assert_int_equal(gc.devs[5].flags, GRES_F_COUNT_ONLY);
	gres_conf_free(&gc);

	assert_int_equal(gres_conf_parse(text, "gres.conf", "n3", &gc, &err), 0);
	assert_int_equal(gc.ndevs, 3);
	assert_int_equal(gc.autodetect, GRES_AUTODETECT_OFF);
	assert_string_equal(gc.devs[0].type, "");
	gres_conf_free(&gc);

	assert_int_equal(gres_conf_parse("", "gres.conf", "n1", &gc, &err), 0);
	assert_int_equal(gc.ndevs, 0);
	assert_int_equal(gc.autodetect, GRES_AUTODETECT_UNSET);
	gres_conf_free(&gc);
}

static const struct {
	const char *text;
	const char *error;
} bad_cases[] = {
	{ "Name=gpu Foo=1\n", "g.conf:1: unknown key 'Foo'" },
	{ "\nName=gpu File=/dev/nvidia[0-1] Count=3\n",
	  "g.conf:2: Count=3 does not match the 2 device files of File=/dev/nvidia[0-1]" },
	{ "Type=h100 File=/dev/nvidia0\n", "g.conf:1: Name= is required" },
	{ "Name=gpu Cores=3-1\n", "g.conf:1: gres/gpu: invalid GRES core specification (3-1)" },
	{ "Name=gpu Count=12X\n", "g.conf:1: invalid Count=12X" },
	{ "Name=gpu Flags=fast\n", "g.conf:1: unknown flag 'fast' in Flags=fast" },
	{ "AutoDetect=rsmi\n", "g.conf:1: AutoDetect=rsmi is not supported (nvml or off)" },
	{ "AutoDetect=maybe\n", "g.conf:1: invalid AutoDetect=maybe (nvml or off)" },
	{ "Name=gpu File=nvidia0\n", "g.conf:1: File=nvidia0: 'nvidia0' is not an absolute path" },
	{ "Name=gpu Links=1,x\n", "g.conf:1: invalid Links=1,x" },
	{ "Name=g/pu\n", "g.conf:1: invalid Name=g/pu" },
	{ "Name=gpu File=/dev/nvidia[0-99999]\n", "g.conf:1: invalid File=/dev/nvidia[0-99999]" },
	{ "Name\n", "g.conf:1: expected Key=Value, found 'Name'" },
	{ "NodeName=n[1- Name=gpu\n", "g.conf:1: invalid NodeName=n[1-" },
	{ "NodeName=a[1-600000] Name=gpu\nNodeName=b[1-600000] Name=gpu\n",
	  "g.conf:2: NodeName= lines name more than 1000000 nodes" },
};

static void test_bad_lines(void **state)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct gres_conf gc = { 0 };
		struct herd_error err = { "" };
		assert_int_equal(gres_conf_parse(bad_cases[i].text, "g.conf", "n1", &gc, &err), -1);
		assert_string_equal(err.text, bad_cases[i].error);
		assert_null(gc.devs);
	}
}

static void test_decl(void **state)
{
	struct gres_decl *d;
	size_t n;
	struct herd_error err = { "" };

	assert_int_equal(gres_decl_parse("gpu:h100:8,shard:32,gpu:2,mps,bw:lustre:no_consume:4G",
					 &d, &n, &err), 0);
	assert_int_equal(n, 5);
	assert_string_equal(d[0].name, "gpu");
	assert_string_equal(d[0].type, "h100");
	assert_int_equal(d[0].count, 8);
	assert_string_equal(d[1].name, "shard");
	assert_string_equal(d[1].type, "");
	assert_int_equal(d[1].count, 32);
	assert_int_equal(d[2].count, 2);
	assert_string_equal(d[3].name, "mps");
	assert_int_equal(d[3].count, 1);
	assert_string_equal(d[4].type, "lustre");
	assert_int_equal(d[4].flags, GRES_F_NO_CONSUME);
	assert_int_equal(d[4].count, 4ULL << 30);
	free(d);

	assert_int_equal(gres_decl_parse("", &d, &n, &err), 0);
	assert_int_equal(n, 0);
	free(d);
	assert_int_equal(gres_decl_parse("gpu:a:b:2", &d, &n, &err), -1);
	assert_string_equal(err.text, "Invalid GRES specification (gpu:a:b:2)");
	assert_int_equal(gres_decl_parse("gpu:2x", &d, &n, &err), -1);
	assert_int_equal(gres_decl_parse(":2", &d, &n, &err), -1);

	assert_true(gres_types_has("gpu,mps,shard", "shard"));
	assert_true(gres_types_has("GPU", "gpu"));
	assert_false(gres_types_has("gpu,mps", "mp"));
	assert_false(gres_types_has(NULL, "gpu"));
}

/* AccountingStorageTRES: whole names, case aside; gpumem and gpuutil come
 * with gres/gpu. */
static void test_tres_tracked(void **state)
{
	assert_true(gres_tres_tracked("gres/gpu", "gres/gpu"));
	assert_true(gres_tres_tracked("license/iop1, GRES/GPU ,bb/cray", "gres/gpu"));
	assert_true(gres_tres_tracked("gres/gpu", "gres/gpumem"));
	assert_true(gres_tres_tracked("gres/gpu", "gres/gpuutil"));
	assert_false(gres_tres_tracked("gres/gpu", "gres/gpu:h100"));
	assert_true(gres_tres_tracked("gres/gpu,gres/gpu:h100", "gres/gpu:h100"));
	assert_false(gres_tres_tracked("gres/gpu:h100", "gres/gpu"));
	assert_false(gres_tres_tracked("gres/gpus", "gres/gpu"));
	assert_false(gres_tres_tracked("", "gres/gpu"));
	assert_false(gres_tres_tracked(NULL, "gres/gpu"));
}

static void test_strings(void **state)
{
	struct gres_decl *d;
	size_t n;
	struct gres_conf gc;
	struct herd_error err = { "" };
	const char *text = "Name=gpu Type=h100 File=/dev/nvidia[0-1] Cores=0-3\n"
			   "Name=gpu Type=h100 File=/dev/nvidia[2-3] Cores=4-7\n"
			   "Name=shard Count=32\n";

	assert_int_equal(gres_decl_parse("gpu:h100:4,shard:32", &d, &n, &err), 0);
	assert_int_equal(gres_conf_parse(text, "g", "n1", &gc, &err), 0);
	char *s = gres_node_string(d, n, gc.devs, gc.ndevs, 4);
	assert_string_equal(s, "gpu:h100:4(S:0-1),shard:32");
	free(s);
	s = gres_node_string(d, n, NULL, 0, 4);
	assert_string_equal(s, "gpu:h100:4,shard:32");
	free(s);
	s = gres_used_string(d, n, gc.devs, gc.ndevs);
	assert_string_equal(s, "gpu:h100:0(IDX:N/A),shard:0");
	free(s);
	assert_int_equal(gres_devs_count(gc.devs, gc.ndevs, "gpu", "h100"), 4);
	assert_int_equal(gres_devs_count(gc.devs, gc.ndevs, "gpu", NULL), 4);
	assert_int_equal(gres_devs_count(gc.devs, gc.ndevs, "gpu", "a100"), 0);
	assert_int_equal(gres_devs_count(gc.devs, gc.ndevs, "gpu", "H10"), 4);   /* a substring, as Slurm */
	assert_true(gres_type_matches("nvidia_h100_80gb_hbm3", "h100"));
	assert_false(gres_type_matches("nvidia_a100", "h100"));

	/* the wire form round-trips */
	json_t *j = gres_devs_to_json(gc.devs, gc.ndevs);
	struct gres_dev *back;
	size_t nback;
	assert_int_equal(gres_devs_from_json(j, &back, &nback, &err), 0);
	assert_int_equal(nback, gc.ndevs);
	assert_memory_equal(back, gc.devs, nback * sizeof(*back));
	free(back);
	json_array_append_new(j, json_pack("{s:s}", "name", "gpu"));
	assert_int_equal(gres_devs_from_json(j, &back, &nback, &err), -1);
	assert_string_equal(err.text, "gres: record 5 is malformed");
	json_decref(j);
	gres_conf_free(&gc);
	free(d);

	uint64_t v;
	assert_int_equal(gres_count_parse("2M", &v), 0);
	assert_int_equal(v, 2 << 20);
	assert_int_equal(gres_count_parse("-1", &v), -1);
	assert_int_equal(gres_count_parse("99999999999999999999", &v), -1);
	assert_int_equal(gres_count_parse("1T", &v), 0);
	assert_true(gres_cores_valid("0-3,8,10-11", 0));
	assert_false(gres_cores_valid("0-3,", 0));
	assert_false(gres_cores_valid("4", 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_global_and_node_lines),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_decl),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_tres_tracked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
