/* sreport's report arguments: the key=value words after ENTITY REPORT, each
 * abbreviated as Slurm's sreport takes it, into struct sreport_opts.  What
 * they select is the reports' business (sreport.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cmd/opt.h"
#include "cmd/sreport_args.h"
#include "common/text.h"
#include "common/xmalloc.h"

/* Does word abbreviate name (at least min letters, case-insensitive)? */
bool sreport_word_is(const char *word, const char *name, size_t min)
{
	size_t len = strlen(word);
	return len >= min && len <= strlen(name) && !strncasecmp(word, name, len);
}

static int parse_time_arg(const char *arg, time_t now, time_t *out)
{
	if (opt_time_parse(arg, now, true, out) < 0) {
		fprintf(stderr, "Invalid time specification (pos=%d): %s\n", opt_time_error_pos(arg),
			arg);
		return -1;
	}
	return 0;
}

int sreport_args_parse(int argc, char **argv, struct sreport_opts *o)
{
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *key = argv[i], *val = eq ? eq + 1 : "";
		size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		char k[64];
		snprintf(k, sizeof(k), "%.*s", (int)(klen < 63 ? klen : 63), key);
		if (!eq && sreport_word_is(k, "Tree", 4)) {
			o->tree = true;
		} else if (!eq && sreport_word_is(k, "FlatView", 2)) {
			o->flat = true;
		} else if (!eq && (sreport_word_is(k, "All_Clusters", 3) ||
				   sreport_word_is(k, "PrintJobCount", 2))) {
		} else if (eq && (sreport_word_is(k, "Start", 1) ||
				  sreport_word_is(k, "StartTime", 5))) {
			if (parse_time_arg(val, o->now, &o->start_in) < 0)
				return -1;
			o->start_given = true;
		} else if (eq && (sreport_word_is(k, "End", 1) ||
				  sreport_word_is(k, "EndTime", 4))) {
			if (parse_time_arg(val, o->now, &o->end_in) < 0)
				return -1;
			o->end_given = true;
		} else if (eq && (sreport_word_is(k, "Users", 1) ||
				  sreport_word_is(k, "Logins", 1))) {
			opt_strv_free(o->users);
			o->users = opt_split_lower(val, ',', NULL);
		} else if (eq && (sreport_word_is(k, "Accounts", 2) ||
				  sreport_word_is(k, "Acct", 2))) {
			opt_strv_free(o->accounts);
			o->accounts = opt_split_lower(val, ',', NULL);
		} else if (eq && sreport_word_is(k, "WCKeys", 1)) {
			opt_strv_free(o->wckeys);
			o->wckeys = opt_split_lower(val, ',', NULL);   /* Slurm keeps wckeys in lower case */
		} else if (eq && sreport_word_is(k, "Clusters", 1)) {
			opt_strv_free(o->clusters);
			o->clusters = opt_split(val, ',', NULL);
		} else if (eq && sreport_word_is(k, "Format", 1)) {
			free(o->format);
			o->format = xstrdup(val);
		} else if (eq && sreport_word_is(k, "TopCount", 1)) {
			long v;
			if (opt_count(val, &v) < 0) {
				fprintf(stderr, "sreport: error: Invalid TopCount: %s\n", val);
				return -1;
			}
			o->top_count = v;
		} else if (eq && sreport_word_is(k, "Grouping", 1)) {
			size_t n;
			char **v = opt_split(val, ',', &n);
			o->ngroups = 0;
			for (size_t g = 0; g < n && g < 15; g++) {
				long x;
				if (opt_count(v[g], &x) < 0 || x <= 0 ||
				    (o->ngroups && x <= o->groups[o->ngroups - 1])) {
					fprintf(stderr, "sreport: error: Invalid Grouping: %s\n", val);
					opt_strv_free(v);
					return -1;
				}
				o->groups[o->ngroups++] = x;
			}
			opt_strv_free(v);
			if (!o->ngroups) {
				fprintf(stderr, "sreport: error: Invalid Grouping: %s\n", val);
				return -1;
			}
		} else {
			fprintf(stderr, " Unknown condition: %s\n Use keyword set to modify value\n",
				argv[i]);
			return -1;
		}
	}
	return 0;
}
