/* acct/assoc.c on a real store: what the first start makes, the config
 * words (AccountingStorageEnforce implications, PrivateData), the lookups
 * every submission asks (partition association first, QOS and default QOS
 * inherited, the tree, coordinators above an account), and a restart that
 * loads exactly what was committed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "acct/assoc_impl.h"
#include "ctld/ctld.h"

struct ctld ctld;   /* main.c's, which this test does not link */

static char dir[] = "/tmp/herd-assoc-XXXXXX";
static uv_idle_t idle;
static struct conf conf;
static struct conf_kv kv[2];
static bool committed;

static void spin(uv_idle_t *h)
{
}

static void setup_ctld(const char *enforce, const char *priv)
{
	memset(&ctld, 0, sizeof(ctld));
	ctld.loop = xmalloc(sizeof(*ctld.loop));
	uv_loop_init(ctld.loop);
	uv_idle_init(ctld.loop, &idle);
	uv_idle_start(&idle, spin);
	core.cluster = "alpha";
	core.slurm_uid = 4242;
	kv[0] = (struct conf_kv){ "AccountingStorageEnforce", (char *)enforce };
	kv[1] = (struct conf_kv){ "PrivateData", (char *)priv };
	conf = (struct conf){ .kv = kv, .nkv = 2 };
	core.conf = &conf;
}

static void teardown_ctld(void)
{
	uv_close((uv_handle_t *)&idle, NULL);
	uv_run(ctld.loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(ctld.loop), 0);
	free(ctld.loop);
	assoc_free_all();
}

static void note(void *arg, bool ok)
{
	assert_true(ok);
	committed = true;
}

static void commit(void)
{
	committed = false;
	store_after_commit(note, NULL);
	while (!committed)
		uv_run(ctld.loop, UV_RUN_ONCE);
}

static void count_one(struct assoc *a, void *arg)
{
	(*(int *)arg)++;
}

static void enforce_words(void **state)
{
	static const struct {
		const char *words;
		bool assoc, limits, qos, safe;
	} cases[] = {
		{ NULL, false, false, false, false },
		{ "associations", true, false, false, false },
		{ "limits", true, true, false, false },
		{ "qos", true, false, true, false },
		{ "safe", true, true, false, true },
		{ "all", true, true, true, true },
		{ "nojobs,nosteps", false, false, false, false },
		{ "Limits, QOS", true, true, true, false },
		{ "associations,limits,qos,safe", true, true, true, true },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setup_ctld(cases[i].words, "jobs,usage,nodes");
		assoc_reconfigure();
		assert_int_equal(accounting.enforce_assoc, cases[i].assoc);
		assert_int_equal(accounting.enforce_limits, cases[i].limits);
		assert_int_equal(accounting.enforce_qos, cases[i].qos);
		assert_int_equal(accounting.enforce_safe, cases[i].safe);
		assert_true(accounting.private_jobs);
		assert_true(accounting.private_usage);
		assert_false(accounting.private_users);
		assert_false(accounting.private_accounts);
		teardown_ctld();
	}
}

static void defaults_lookups_and_restart(void **state)
{
	struct herd_error err;
	assert_non_null(mkdtemp(dir));
	setup_ctld("limits", "users,accounts");
	assert_int_equal(store_open(dir, &err), 0);
	assoc_setup();
	assert_true(accounting.enforce_assoc);
	assert_true(accounting.private_users && accounting.private_accounts);

	/* the first start: cluster, QOS normal (1), root account, association,
	 * and the root user, an Administrator */
	assert_non_null(acct_cluster_find("alpha"));
	struct acct_qos *normal = acct_qos_find("normal");
	assert_non_null(normal);
	assert_int_equal(normal->id, 1);
	assert_non_null(acct_account_find("root"));
	struct assoc *root = assoc_find_account("root");
	assert_non_null(root);
	assert_null(root->parent);
	assert_non_null(assoc_find("root", "root", NULL));
	assert_int_equal(acct_user_find("root")->admin, ADMIN_ADMIN);
	assert_string_equal(acct_default_account("root"), "root");
	assert_int_equal(acct_admin_level(0), ADMIN_ADMIN);
	assert_int_equal(acct_admin_level(4242), ADMIN_ADMIN);   /* SlurmUser */
	assert_int_equal(acct_admin_level(65534), ADMIN_NONE);
	assert_true(acct_is_operator(0));
	assert_false(acct_is_operator(65534));

	/* a tree: root > physics > chem; user "root" in chem, with and without
	 * a partition */
	struct acct_qos *high = acct_qos_new("high", 0);
	acct_qos_save(high);
	assert_int_equal(high->id, 2);
	struct acct_account *phys = acct_account_new("physics"), *chem = acct_account_new("chem");
	acct_account_save(phys);
	acct_account_save(chem);
	struct assoc *pa = assoc_new(0, "alpha", "physics", NULL, NULL);
	pa->parent_acct = xstrdup("root");
	pa->qos_list = xstrdup("normal,high");
	pa->default_qos = xstrdup("high");
	pa->lim.grp_jobs = 4;
	assoc_save(pa);
	struct assoc *ca = assoc_new(0, "alpha", "chem", NULL, NULL);
	ca->parent_acct = xstrdup("physics");
	ca->shares = SHARES_PARENT;
	assoc_save(ca);
	struct assoc *ua = assoc_new(0, "alpha", "chem", "root", NULL);
	struct assoc *up = assoc_new(0, "alpha", "chem", "root", "gpu");
	up->qos_list = xstrdup("normal");
	up->lim.max_tres_per_job[TRES_GPU] = 2;
	assoc_save(ua);
	assoc_save(up);
	assoc_resolve_parents();
	/* other clusters' associations are not this cluster's */
	assoc_save(assoc_new(0, "beta", "chem", "root", NULL));
	uint32_t ua_id = ua->id;

	assert_ptr_equal(assoc_find("chem", "root", "gpu"), up);
	assert_ptr_equal(assoc_find("chem", "root", "cpu"), ua);
	assert_ptr_equal(assoc_find("chem", "root", NULL), ua);
	assert_null(assoc_find("chem", "nobody", NULL));
	assert_null(assoc_find("nosuch", "root", NULL));
	assert_ptr_equal(assoc_by_id(ua_id), ua);
	assert_ptr_equal(ua->parent, ca);
	assert_ptr_equal(ca->parent, pa);
	assert_int_equal(assoc_depth(ua), 3);
	assert_true(acct_account_under("chem", "root"));
	assert_true(acct_account_under("chem", "physics"));
	assert_true(acct_account_under("chem", "chem"));
	assert_false(acct_account_under("physics", "chem"));
	/* QOS: the nearest list, the nearest default */
	assert_true(assoc_qos_allowed(ua, "high"));
	assert_false(assoc_qos_allowed(ua, "low"));
	assert_false(assoc_qos_allowed(up, "high"));
	assert_string_equal(assoc_default_qos(ua), "high");
	assert_string_equal(assoc_default_qos(root), "normal");
	/* roles */
	assert_true(acct_user_in_account(0, "chem"));
	assert_false(acct_user_in_account(0, "physics"));
	assert_false(acct_is_coord(0, "chem"));
	phys->coords = xrealloc(phys->coords, 2 * sizeof(char *));
	phys->coords[0] = xstrdup("root");
	phys->coords[1] = NULL;
	acct_account_save(phys);
	assert_true(acct_is_coord(0, "chem"));     /* coordinator of an account above */
	assert_true(acct_is_coord(0, "physics"));
	assert_false(acct_is_coord(0, "root"));
	int n = 0;
	assoc_foreach(count_one, &n);
	assert_int_equal(n, 7);

	/* a removed association is out of the lookups, the store and foreach */
	assoc_remove(up);
	assert_true(up->deleted);
	n = 0;
	assoc_foreach(count_one, &n);
	assert_int_equal(n, 6);
	assert_ptr_equal(assoc_find("chem", "root", "gpu"), ua);
	commit();
	store_close();
	teardown_ctld();

	/* restart: exactly what was committed */
	setup_ctld(NULL, NULL);
	assert_int_equal(store_open(dir, &err), 0);
	assoc_setup();
	assert_false(accounting.enforce_assoc);
	ua = assoc_find("chem", "root", "gpu");
	assert_non_null(ua);
	assert_int_equal(ua->id, ua_id);
	assert_null(ua->partition);
	assert_int_equal(ua->parent->shares, SHARES_PARENT);
	assert_int_equal(ua->parent->parent->lim.grp_jobs, 4);
	assert_string_equal(assoc_default_qos(ua), "high");
	assert_int_equal(acct_qos_find("high")->id, 2);
	assert_true(acct_is_coord(0, "chem"));
	assert_non_null(assoc_find_exact("beta", "chem", "root", NULL));
	/* IDs never come back */
	struct assoc *fresh = assoc_new(0, "alpha", "physics", "root", NULL);
	assert_true(fresh->id > ua_id + 2);
	store_close();
	teardown_ctld();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(enforce_words),
		cmocka_unit_test(defaults_lookups_and_restart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
