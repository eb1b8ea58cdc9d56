/* cmd/opt: #SBATCH directive words, --export environments, signal names,
 * user names, lists and counts -- the pure pieces of the commands' option
 * handling.  opt.c is compiled in because command sources are not in libherd. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "cmd/opt.c"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Words joined with '|' for easy comparison. */
static char *joined(char **v)
{
	char *s = xstrdup("");
	for (size_t i = 0; v[i]; i++) {
		char *n = xasprintf("%s%s%s", s, i ? "|" : "", v[i]);
		free(s);
		s = n;
	}
	return s;
}

static const struct {
	const char *script, *words;
} directives[] = {
	{ "#!/bin/sh\n#SBATCH -J x\n#SBATCH --time=5\necho\n", "-J|x|--time=5" },
	/* every option form passes through as words for getopt */
	{ "#!/bin/sh\n#SBATCH -Jx\n#SBATCH --nodes 2\n#SBATCH -n 3 -c2\n", "-Jx|--nodes|2|-n|3|-c2" },
	/* quotes group and are removed; a word starting with '#' ends the line */
	{ "#!/bin/sh\n#SBATCH -J \"my name\" # comment\n#SBATCH --comment='a b'   --time 5\n",
	  "-J|my name|--comment=a b|--time|5" },
	{ "#!/bin/sh\n#SBATCH --comment=\"a b\"c\n", "--comment=a bc" },
	/* blank lines and comments do not end the directives; a command does */
	{ "#!/bin/sh\n\n  \n# hi\n#SBATCH -p debug\necho hi\n#SBATCH -J late\n", "-p|debug" },
	{ "#!/bin/sh\n  echo indented\n#SBATCH -J late\n", "" },
	/* Slurm takes "#SBATCH-N 2" too */
	{ "#!/bin/sh\n#SBATCH-N 2\n", "-N|2" },
	/* other prefixes and indented directives are comments */
	{ "#!/bin/sh\n#PBS -N x\n #SBATCH -J indented\n#SBATCH -J y\n", "-J|y" },
	/* the first line is never a directive; no trailing newline is fine */
	{ "#SBATCH -J first\n#SBATCH -J second", "-J|second" },
	{ "#!/bin/sh", "" },
	{ "", "" },
	{ "#!/bin/sh\n#SBATCH\n#SBATCH   \n", "" },
	{ "#!/bin/sh\r\n#SBATCH -J dos\r\n", "-J|dos" },
};

static void test_directives(void **state)
{
	for (size_t i = 0; i < N(directives); i++) {
		size_t n;
		char **v = opt_script_directives(directives[i].script, "#SBATCH", &n);
		char *s = joined(v);
		if (strcmp(s, directives[i].words))
			fail_msg("script %zu: '%s', want '%s'", i, s, directives[i].words);
		assert_int_equal(n, opt_strv_len(v));
		free(s);
		opt_strv_free(v);
	}
}

/* One line's words as a directive's (herd sim's jobs file). */
static void test_words(void **state)
{
	static const struct {
		const char *line, *words;
	} cases[] = {
		{ "3 herdu1 5 -J b --array=0-2", "3|herdu1|5|-J|b|--array=0-2" },
		{ "  0 u 1 --comment='a b' -J \"x y\"  ", "0|u|1|--comment=a b|-J|x y" },
		{ "0 u 1 -n1 # the rest is a comment", "0|u|1|-n1" },
		{ "", "" },
	};
	for (size_t i = 0; i < N(cases); i++) {
		size_t n;
		char **v = opt_words(cases[i].line, &n);
		char *s = joined(v);
		if (strcmp(s, cases[i].words))
			fail_msg("line %zu: '%s', want '%s'", i, s, cases[i].words);
		assert_int_equal(n, opt_strv_len(v));
		free(s);
		opt_strv_free(v);
	}
}

static char *const environ_in[] = {
	"HOME=/root", "PATH=/bin", "EDITOR=vi", "SLURM_CONF=/x", "SLURMD=no", "EMPTY=", NULL,
};

static const struct {
	const char *spec, *env;
} exports[] = {
	{ NULL, "HOME=/root|PATH=/bin|EDITOR=vi|SLURM_CONF=/x|SLURMD=no|EMPTY=" },
	{ "ALL", "HOME=/root|PATH=/bin|EDITOR=vi|SLURM_CONF=/x|SLURMD=no|EMPTY=" },
	{ "all", "HOME=/root|PATH=/bin|EDITOR=vi|SLURM_CONF=/x|SLURMD=no|EMPTY=" },
	/* NONE: only SLURM_* from the caller (not SLURMD) */
	{ "NONE", "SLURM_CONF=/x" },
	/* a list: SLURM_* plus the named ones, current values or given ones */
	{ "EDITOR,ARG1=test", "SLURM_CONF=/x|EDITOR=vi|ARG1=test" },
	{ "EDITOR=/bin/emacs", "SLURM_CONF=/x|EDITOR=/bin/emacs" },
	{ "NOSUCH", "SLURM_CONF=/x" },
	{ "A=1=2,B=", "SLURM_CONF=/x|A=1=2|B=" },
	{ "SLURM_CONF=/y", "SLURM_CONF=/y" },
	/* ALL plus values: the caller's value wins where it has one (sbatch(1)) */
	{ "ALL,EDITOR=/bin/emacs,NEW=1",
	  "HOME=/root|PATH=/bin|EDITOR=vi|SLURM_CONF=/x|SLURMD=no|EMPTY=|NEW=1" },
	{ "EDITOR,ALL", "HOME=/root|PATH=/bin|EDITOR=vi|SLURM_CONF=/x|SLURMD=no|EMPTY=" },
};

static void test_export(void **state)
{
	for (size_t i = 0; i < N(exports); i++) {
		char **env;
		size_t n;
		struct herd_error err = { "" };
		if (opt_export_env(exports[i].spec, environ_in, &env, &n, &err) < 0)
			fail_msg("spec '%s': %s", exports[i].spec, err.text);
		char *s = joined(env);
		if (strcmp(s, exports[i].env))
			fail_msg("spec '%s': '%s', want '%s'", exports[i].spec, s, exports[i].env);
		assert_int_equal(n, opt_strv_len(env));
		free(s);
		opt_strv_free(env);
	}
	char **env = NULL;
	struct herd_error err = { "" };
	assert_int_equal(opt_export_env("ALL,NONE", environ_in, &env, NULL, &err), -1);
	assert_null(env);
	assert_true(strlen(err.text) > 0);
	assert_int_equal(opt_export_env("=x", environ_in, &env, NULL, &err), -1);
}

static const struct {
	const char *in;
	int sig;
} signals_in[] = {
	{ "USR1", SIGUSR1 }, { "SIGUSR1", SIGUSR1 }, { "usr2", SIGUSR2 }, { "sigterm", SIGTERM },
	{ "KILL", SIGKILL }, { "9", 9 }, { "10", 10 }, { "HUP", SIGHUP }, { "CONT", SIGCONT },
	{ "STOP", SIGSTOP }, { "INT", SIGINT },
	{ "FOO", -1 }, { "SIG", -1 }, { "", -1 }, { "0", -1 }, { "65", -1 }, { "9x", -1 },
	{ "-9", -1 }, { "SIGSIGTERM", -1 },
};

static void test_signals(void **state)
{
	for (size_t i = 0; i < N(signals_in); i++)
		if (opt_signal_parse(signals_in[i].in) != signals_in[i].sig)
			fail_msg("'%s': %d, want %d", signals_in[i].in, opt_signal_parse(signals_in[i].in),
				 signals_in[i].sig);
	assert_null(opt_signal_parse(NULL) == -1 ? NULL : "x");
	assert_string_equal(opt_signal_name(SIGUSR1), "USR1");
	assert_string_equal(opt_signal_name(SIGTERM), "TERM");
	assert_null(opt_signal_name(0));
}

static void test_split(void **state)
{
	size_t n;
	char **v = opt_split("a,b,,c,", ',', &n);
	assert_int_equal(n, 3);
	char *s = joined(v);
	assert_string_equal(s, "a|b|c");
	free(s);
	opt_strv_free(v);
	v = opt_split("", ',', &n);
	assert_int_equal(n, 0);
	assert_null(v[0]);
	opt_strv_free(v);
	v = opt_split(NULL, ',', &n);
	assert_int_equal(n, 0);
	opt_strv_free(v);
}

static void test_count_and_user(void **state)
{
	long n;
	assert_int_equal(opt_count("12", &n), 0);
	assert_int_equal(n, 12);
	assert_int_equal(opt_count("0", &n), 0);
	assert_int_equal(n, 0);
	const char *bad[] = { "", "12x", "x", "-1", " 1", "1.5", "99999999999999999999999" };
	for (size_t i = 0; i < N(bad); i++)
		if (opt_count(bad[i], &n) != -1)
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(opt_count(NULL, &n), -1);

	uid_t uid = 12345;
	assert_int_equal(opt_user_parse("root", &uid), 0);
	assert_int_equal(uid, 0);
	assert_int_equal(opt_user_parse("4242", &uid), 0);
	assert_int_equal(uid, 4242);
	assert_int_equal(opt_user_parse("no-such-user-here", &uid), -1);
}

static void test_json_readers(void **state)
{
	json_t *o = json_pack("{s:s, s:i, s:b, s:i}", "s", "x", "i", 7, "b", 1, "bad", 3);
	assert_string_equal(cmd_jstr(o, "s"), "x");
	assert_string_equal(cmd_jstr(o, "missing"), "");
	assert_string_equal(cmd_jstr(o, "i"), "");     /* wrong type reads as empty */
	assert_int_equal(cmd_jint(o, "i"), 7);
	assert_int_equal(cmd_jint(o, "s"), 0);
	assert_true(cmd_jbool(o, "b"));
	assert_false(cmd_jbool(o, "bad"));
	json_decref(o);
}

/* sbatch --begin/--deadline and scontrol StartTime=: opt_time_parse with
 * past false (sacct's past=true table is in test_sacct.c).  Now is Sunday
 * 2026-11-29 10:00:00 UTC. */
#define NOW ((time_t)1795946400)

static time_t utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
			 .tm_min = mi, .tm_sec = s };
	return timegm(&tm);
}

static void test_begin_times(void **state)
{
	const struct {
		const char *text;
		time_t want;
	} good[] = {
		{ "now", NOW },
		{ "now+60", NOW + 60 },
		{ "now+4", NOW + 4 },
		{ "now+90seconds", NOW + 90 },
		{ "now+1minute", NOW + 60 },
		{ "now+5minutes", NOW + 300 },
		{ "now+1hour", NOW + 3600 },
		{ "now+2hours", NOW + 7200 },
		{ "now+1day", NOW + 86400 },
		{ "now+3days", NOW + 3 * 86400 },
		{ "now+1week", NOW + 7 * 86400 },
		{ "now+2weeks", NOW + 14 * 86400 },
		/* a time of day: the next one */
		{ "16:00", utc(2026, 11, 29, 16, 0, 0) },
		{ "09:59", utc(2026, 11, 30, 9, 59, 0) },
		{ "10:00:30", utc(2026, 11, 29, 10, 0, 30) },
		{ "4:30PM", utc(2026, 11, 29, 16, 30, 0) },
		{ "9:15am", utc(2026, 11, 30, 9, 15, 0) },
		/* named times: the next one; today and tomorrow are dates */
		{ "midnight", utc(2026, 11, 30, 0, 0, 0) },
		{ "noon", utc(2026, 11, 29, 12, 0, 0) },
		{ "elevenses", utc(2026, 11, 29, 11, 0, 0) },
		{ "fika", utc(2026, 11, 29, 15, 0, 0) },
		{ "teatime", utc(2026, 11, 29, 16, 0, 0) },
		{ "today", utc(2026, 11, 29, 0, 0, 0) },
		{ "tomorrow", utc(2026, 11, 30, 0, 0, 0) },
		/* dates: without a year, the next such day */
		{ "1201", utc(2026, 12, 1, 0, 0, 0) },
		{ "1101", utc(2027, 11, 1, 0, 0, 0) },
		{ "120126", utc(2026, 12, 1, 0, 0, 0) },
		{ "12/24", utc(2026, 12, 24, 0, 0, 0) },
		{ "01/02", utc(2027, 1, 2, 0, 0, 0) },
		{ "12/24/27", utc(2027, 12, 24, 0, 0, 0) },
		{ "12/24-18:30", utc(2026, 12, 24, 18, 30, 0) },
		{ "2027-01-15", utc(2027, 1, 15, 0, 0, 0) },
		{ "2027-01-15T08:00", utc(2027, 1, 15, 8, 0, 0) },
		{ "2027-01-15T08:00:05", utc(2027, 1, 15, 8, 0, 5) },
	};
	const char *bad[] = {
		"", "soon", "now+", "now+x", "now+1fortnight", "now+1hour2", "24:00", "9:5",
		"13:00PM", "0:30AM", "13/01", "1301", "2027-1-15", "2027-01-15T", "2027-01-15T8",
		"tomorrow+1", "noon2", "12/24/", "12/24-25:00",
		/* issue 13: count x unit past 64 bits wrapped */
		"now+9223372036854775807weeks", "now+15250284452471w", "now-9223372036854775807w",
	};
	time_t t;

	setenv("TZ", "UTC", 1);
	tzset();
	for (size_t i = 0; i < N(good); i++) {
		t = 0;
		if (opt_time_parse(good[i].text, NOW, false, &t) != 0 || t != good[i].want)
			fail_msg("%s: got %lld, want %lld", good[i].text, (long long)t,
				 (long long)good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++)
		if (opt_time_parse(bad[i], NOW, false, &t) == 0)
			fail_msg("%s: accepted", bad[i]);
}

static const struct {
	const char *spec;
	int ok, sig, secs;
	char flag;
} signal_specs[] = {
	{ "USR1", 0, SIGUSR1, 60, 0 },          /* Slurm's default: 60 s */
	{ "B:USR1@30", 0, SIGUSR1, 30, 'B' },
	{ "R:10@5", 0, 10, 5, 'R' },
	{ "SIGTERM@0", 0, SIGTERM, 0, 0 },
	{ "RB:usr2@65535", 0, SIGUSR2, 65535, 'B' },
	{ "BR:HUP", 0, SIGHUP, 60, 'B' },
	{ "B:USR1@65536", -1, 0, 0, 0 },
	{ "USR1@", -1, 0, 0, 0 },
	{ "USR1@1x", -1, 0, 0, 0 },
	{ "B:", -1, 0, 0, 0 },
	{ "X:USR1", -1, 0, 0, 0 },
	{ "NOSUCH", -1, 0, 0, 0 },
	{ "", -1, 0, 0, 0 },
	{ "99", -1, 0, 0, 0 },
};

static void test_signal_spec(void **state)
{
	for (size_t i = 0; i < N(signal_specs); i++) {
		int sig = -7, secs = -7;
		char flag = 'x';
		print_message("--signal=%s\n", signal_specs[i].spec);
		assert_int_equal(opt_signal_spec_parse(signal_specs[i].spec, &sig, &secs, &flag),
				 signal_specs[i].ok);
		if (signal_specs[i].ok < 0) {
			assert_int_equal(sig, -7);   /* untouched */
			continue;
		}
		assert_int_equal(sig, signal_specs[i].sig);
		assert_int_equal(secs, signal_specs[i].secs);
		assert_int_equal(flag, signal_specs[i].flag);
	}
}

static void test_nice(void **state)
{
	long long n = 0;
	assert_int_equal(opt_nice_parse("100", &n), 0);
	assert_int_equal(n, 100);
	assert_int_equal(opt_nice_parse("-5", &n), 0);
	assert_int_equal(n, -5);
	assert_int_equal(opt_nice_parse("2147483645", &n), 0);
	assert_int_equal(opt_nice_parse("-2147483646", &n), -2);
	assert_int_equal(opt_nice_parse("2147483646", &n), -2);
	assert_int_equal(opt_nice_parse("99999999999999999999", &n), -2);
	assert_int_equal(opt_nice_parse("1e3", &n), -1);
	assert_int_equal(opt_nice_parse("", &n), -1);
}

static void test_nodelist_arg(void **state)
{
	char path[] = "/tmp/test_opt_nodes_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char text[] = "n1\n n2,n3\n\nn[5-6]\n";
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	char *list = opt_nodelist_arg(path);   /* a '/' makes it a file name */
	assert_string_equal(list, "n1,n2,n3,n[5-6]");
	free(list);
	unlink(path);
	assert_null(opt_nodelist_arg(path));
	list = opt_nodelist_arg("n[1-3],n7");   /* otherwise the list itself */
	assert_string_equal(list, "n[1-3],n7");
	free(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_directives),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_export),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_signal_spec),
		cmocka_unit_test(test_nice),
		cmocka_unit_test(test_nodelist_arg),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_count_and_user),
		cmocka_unit_test(test_json_readers),
		cmocka_unit_test(test_begin_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
