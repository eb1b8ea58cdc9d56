/* sacctmgr's pure pieces (compiled in: they are not part of libherd):
 * Slurm's key abbreviations and old one-TRES keys, entity names, the
 * columns format= knows and how cells render, and the flat file written
 * from dump rows and parsed back, quotes and backslashes included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/opt.c"
#include "cmd/sacctmgr/keys.c"
#include "cmd/sacctmgr/print.c"
#include "cmd/sacctmgr/flat.c"
#include "cmd/sacctmgr/flat_parse.c"

struct sacctmgr_opts opts;   /* sacctmgr.c's, which this test does not compile in */

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void keys(void **state)
{
	static const struct {
		const char *typed, *canon, *tres;
	} cases[] = {
		{ "Account", "account", NULL },       { "acct", "account", NULL },
		{ "acc", "account", NULL },           { "AdminLevel", "adminlevel", NULL },
		{ "cl", "cluster", NULL },            { "DefaultAccount", "defaultaccount", NULL },
		{ "defaulta", "defaultaccount", NULL }, { "DefaultQOS", "defaultqos", NULL },
		{ "Descr", "description", NULL },     { "fair", "fairshare", NULL },
		{ "Shares", "fairshare", NULL },      { "fl", "flags", NULL },
		{ "GrpCPUs", "grptres", "cpu" },      { "GrpNodes", "grptres", "node" },
		{ "GrpMem", "grptres", "mem" },       { "GrpCPUMins", "grptresmins", "cpu" },
		{ "GrpJobs", "grpjobs", NULL },       { "GrpSubmit", "grpsubmitjobs", NULL },
		{ "GrpTRES", "grptres", NULL },       { "GrpTRESMins", "grptresmins", NULL },
		{ "GrpWall", "grpwall", NULL },       { "MaxJobs", "maxjobs", NULL },
		{ "MaxJobsPU", "maxjobsperuser", NULL }, { "MaxJobsPerUser", "maxjobsperuser", NULL },
		{ "MaxS", "maxsubmitjobs", NULL },    { "MaxSubmitPU", "maxsubmitjobsperuser", NULL },
		{ "MaxTRES", "maxtresperjob", NULL }, { "MaxTRESMins", "maxtresminsperjob", NULL },
		{ "MaxTRESPerNode", "maxtrespernode", NULL }, { "MaxTRESPU", "maxtresperuser", NULL },
		{ "MaxNodes", "maxtresperjob", "node" }, { "MaxCPUs", "maxtresperjob", "cpu" },
		{ "MaxCPUMins", "maxtresminsperjob", "cpu" }, { "MaxWall", "maxwall", NULL },
		{ "MaxWallDurationPerJob", "maxwall", NULL }, { "Names", "name", NULL },
		{ "o", "organization", NULL },        { "par", "parent", NULL },
		{ "part", "partition", NULL },        { "Preempt", "preempt", NULL },
		{ "PreemptMode", "preemptmode", NULL }, { "prio", "priority", NULL },
		{ "QOS", "qos", NULL },               { "QosLevel", "qos", NULL },
		{ "u", "user", NULL },                { "UsageFactor", "usagefactor", NULL },
	};
	for (size_t i = 0; i < N(cases); i++) {
		const struct key_def *k = keys_find(cases[i].typed, strlen(cases[i].typed));
		if (!k)
			fail_msg("%s: not found", cases[i].typed);
		if (strcmp(k->canon, cases[i].canon))
			fail_msg("%s gave %s, expected %s", cases[i].typed, k->canon, cases[i].canon);
		if (cases[i].tres ? !k->tres || strcmp(k->tres, cases[i].tres) : k->tres != NULL)
			fail_msg("%s: wrong TRES", cases[i].typed);
	}
	static const char *const unknown[] = { "def", "colour", "m", "maxt", "g", "pa", "x" };
	for (size_t i = 0; i < N(unknown); i++)
		if (keys_find(unknown[i], strlen(unknown[i])))
			fail_msg("%s should be unknown (or ambiguous)", unknown[i]);
}

static void put_values(void **state)
{
	json_t *o = json_object();
	keys_put(o, keys_find("GrpCPUs", 7), "10", 0);
	keys_put(o, keys_find("GrpNodes", 8), "2", 0);
	keys_put(o, keys_find("qos", 3), "High", '+');
	keys_put(o, keys_find("Account", 7), "PhYsics", 0);
	keys_put(o, keys_find("Description", 11), "Mixed Case; 'q'", 0);
	keys_put(o, keys_find("MaxCPUs", 7), "-1", 0);
	assert_string_equal(json_string_value(json_object_get(o, "grptres")), "cpu=10,node=2");
	assert_string_equal(json_string_value(json_object_get(o, "qos")), "+high");
	assert_string_equal(json_string_value(json_object_get(o, "account")), "physics");
	assert_string_equal(json_string_value(json_object_get(o, "description")), "Mixed Case; 'q'");
	assert_string_equal(json_string_value(json_object_get(o, "maxtresperjob")), "cpu=-1");
	json_decref(o);
	/* only ASCII letters are lowered */
	char *l = text_lower("ÜnïCODE-Ab");
	assert_string_equal(l, "Ünïcode-ab");
	free(l);
	json_t *names = json_array();
	keys_names_add(names, "A,,b,C");
	assert_int_equal(json_array_size(names), 3);
	assert_string_equal(json_string_value(json_array_get(names, 2)), "c");
	json_decref(names);
}

static void entity_names(void **state)
{
	static const struct {
		const char *typed, *entity;
	} cases[] = {
		{ "account", "account" }, { "acc", "account" },     { "acct", "account" },
		{ "Accounts", "account" }, { "ass", "association" }, { "associations", "association" },
		{ "cl", "cluster" },      { "coo", "coordinator" }, { "q", "qos" },
		{ "tr", "tres" },         { "u", "user" },           { "users", "user" },
		{ "ac", NULL },           { "as", NULL },            { "widgets", NULL },
	};
	for (size_t i = 0; i < N(cases); i++) {
		const char *e = keys_entity(cases[i].typed);
		if (cases[i].entity ? !e || strcmp(e, cases[i].entity) : e != NULL)
			fail_msg("%s gave %s", cases[i].typed, e ? e : "(none)");
	}
}

static void columns_and_cells(void **state)
{
	size_t n, nc;
	const struct col_def *defs = print_columns("association", &n);
	struct col *c;
	assert_int_equal(print_cols_parse(defs, n, "Account%20,descr%-5,MaxWall,GrpCPUs,share,"
					  "ParentName,maxtresmins,DefaultQOS", &c, &nc), 0);
	assert_int_equal(nc, 8);
	assert_string_equal(c[0].def->title, "Account");
	assert_int_equal(c[0].width, 20);
	assert_string_equal(c[1].def->title, "Descr");
	assert_int_equal(c[1].width, -5);
	assert_int_equal(c[2].width, 11);
	assert_string_equal(c[4].def->title, "Share");
	assert_string_equal(c[5].def->title, "Par Name");
	assert_string_equal(c[7].def->title, "Def QOS");
	json_t *row = json_pack("{s:s, s:I, s:s, s:s, s:s, s:s}", "account", "physics", "max_wall",
				(json_int_t)1530, "grp_tres", "cpu=8,node=2", "share", "parent",
				"max_tres_mins", "cpu=600", "def_qos", "");
	char *v = print_cell_value(c[2].def, row);
	assert_string_equal(v, "1-01:30:00");
	free(v);
	v = print_cell_value(c[3].def, row);
	assert_string_equal(v, "8");
	free(v);
	v = print_cell_value(c[4].def, row);
	assert_string_equal(v, "parent");
	free(v);
	json_object_set_new(row, "max_wall", json_integer(90));
	v = print_cell_value(c[2].def, row);
	assert_string_equal(v, "01:30:00");
	free(v);
	json_object_set_new(row, "max_wall", json_integer(-1));
	v = print_cell_value(c[2].def, row);
	assert_string_equal(v, "");
	free(v);
	json_decref(row);
	free(c);
	assert_int_equal(print_cols_parse(defs, n, "Account,Colour", &c, &nc), -1);
	assert_int_equal(print_cols_parse(defs, n, "Account%x", &c, &nc), -1);
	/* QOS columns: their own */
	defs = print_columns("qos", &n);
	assert_int_equal(print_cols_parse(defs, n, "name,usagefactor,maxjobspu,gracetime", &c, &nc), 0);
	row = json_pack("{s:s, s:f, s:I}", "name", "low", "usage_factor", 0.5, "max_jobs_pu",
			(json_int_t)4);
	static const char *const want[] = { "low", "0.500000", "4", "00:00:00" };
	for (size_t i = 0; i < nc; i++) {
		v = print_cell_value(c[i].def, row);
		assert_string_equal(v, want[i]);
		free(v);
	}
	json_decref(row);
	free(c);
}

/* Cells cut where a UTF-8 character ends, never inside one. */
static void utf8_cut(void **state)
{
	assert_int_equal(print_utf8_cut("physics", 10), 7);
	assert_int_equal(print_utf8_cut("physics", 3), 3);
	assert_int_equal(print_utf8_cut("\xc3\xbcn", 1), 0);      /* "ün": not half the ü */
	assert_int_equal(print_utf8_cut("\xc3\xbcn", 2), 2);
	assert_int_equal(print_utf8_cut("a\xe5\x90\x8d", 3), 1); /* "a名" */
	assert_int_equal(print_utf8_cut("a\xe5\x90\x8d", 4), 4);
	assert_int_equal(print_utf8_cut("", 0), 0);
}

/* dump rows (tree order, as the controller lists them) into the file, and
 * each line parsed back into what a load sends. */
static void flat_file(void **state)
{
	json_t *rows = json_pack(
		"[{s:I, s:I, s:s, s:s, s:I, s:s, s:s, s:I, s:I, s:s},"
		" {s:I, s:I, s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:s},"
		" {s:I, s:I, s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:[s], s:s, s:I, s:s},"
		" {s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}]",
		"id", (json_int_t)1, "parent_id", (json_int_t)0, "account", "root", "user", "",
		"share", (json_int_t)1, "qos", "normal", "def_qos", "", "grp_jobs", (json_int_t)-1,
		"max_jobs", (json_int_t)-1, "grp_tres", "",
		"id", (json_int_t)2, "parent_id", (json_int_t)1, "account", "root", "user", "root",
		"share", (json_int_t)1, "qos", "normal", "def_qos", "", "default_account", "root",
		"admin", "Administrator", "partition", "",
		"id", (json_int_t)3, "parent_id", (json_int_t)1, "account", "it's \\odd", "user", "",
		"share", (json_int_t)5, "qos", "normal,high", "def_qos", "high", "descr", "a:b 'c'",
		"org", "o", "flags", "TeamJobs", "coordinators", "bob", "grp_tres", "cpu=4,mem=1G",
		"max_wall", (json_int_t)90, "partition", "",
		"id", (json_int_t)4, "parent_id", (json_int_t)3, "account", "it's \\odd", "user", "bob",
		"share", "parent", "qos", "normal,high", "def_qos", "", "default_account", "it's \\odd",
		"admin", "None", "partition", "gpu");
	assert_non_null(rows);
	char *text = flat_dump("c1", rows);
	const char *body = strstr(text, "Cluster - ");
	assert_non_null(body);
	assert_string_equal(body,
		"Cluster - 'c1':Fairshare=1:QOS='normal'\n"
		"Parent - 'root'\n"
		"User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1\n"
		"Account - 'it\\'s \\\\odd':Description='a:b \\'c\\'':Organization='o':Flags=TeamJobs:"
		"DefaultQOS='high':Fairshare=5:GrpTRES=cpu=4,mem=1G:MaxWallDurationPerJob=90:"
		"QOS='normal,high'\n"
		"Parent - 'it\\'s \\\\odd'\n"
		"User - 'bob':Partition='gpu':DefaultAccount='it\\'s \\\\odd':Fairshare=parent\n");
	/* every line back */
	static const char *const types[] = { "cluster", "parent", "user", "account", "parent", "user" };
	char *save, *line = strtok_r(text, "\n", &save);
	size_t k = 0;
	for (; line; line = strtok_r(NULL, "\n", &save)) {
		bool bad;
		json_t *rec = flat_parse_line(line, &bad);
		assert_false(bad);
		if (!rec)
			continue;   /* the comment lines */
		assert_true(k < N(types));
		assert_string_equal(json_string_value(json_object_get(rec, "type")), types[k]);
		json_t *attrs = json_object_get(rec, "attrs");
		if (k == 3) {
			assert_string_equal(json_string_value(json_object_get(rec, "name")), "it's \\odd");
			assert_string_equal(json_string_value(json_object_get(attrs, "description")),
					    "a:b 'c'");
			assert_string_equal(json_string_value(json_object_get(attrs, "grptres")),
					    "cpu=4,mem=1G");
			assert_string_equal(json_string_value(json_object_get(attrs, "maxwall")), "90");
			assert_string_equal(json_string_value(json_object_get(attrs, "fairshare")), "5");
		}
		if (k == 5) {
			assert_string_equal(json_string_value(json_object_get(attrs, "partition")), "gpu");
			assert_string_equal(json_string_value(json_object_get(attrs, "defaultaccount")),
					    "it's \\odd");
		}
		json_decref(rec);
		k++;
	}
	assert_int_equal(k, N(types));
	free(text);
	json_decref(rows);
	/* malformed lines */
	/* Not UTF-8 (in the type, a name, a key, a value): refused, not dropped
	 * in silence (tests/fuzz/corpus/sacctmgr_flat/crash-not-utf8). */
	static const char *const bad_lines[] = { "not a line", "Account - 'x':NoEquals",
						 "User - 'u' trailing", "Accoun\x95 - 'a'",
						 "Account - 'a\xff'", "Account - 'a':Descr\xe9=x",
						 "Account - 'a':Description='caf\xe9'" };
	for (size_t i = 0; i < N(bad_lines); i++) {
		bool bad;
		json_decref(flat_parse_line(bad_lines[i], &bad));
		if (!bad)
			fail_msg("'%s' should be malformed", bad_lines[i]);
	}
	bool bad;
	assert_null(flat_parse_line("   # a comment", &bad));
	assert_false(bad);
	assert_null(flat_parse_line("", &bad));
}

/* A value with control characters (stored before the controller refused
 * them) stays on its object's line and reads back as it was. */
static void flat_control_characters(void **state)
{
	const char *descr = "two\nlines\r\tand \x01\x7f 'q' \\n";
	json_t *rows = json_pack(
		"[{s:I, s:I, s:s, s:s, s:I, s:s, s:s},"
		" {s:I, s:I, s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:s}]",
		"id", (json_int_t)1, "parent_id", (json_int_t)0, "account", "root", "user", "",
		"share", (json_int_t)1, "qos", "normal", "def_qos", "",
		"id", (json_int_t)2, "parent_id", (json_int_t)1, "account", "acc", "user", "",
		"share", (json_int_t)1, "qos", "normal", "def_qos", "", "descr", descr,
		"org", "o\nrg", "partition", "");
	char *text = flat_dump("c1", rows);
	const char *line = strstr(text, "Account - 'acc'");
	assert_non_null(line);
	const char *end = strchr(line, '\n');
	char *one = strndup(line, end - line);
	assert_string_equal(one, "Account - 'acc':Description='two\\nlines\\r\\tand \\x01\\x7f "
			    "\\'q\\' \\\\n':Organization='o\\nrg':Fairshare=1");
	assert_string_equal(end, "\n");   /* nothing spilled onto a line of its own */
	bool bad;
	json_t *rec = flat_parse_line(one, &bad);
	assert_false(bad);
	json_t *attrs = json_object_get(rec, "attrs");
	assert_string_equal(json_string_value(json_object_get(attrs, "description")), descr);
	assert_string_equal(json_string_value(json_object_get(attrs, "organization")), "o\nrg");
	json_decref(rec);
	/* \x00 is not a byte a value can hold: read as the text it is */
	rec = flat_parse_line("Account - 'a\\x00b'", &bad);
	assert_string_equal(json_string_value(json_object_get(rec, "name")), "ax00b");
	json_decref(rec);
	/* nor a byte past ASCII (dump writes none): the line stays UTF-8 and
	 * keeps its record and attributes (found by fuzzing) */
	rec = flat_parse_line("User - 'u\\xea':Description='d\\xff'", &bad);
	assert_false(bad);
	assert_string_equal(json_string_value(json_object_get(rec, "name")), "uxea");
	attrs = json_object_get(rec, "attrs");
	assert_string_equal(json_string_value(json_object_get(attrs, "description")), "dxff");
	json_decref(rec);
	free(one);
	free(text);
	json_decref(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flat_control_characters),
		cmocka_unit_test(keys),
		cmocka_unit_test(put_values),
		cmocka_unit_test(entity_names),
		cmocka_unit_test(columns_and_cells),
		cmocka_unit_test(utf8_cut),
		cmocka_unit_test(flat_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
