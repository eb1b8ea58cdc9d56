/* #PBS and #BSUB directives as sbatch reads them when --ignore-pbs is not
 * given.  #PBS:
 * each PBS (Torque, PBS Pro) option that has a Slurm meaning becomes
 * sbatch's option words; the others are skipped, as Slurm skips them.
 *   -N name, -A account, -o/-e path ("host:" dropped), -j oe|eo, -q queue
 *   (the partition), -l walltime=, nodes=N[:ppn=M], select=N, procs=,
 *   ncpus=, mem=, pmem=, file=, -m a|b|e|n, -M user, -h, -r y|n, -t array,
 *   -V, -v list, -W depend=..., -d dir.
 * #BSUB (LSF): -J, -W (as --time), -n, -o, -e, -q, -m (nodes), -M (KB per
 * CPU), -x, -cwd; another letter is Slurm's error.
 * Pure: words in, words out. */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/jobopt.h"
#include "cmd/opt.h"
#include "common/xmalloc.h"

/* PBS's letters that take a value. */
#define PBS_WITH_VALUE "aAcCdeEjklmMNoPpqrStuvWw"

static void add(char ***out, size_t *n, const char *fmt, const char *value)
{
	opt_strv_push(out, n, xasprintf(fmt, value));
}

/* A PBS size ("4gb", "500mb", "1024kb", "2000") as Slurm's ("4g", ...). */
static char *pbs_size(const char *s)
{
	char *size = xstrdup(s);
	size_t len = strlen(size);
	if (len > 1 && (size[len - 1] == 'b' || size[len - 1] == 'B') && isalpha((unsigned char)size[len - 2]))
		size[len - 1] = '\0';
	return size;
}

/* -l's resource list. */
static void resources(const char *list, char ***out, size_t *n)
{
	size_t count;
	char **items = opt_split(list, ',', &count);
	for (size_t i = 0; i < count; i++) {
		char *eq = strchr(items[i], '=');
		if (!eq)
			continue;
		*eq = '\0';
		const char *key = items[i], *value = eq + 1;
		if (!strcmp(key, "walltime")) {
			add(out, n, "--time=%s", value);
		} else if (!strcmp(key, "nodes") || !strcmp(key, "select")) {
			/* N[:ppn=M][:property...]: a count, then its details */
			char *copy = xstrdup(value), *ppn = strstr(copy, ":ppn=");
			char *ncpus = strstr(copy, ":ncpus=");
			copy[strcspn(copy, ":+")] = '\0';
			if (*copy && strspn(copy, "0123456789") == strlen(copy))
				add(out, n, "--nodes=%s", copy);
			if (ppn || ncpus) {
				char *num = ppn ? ppn + 5 : ncpus + 7;
				num[strspn(num, "0123456789")] = '\0';
				if (*num)
					add(out, n, "--ntasks-per-node=%s", num);
			}
			free(copy);
		} else if (!strcmp(key, "procs")) {
			add(out, n, "--ntasks=%s", value);
		} else if (!strcmp(key, "ncpus")) {
			add(out, n, "--mincpus=%s", value);
		} else if (!strcmp(key, "mem") || !strcmp(key, "pmem") || !strcmp(key, "file")) {
			char *size = pbs_size(value);
			add(out, n, !strcmp(key, "mem") ? "--mem=%s" : !strcmp(key, "pmem")
				    ? "--mem-per-cpu=%s" : "--tmp=%s", size);
			free(size);
		}
	}
	opt_strv_free(items);
}

/* -m's events: a abort, b begin, e end, n none. */
static void mail_events(const char *events, char ***out, size_t *n)
{
	char types[64] = "";
	for (const char *p = events; *p; p++) {
		const char *t = *p == 'a' ? "FAIL" : *p == 'b' ? "BEGIN" : *p == 'e' ? "END"
			      : *p == 'n' ? "NONE" : NULL;
		if (t && strlen(types) + strlen(t) + 2 < sizeof(types)) {
			if (*types)
				strcat(types, ",");
			strcat(types, t);
		}
	}
	if (*types)
		add(out, n, "--mail-type=%s", types);
}

/* "host:path" as PBS allows for -o/-e: the path. */
static const char *pbs_path(const char *s)
{
	const char *colon = strchr(s, ':'), *slash = strchr(s, '/');
	return colon && slash && colon < slash ? colon + 1 : s;
}

char **jobopt_pbs_words(char **words, size_t nwords, size_t *count)
{
	char **out = xmalloc(sizeof(*out));
	size_t n = 0;
	const char *error_path = NULL;
	bool join_out = false, join_err = false;
	const char *output_path = NULL;

	for (size_t i = 0; i < nwords; i++) {
		const char *w = words[i];
		if (w[0] != '-' || !w[1])
			continue;
		char letter = w[1];
		const char *value = NULL;
		if (strchr(PBS_WITH_VALUE, letter)) {
			value = w[2] ? w + 2 : i + 1 < nwords ? words[++i] : NULL;
			if (!value)
				break;
		}
		switch (letter) {
		case 'N': add(&out, &n, "--job-name=%s", value); break;
		case 'A': add(&out, &n, "--account=%s", value); break;
		case 'o': output_path = pbs_path(value); break;
		case 'e': error_path = pbs_path(value); break;
		case 'j':
			join_out = !strcmp(value, "oe");
			join_err = !strcmp(value, "eo");
			break;
		case 'q': add(&out, &n, "--partition=%s", value); break;
		case 'l': resources(value, &out, &n); break;
		case 'm': mail_events(value, &out, &n); break;
		case 'M': add(&out, &n, "--mail-user=%s", value); break;
		case 'h': opt_strv_push(&out, &n, xstrdup("--hold")); break;
		case 'r':
			opt_strv_push(&out, &n, xstrdup(*value == 'n' ? "--no-requeue" : "--requeue"));
			break;
		case 't': add(&out, &n, "--array=%s", value); break;
		case 'V': opt_strv_push(&out, &n, xstrdup("--export=ALL")); break;
		case 'v': add(&out, &n, "--export=ALL,%s", value); break;
		case 'W':
			if (!strncmp(value, "depend=", 7))
				add(&out, &n, "--dependency=%s", value + 7);
			break;
		case 'd': add(&out, &n, "--chdir=%s", value); break;
		default:
			break;   /* -S shell, -u user, -k keep, -p priority, ...: no Slurm meaning */
		}
	}
	/* -j oe: the error stream into the output file; -j eo: both into the error file */
	if (join_err && error_path)
		add(&out, &n, "--output=%s", error_path);
	else if (output_path)
		add(&out, &n, "--output=%s", output_path);
	if (error_path && !join_out && !join_err)
		add(&out, &n, "--error=%s", error_path);
	*count = n;
	return out;
}

char **jobopt_bsub_words(char **words, size_t nwords, size_t *count, char *bad)
{
	static const struct {
		const char *flag, *option;   /* option NULL: --exclusive, no value */
	} map[] = {
		{ "-J", "--job-name=%s" }, { "-W", "--time=%s" }, { "-n", "--ntasks=%s" },
		{ "-o", "--output=%s" }, { "-e", "--error=%s" }, { "-q", "--partition=%s" },
		{ "-m", "--nodelist=%s" }, { "-M", NULL }, { "-x", NULL }, { "-cwd", "--chdir=%s" },
	};
	char **out = xmalloc(sizeof(*out));
	size_t n = 0;
	*bad = '\0';
	for (size_t i = 0; i < nwords; i++) {
		const char *w = words[i];
		size_t m = 0;
		if (w[0] != '-')
			continue;
		/* "-cwd" whole (Slurm takes "-c..." for it), else a letter with
		 * its value attached or next */
		const char *flag = !strncmp(w, "-c", 2) ? "-cwd" : NULL;
		while (!flag && m < sizeof(map) / sizeof(map[0]) && strncmp(w, map[m].flag, 2))
			m++;
		if (flag)
			while (strcmp(map[m].flag, "-cwd"))
				m++;
		if (m == sizeof(map) / sizeof(map[0])) {
			*bad = w[1];
			opt_strv_free(out);
			return NULL;
		}
		if (!strcmp(map[m].flag, "-x")) {
			opt_strv_push(&out, &n, xstrdup("--exclusive"));
			continue;
		}
		const char *value = flag ? (i + 1 < nwords ? words[++i] : NULL)
				   : w[2] ? w + 2 : i + 1 < nwords ? words[++i] : NULL;
		if (!value)
			break;
		if (!strcmp(map[m].flag, "-M")) {   /* KB per CPU, in MB rounded up */
			long kb;
			if (opt_count(value, &kb) == 0)
				opt_strv_push(&out, &n, xasprintf("--mem-per-cpu=%ld", (kb + 1023) / 1024));
			continue;
		}
		add(&out, &n, map[m].option, value);
	}
	*count = n;
	return out;
}
