/* Requests of generic resources (common/tres_req.c): --gres's and the
 * gpus options' text, as Slurm takes and refuses it, in TRES form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/tres_req.h"

/* the canonical form of text, or NULL when refused */
static char *canon(const char *text)
{
	struct tres_item items[TRES_REQ_MAX];
	struct herd_error err = { "" };
	int n = tres_req_parse(text, items, TRES_REQ_MAX, &err);
	if (n < 0) {
		assert_string_equal(err.text, "Invalid generic resource (gres) specification");
		return NULL;
	}
	return tres_req_format(items, n);
}

static void check(const char *text, const char *want)
{
	char *got = canon(text);
	if (!want) {
		if (got)
			fail_msg("%s: taken as %s", text, got);
		return;
	}
	if (!got)
		fail_msg("%s: refused", text);
	assert_string_equal(got, want);
	free(got);
}

static void cases(void **state)
{
	check("gpu", "gres/gpu:1");
	check("gpu:2", "gres/gpu:2");
	check("gpu:h100:8", "gres/gpu:h100:8");
	check("gpu:h100", "gres/gpu:h100:1");
	check("gres/gpu:a100:2,gres/shard:4", "gres/gpu:a100:2,gres/shard:4");
	check("gres:gpu:1", "gres/gpu:1");
	check("shard:2K", "gres/shard:2048");
	check("gpu:1,gpu:3", "gres/gpu:3");              /* a later one replaces */
	check("gpu:v100:1,gpu:k80:2", "gres/gpu:v100:1,gres/gpu:k80:2");
	check("gpu:0", "gres/gpu:0");
	check("gpu:1g.10gb:2", "gres/gpu:1g.10gb:2");    /* MIG types start with a digit */
	check("gpu:3g.40gb", "gres/gpu:3g.40gb:1");
	check("", "");
	check("gpu:x:y", NULL);
	check("gpu:a:1:2", NULL);
	check("gpu:", NULL);
	check(":2", NULL);
	check("gpu,", NULL);
	check("gpu:2M", NULL);                            /* past any cluster */
	check("gp u:1", NULL);
	check("gpu:99999999999999999999", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(cases) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
