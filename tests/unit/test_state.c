/* State names and codes as Slurm spells them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "common/state.h"

static void job_states(void **state)
{
	static const struct { enum job_state s; const char *name, *code; } t[] = {
		{ JOB_PENDING, "PENDING", "PD" }, { JOB_RUNNING, "RUNNING", "R" },
		{ JOB_SUSPENDED, "SUSPENDED", "S" }, { JOB_COMPLETING, "COMPLETING", "CG" },
		{ JOB_COMPLETED, "COMPLETED", "CD" }, { JOB_CANCELLED, "CANCELLED", "CA" },
		{ JOB_FAILED, "FAILED", "F" }, { JOB_TIMEOUT, "TIMEOUT", "TO" },
		{ JOB_NODE_FAIL, "NODE_FAIL", "NF" }, { JOB_PREEMPTED, "PREEMPTED", "PR" },
		{ JOB_BOOT_FAIL, "BOOT_FAIL", "BF" }, { JOB_DEADLINE, "DEADLINE", "DL" },
		{ JOB_OUT_OF_MEMORY, "OUT_OF_MEMORY", "OOM" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_string_equal(job_state_name(t[i].s), t[i].name);
		assert_string_equal(job_state_code(t[i].s), t[i].code);
		assert_int_equal(job_state_parse(t[i].name), t[i].s);
		assert_int_equal(job_state_parse(t[i].code), t[i].s);
	}
	assert_int_equal(job_state_parse("pending"), JOB_PENDING);   /* squeue -t is case-blind */
	assert_int_equal(job_state_parse("cd"), JOB_COMPLETED);
	assert_int_equal(job_state_parse("nonsense"), -1);
	assert_false(job_state_is_final(JOB_PENDING));
	assert_false(job_state_is_final(JOB_COMPLETING));
	assert_true(job_state_is_final(JOB_COMPLETED));
	assert_true(job_state_is_final(JOB_OUT_OF_MEMORY));
	assert_string_equal(job_state_name(JOB_STATE_COUNT), "UNKNOWN");
}

static void node_states(void **state)
{
	assert_string_equal(node_state_name(NODE_IDLE), "IDLE");
	assert_string_equal(node_state_short(NODE_ALLOCATED), "alloc");
	assert_string_equal(node_state_short(NODE_MIXED), "mix");
	assert_string_equal(node_state_short(NODE_UNKNOWN), "unk");
	assert_int_equal(node_state_parse("down"), NODE_DOWN);
	assert_int_equal(node_state_parse("IDLE"), NODE_IDLE);
	assert_int_equal(node_state_parse("sleepy"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(job_states),
		cmocka_unit_test(node_states),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
