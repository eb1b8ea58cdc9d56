/* oci.conf (--container's runtime commands) and its %-patterns, case by
 * case.  The stepd source is not in libherd: compiled in here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "stepd/oci_conf.c"

#define RUN_CONF "RunTimeQuery=\"runc state %n\"\n" \
		 "RunTimeKill=\"runc kill -a %n\"\n" \
		 "RunTimeDelete=\"runc delete --force %n\"\n" \
		 "RunTimeRun=\"runc run %n -b %b\"\n"

static void test_parse_run(void **state)
{
	struct oci_conf oc;
	struct herd_error err = { "" };
	const char *text = "# Slurm's example\n"
			   "  runtimerun = \"runc --rootless=true run %n.%u -b %b\"  # trailing\n"
			   "RunTimeQuery=runc state x\n"
			   "RunTimeKill=\"runc kill -a x\"\n"
			   "RunTimeDelete=\"runc delete --force x\"\n"
			   "EnvExclude=\"^(SLURM_CONF|SLURM_CONF_SERVER)=\"\n"
			   "CreateEnvFile=newline\n"
			   "DisableHooks=prestart, poststart\n"
			   "ContainerPath=/run/herd/%u/%j\n"
			   "DebugFlags=steps\n"
			   "IgnoreFileConfigJson=true\n"
			   "MountSpoolDir=/spool\\#1\n";

	assert_int_equal(oci_conf_parse(text, "oci.conf", &oc, &err), 0);
	assert_string_equal(oc.runtime_run, "runc --rootless=true run %n.%u -b %b");
	assert_string_equal(oc.runtime_query, "runc state x");
	assert_null(oc.runtime_create);
	assert_int_equal(oc.env_file, OCI_ENV_NEWLINE);
	assert_int_equal(oc.ndisable_hooks, 2);
	assert_string_equal(oc.disable_hooks[1], "poststart");
	assert_string_equal(oc.container_path, "/run/herd/%u/%j");
	assert_string_equal(oc.mount_spool_dir, "/spool#1");
	assert_true(oc.has_env_exclude);
	assert_false(oci_env_kept(&oc.env_exclude, "SLURM_CONF=/etc/x"));
	assert_true(oci_env_kept(&oc.env_exclude, "SLURM_CONFX=1"));
	assert_true(oci_env_kept(NULL, "ANY=1"));
	oci_conf_free(&oc);

	/* the default MountSpoolDir; true is null (22.05's spelling) */
	assert_int_equal(oci_conf_parse(RUN_CONF "CreateEnvFile=true\n", "f", &oc, &err), 0);
	assert_string_equal(oc.mount_spool_dir, OCI_MOUNT_SPOOL_DEFAULT);
	assert_int_equal(oc.env_file, OCI_ENV_NULL);
	oci_conf_free(&oc);
}

static void test_parse_errors(void **state)
{
	static const struct { const char *text, *error; } cases[] = {
		{ RUN_CONF "Bogus=1\n", "f:5: unknown key 'Bogus'" },
		{ RUN_CONF "no equals sign\n", "f:5: expected Key=Value, found 'no equals sign'" },
		{ RUN_CONF "CreateEnvFile=maybe\n",
		  "f:5: invalid value 'maybe' for key 'CreateEnvFile' (null, newline or disabled)" },
		{ RUN_CONF "DisableCleanup=perhaps\n", "f:5: invalid value 'perhaps' for key 'DisableCleanup'" },
		{ RUN_CONF "EnvExclude=(\n", "f:5: EnvExclude: invalid regular expression '(': " },
		{ RUN_CONF "RunTimeCreate=\"runc create\"\n",
		  "f: RunTimeRun and RunTimeCreate/RunTimeStart are mutually exclusive" },
		{ "RunTimeKill=k\nRunTimeDelete=d\n",
		  "f: RunTimeRun, or RunTimeCreate and RunTimeStart, must be set" },
		{ "RunTimeCreate=c\nRunTimeStart=s\nRunTimeKill=k\nRunTimeDelete=d\n",
		  "f: RunTimeQuery must be set with RunTimeCreate" },
		{ "RunTimeRun=r\nRunTimeKill=k\n", "f: RunTimeKill and RunTimeDelete must be set" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct oci_conf oc;
		struct herd_error err = { "" };
		assert_int_equal(oci_conf_parse(cases[i].text, "f", &oc, &err), -1);
		if (strncmp(err.text, cases[i].error, strlen(cases[i].error)))
			fail_msg("case %zu: got '%s', want '%s'", i, err.text, cases[i].error);
		assert_null(oc.runtime_run);   /* freed on failure */
	}
}

static void test_patterns(void **state)
{
	char *argv[] = { "sh", "-c", "echo 'hi' there", NULL };
	struct oci_pattern_ctx c = {
		.bundle = "/spool/job7.0/oci task", .env_file = "/e", .rootfs = "/b/rootfs",
		.spool = "/spool", .node = "n1", .user = "alice", .job_id = 7, .step_id = 0,
		.task_id = 3, .uid = 1001, .pid = 42, .argv = argv,
	};
	static const struct { const char *in, *quoted, *plain; } cases[] = {
		{ "%n.%u.%j.%s.%t", "'n1'.'alice'.7.0.3", "n1.alice.7.0.3" },
		{ "run -b %b", "run -b '/spool/job7.0/oci task'", "run -b /spool/job7.0/oci task" },
		{ "%@", "'sh' '-c' 'echo '\\''hi'\\'' there'", "sh -c echo 'hi' there" },
		{ "%U %p %r %e %m", "1001 42 '/b/rootfs' '/e' '/spool'", "1001 42 /b/rootfs /e /spool" },
		{ "100%% %q end%", "100% %q end%", "100% %q end%" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *q = oci_pattern(cases[i].in, &c, true), *p = oci_pattern(cases[i].in, &c, false);
		assert_string_equal(q, cases[i].quoted);
		assert_string_equal(p, cases[i].plain);
		free(q);
		free(p);
	}
	c.step_id = 4294967291u;   /* the batch step */
	char *s = oci_pattern("%s", &c, true);
	assert_string_equal(s, "4294967291");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_run),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_patterns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
