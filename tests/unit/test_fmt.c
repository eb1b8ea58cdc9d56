/* cmd/fmt: Slurm's "%[.][#]N<letter>" format specs and their cells, checked
 * against what Slurm 22.05's squeue/sinfo print.  fmt.c is compiled in here
 * because the command sources are not part of libherd. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmd/fmt.c"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct fmt_title titles[] = {
	{ 'i', "JOBID" }, { 'j', "NAME" }, { 't', "ST" }, { 'R', "NODELIST(REASON)" },
	{ 'P', "PARTITION" }, { 0, NULL },
};

/* A row is a string per letter: "i=12;j=averyveryverylongname". */
static const char *row_value(char letter, const void *row, char *buf, size_t len)
{
	const char *p = row;
	while (p && *p) {
		const char *end = strchr(p, ';');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (p[0] == letter && p[1] == '=') {
			snprintf(buf, len, "%.*s", (int)(n - 2), p + 2);
			return buf;
		}
		p = end ? end + 1 : NULL;
	}
	return "";
}

static const struct {
	const char *spec, *row, *line, *header;
} cases[] = {
	/* width with '.': right-justified, cut to width */
	{ "%.5i", "i=2", "    2", "JOBID" },
	{ "%.3j", "j=averyveryverylongname", "ave", "NAM" },
	/* width without '.': left-justified, still cut (Slurm's squeue -o "%5i") */
	{ "%5i|", "i=2", "2    |", "JOBID|" },
	{ "%8j|", "j=averyveryverylongname", "averyver|", "NAME    |" },
	/* no width: the whole value, no padding */
	{ "%i|%j", "i=1;j=averyveryverylongname", "1|averyveryverylongname", "JOBID|NAME" },
	/* literal text and %% around fields */
	{ "x%ty %%", "t=PD", "xPDy %", "xSTy %" },
	{ "%.18i %.2t", "i=12;t=R", "                12  R", "             JOBID ST" },
	/* an unknown letter stays as written (Slurm prints it and complains) */
	{ "%-5i", "i=2", "%-5i", "%-5i" },
	{ "%q|%i", "i=2", "%q|2", "%q|JOBID" },
	/* a letter without a title renders its letter in the header */
	{ "%.4R", "R=(Resources)", "(Res", "NODE" },
	{ "", "", "", "" },
	{ "plain", "", "plain", "plain" },
	{ "%0i|", "i=7", "7|", "JOBID|" },
};

static void test_lines(void **state)
{
	for (size_t i = 0; i < N(cases); i++) {
		struct fmt *f = fmt_parse(cases[i].spec, "ijtRP");
		char *line = fmt_line(f, row_value, cases[i].row, NULL);
		char *header = fmt_line(f, NULL, NULL, titles);
		if (strcmp(line, cases[i].line) || strcmp(header, cases[i].header))
			fail_msg("spec '%s': line '%s' (want '%s'), header '%s' (want '%s')",
				 cases[i].spec, line, cases[i].line, header, cases[i].header);
		free(line);
		free(header);
		fmt_destroy(f);
	}
}

static void test_bad_letter(void **state)
{
	struct fmt *f = fmt_parse("%i %-5i %q", "i");
	assert_int_equal(f->bad, '-');   /* the first one only */
	fmt_destroy(f);
	f = fmt_parse("%i %.5i", "i");
	assert_int_equal(f->bad, 0);
	fmt_destroy(f);
	f = fmt_parse("%i %", "i");      /* a trailing '%' */
	assert_int_equal(f->bad, '%');
	char *line = fmt_line(f, row_value, "i=3", NULL);
	assert_string_equal(line, "3 %");
	free(line);
	fmt_destroy(f);
}

static void test_items(void **state)
{
	struct fmt *f = fmt_parse("a%%b%.#12Pc", "P");
	assert_int_equal(f->count, 3);    /* "a%b", the field, "c" */
	assert_int_equal(f->items[0].letter, 0);
	assert_string_equal(f->items[0].text, "a%b");
	assert_int_equal(f->items[1].letter, 'P');
	assert_true(f->items[1].right);
	assert_true(f->items[1].fit);
	assert_int_equal(f->items[1].width, 12);
	assert_string_equal(f->items[2].text, "c");
	fmt_destroy(f);
}

static void test_fit(void **state)
{
	/* sinfo's "%#P": as wide as the widest value or the title. */
	const void *rows[] = { "P=debug*", "P=verylongpartitionname" };
	struct fmt *f = fmt_parse("%#P %t", "Pt");
	fmt_fit(f, row_value, rows, 1, titles, 0);
	assert_int_equal(f->items[0].width, 9);          /* "PARTITION" */
	fmt_fit(f, row_value, rows, 2, titles, 0);
	assert_int_equal(f->items[0].width, 21);
	char *line = fmt_line(f, row_value, "P=debug*;t=idle", NULL);
	assert_string_equal(line, "debug*                idle");
	free(line);
	assert_int_equal(f->items[2].width, 0);          /* not a '#' item: untouched */
	fmt_destroy(f);

	f = fmt_parse("%#N|", "N");
	fmt_fit(f, row_value, rows, 0, titles, 10);      /* no rows: the minimum */
	assert_int_equal(f->items[0].width, 10);
	fmt_destroy(f);
}

static void test_cell(void **state)
{
	char *line = NULL;
	fmt_cell(&line, "abc", 5, true);
	fmt_cell(&line, "abc", 5, false);
	fmt_cell(&line, "abcdef", 2, true);
	fmt_cell(&line, "", 0, false);
	fmt_cell(&line, "xyz", 0, true);
	assert_string_equal(line, "  abcabc  abxyz");
	free(line);
}

/* squeue/sinfo -O: names to "%[.]W<letter>" specs. */
static void test_from_names(void **state)
{
	static const struct fmt_name names[] = {
		{ "JobID", 'i' }, { "Name", 'j' }, { "State", 't' }, { "Priority", 'P' },
		{ "PriorityTier", 'R' }, { NULL, 0 },
	};
	static const struct {
		const char *spec, *want;
	} ok[] = {
		{ "JobID", "%20i" },                      /* 20 wide by default */
		{ "jobid,NAME", "%20i%20j" },             /* names are case-insensitive */
		{ "Name:10", "%10j" },
		{ "Name:.10", "%.10j" },                  /* '.': right-justified */
		{ "Name:", "%0j" },                       /* ':' alone: as wide as the value */
		{ "State:5|,Name:.3 x%", "%5t|%.3j x%%" },  /* suffixes; a '%' stays literal */
		{ "Priority,PriorityTier", "%20P%20R" },  /* whole names, not prefixes */
		{ "JobID,,Name:1", "%20i%1j" },           /* empty items are skipped */
		{ "", "" },
	};
	for (size_t i = 0; i < N(ok); i++) {
		char *bad = (char *)"unset";
		char *got = fmt_from_names(ok[i].spec, names, &bad);
		if (!got || strcmp(got, ok[i].want))
			fail_msg("'%s': got '%s', want '%s'", ok[i].spec, got ? got : "NULL", ok[i].want);
		assert_null(bad);
		free(got);
	}
	char *bad = NULL;
	assert_null(fmt_from_names("JobID,Nope:5,Alsono", names, &bad));
	assert_string_equal(bad, "Nope");
	free(bad);
	assert_null(fmt_from_names("Prio", names, &bad));
	assert_string_equal(bad, "Prio");
	free(bad);
	/* What it makes, fmt_parse reads: the widths and justification. */
	char *spec = fmt_from_names("Name:.4,JobID:3|", names, &bad);
	struct fmt *f = fmt_parse(spec, "ij");
	char *line = fmt_line(f, row_value, "i=12345;j=ab", NULL);
	assert_string_equal(line, "  ab123|");
	free(line);
	fmt_destroy(f);
	free(spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_bad_letter),
		cmocka_unit_test(test_items),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_cell),
		cmocka_unit_test(test_from_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
