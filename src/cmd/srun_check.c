/* srun's checks and printed pieces (srun_opt.h): --distribution,
 * --cpu-bind, --mpi, --input, --multi-prog files, task lists, labels, exit
 * status sentences and codes, folded counts.  Pure but for reading a
 * --multi-prog file. */
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include "cmd/opt.h"
#include "cmd/srun_opt.h"
#include "common/taskopt.h"
#include "common/xmalloc.h"

int srun_dist_parse(const char *s, char *out, size_t len, struct herd_error *err)
{
	/* Slurm's reading and sentences (common/taskopt.c); out: the node part */
	static const char *nodes[] = { "", "block", "cyclic", "plane", "arbitrary" };
	struct dist d;
	if (dist_parse(s, &d, err) < 0)
		return -1;
	if (d.node == DIST_NODE_PLANE)
		snprintf(out, len, "plane=%d", d.plane);
	else
		snprintf(out, len, "%s", nodes[d.node]);
	return 0;
}

/* A CPU list of map_cpu: (decimal or 0x numbers, with *count) or mask_cpu:
 * (hex masks) items. */
static bool cpu_list_ok(const char *s, bool masks)
{
	if (!*s)
		return false;
	while (*s) {
		const char *start = s;
		if (!strncasecmp(s, "0x", 2))
			s += 2;
		size_t digits = masks ? strspn(s, "0123456789abcdefABCDEF")
				      : strspn(s, (s > start) ? "0123456789abcdefABCDEF" : "0123456789");
		if (!digits)
			return false;
		s += digits;
		if (*s == '*') {
			s++;
			size_t k = strspn(s, "0123456789");
			if (!k)
				return false;
			s += k;
		}
		if (*s == ',') {
			s++;
			if (!*s)
				return false;
		} else if (*s) {
			return false;
		}
	}
	return true;
}

int srun_cpu_bind_check(const char *s, struct herd_error *err)
{
	static const char *plain[] = { "q", "quiet", "v", "verbose", "no", "none", "rank",
				       "rank_ldom", "sockets", "cores", "threads", "ldoms", "boards" };
	if (!s || !*s)
		return errprintf(err, "unrecognized --cpu-bind argument \"\"");
	/* Items are separated by commas, but map_cpu:/mask_cpu: lists hold
	 * commas too: a list runs to the next word that starts with a letter. */
	char *copy = xstrdup(s);
	int types = 0, rc = 0;
	char *p = copy;
	while (p && *p) {
		char *tok = p;
		char *sep = NULL;
		bool list = !strncasecmp(tok, "map_cpu:", 8) || !strncasecmp(tok, "mask_cpu:", 9) ||
			    !strncasecmp(tok, "map_ldom:", 9) || !strncasecmp(tok, "mask_ldom:", 10);
		if (list) {
			/* the list ends at a comma followed by a letter other than x */
			for (char *q = strchr(tok, ':') + 1; *q; q++)
				if (*q == ',' && isalpha((unsigned char)q[1]) &&
				    !(tolower((unsigned char)q[1]) == 'x') &&
				    !isxdigit((unsigned char)q[1])) {
					sep = q;
					break;
				}
		} else {
			sep = strchr(tok, ',');
		}
		if (sep)
			*sep = '\0';
		p = sep ? sep + 1 : NULL;
		if (list) {
			char *colon = strchr(tok, ':');
			bool masks = !strncasecmp(tok, "mask", 4);
			*colon = '\0';
			if (!colon[1]) {
				rc = errprintf(err, "missing list for \"--cpu-bind=%s:<list>\"", tok);
				break;
			}
			if (!cpu_list_ok(colon + 1, masks)) {
				rc = errprintf(err, "bad list for \"--cpu-bind=%s:<list>\": %s", tok,
					       colon + 1);
				break;
			}
			types++;
			continue;
		}
		bool ok = false;
		for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]) && !ok; i++)
			ok = !strcasecmp(tok, plain[i]);
		if (!ok) {
			rc = errprintf(err, "unrecognized --cpu-bind argument \"%s\"", tok);
			break;
		}
		if (strcasecmp(tok, "q") && strcasecmp(tok, "quiet") && strcasecmp(tok, "v") &&
		    strcasecmp(tok, "verbose"))
			types++;
	}
	if (rc == 0 && types > 1)
		rc = errprintf(err, "--cpu-bind arguments conflict: %s", s);
	free(copy);
	return rc;
}

static const char *mpi_types[] = { "none", "pmi2", "pmix", "pmix_v3", "pmix_v4" };

int srun_mpi_check(const char *s, struct herd_error *err)
{
	for (size_t i = 0; i < sizeof(mpi_types) / sizeof(mpi_types[0]); i++)
		if (!strcasecmp(s, mpi_types[i]))
			return 0;
	return errprintf(err, "invalid MPI type '%s', --mpi=list for acceptable types", s);
}

void srun_mpi_list(FILE *out, const char *prog)
{
	/* As Slurm 22.05's srun --mpi=list, on stdout: the plugin types, then
	 * the PMIx versions (Herd serves the one libpmix it links). */
	(void)prog;
	fputs("MPI plugin types are...\n\tpmix\n\tnone\n\tpmi2\n"
	      "specific pmix plugin versions available: pmix_v4\n", out);
}

int srun_input_parse(const char *s, int *stdin_task, const char **pattern)
{
	long n;
	*pattern = NULL;
	if (!s || !*s) {
		*stdin_task = 0;
	} else if (!strcasecmp(s, "all")) {
		*stdin_task = SRUN_STDIN_ALL;
	} else if (!strcasecmp(s, "none")) {
		*stdin_task = SRUN_STDIN_NONE;
	} else if (opt_count(s, &n) == 0 && n <= INT32_MAX) {
		*stdin_task = (int)n;
	} else {
		*stdin_task = 0;
		*pattern = s;
	}
	return 0;
}

/* Parse a rank list "0-3,5" or "*" against ntasks bits in seen (NULL: only
 * the largest rank is wanted, in *max). */
static int ranks_parse(const char *s, long *max, int *star)
{
	if (!strcmp(s, "*")) {
		*star = 1;
		return 0;
	}
	const char *p = s;
	while (*p) {
		char *end;
		if (!isdigit((unsigned char)*p))
			return -1;
		long a = strtol(p, &end, 10), b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -1;
			b = strtol(p, &end, 10);
			p = end;
			if (b < a)
				return -1;
		}
		if (b > 1000000)
			return -1;
		if (b > *max)
			*max = b;
		if (*p == ',') {
			p++;
			if (!*p)
				return -1;
		} else if (*p) {
			return -1;
		}
	}
	return 0;
}

static void ranks_mark(const char *s, unsigned char *seen, long ntasks, long *dup)
{
	const char *p = s;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		p = end;
		if (*p == '-')
			b = strtol(p + 1, &end, 10), p = end;
		for (long t = a; t <= b; t++)
			if (t < ntasks && seen[t]++ && *dup < 0)
				*dup = t;
		if (*p == ',')
			p++;
	}
}

char **srun_multi_prog_check(const char *path, const char *text, long *ntasks,
			     struct herd_error *err)
{
	char **lines = xmalloc(sizeof(*lines));
	size_t n = 0;
	long max = -1;
	int star = 0, lineno = 0;
	const char *p = text;

	lines[0] = NULL;
	while (*p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *line = xstrndup(p, len);
		p = end ? end + 1 : p + len;
		lineno++;
		opt_strv_push(&lines, &n, line);
		const char *q = line;
		while (isspace((unsigned char)*q))
			q++;
		if (!*q || *q == '#')
			continue;
		size_t wlen = strcspn(q, " \t");
		char *ranks = xstrndup(q, wlen);
		const char *cmd = q + wlen;
		while (isspace((unsigned char)*cmd))
			cmd++;
		if (ranks_parse(ranks, &max, &star) < 0) {
			errprintf(err, "Invalid task range specification (%s) in line %d of configuration "
				  "file %s", ranks, lineno, path);
			free(ranks);
			goto error;
		}
		free(ranks);
		if (!*cmd || *cmd == '#') {
			errprintf(err, "No executable in line %d of configuration file %s", lineno, path);
			goto error;
		}
	}
	if (*ntasks <= 0) {
		if (star || max < 0) {
			errprintf(err, "Configuration file %s invalid: the number of tasks cannot be "
				  "known from it; use -n", path);
			goto error;
		}
		*ntasks = max + 1;
	}
	if (max >= *ntasks) {
		errprintf(err, "Configuration file %s invalid: task %ld out of range (ntasks=%ld)", path,
			  max, *ntasks);
		goto error;
	}
	if (!star) {
		unsigned char *seen = calloc(*ntasks, 1);
		long dup = -1, missing = -1;
		if (!seen)
			abort();
		for (size_t i = 0; i < n; i++) {
			const char *q = lines[i];
			while (isspace((unsigned char)*q))
				q++;
			if (!*q || *q == '#')
				continue;
			size_t wlen = strcspn(q, " \t");
			char *ranks = xstrndup(q, wlen);
			ranks_mark(ranks, seen, *ntasks, &dup);
			free(ranks);
		}
		for (long t = 0; t < *ntasks && missing < 0; t++)
			if (!seen[t])
				missing = t;
		free(seen);
		if (dup >= 0) {
			errprintf(err, "Configuration file %s invalid: task %ld named more than once",
				  path, dup);
			goto error;
		}
		if (missing >= 0) {
			errprintf(err, "Configuration file %s invalid: no program for task %ld", path,
				  missing);
			goto error;
		}
	}
	return lines;
error:
	opt_strv_free(lines);
	return NULL;
}

char **srun_multi_prog_read(const char *path, long *ntasks, struct herd_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		errprintf(err, "Unable to open configuration file %s", path);
		return NULL;
	}
	size_t cap = 4096, n = 0, got;
	char *text = xmalloc(cap);
	while ((got = fread(text + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n < 2)
			text = xrealloc(text, cap *= 2);
		if (n > (1u << 20))
			break;
	}
	fclose(f);
	text[n] = '\0';
	char **lines = NULL;
	if (n > (1u << 20))
		errprintf(err, "Configuration file %s is too large", path);
	else
		lines = srun_multi_prog_check(path, text, ntasks, err);
	free(text);
	return lines;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

char *srun_task_list(const int *ids, size_t n, char *buf, size_t len)
{
	int *v = xmalloc((n ? n : 1) * sizeof(*v));
	size_t off = 0;

	memcpy(v, ids, n * sizeof(*v));
	qsort(v, n, sizeof(*v), int_cmp);
	buf[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] <= v[j] + 1)
			j++;
		int w = v[i] == v[j] ? snprintf(buf + off, len - off, "%s%d", off ? "," : "", v[i])
				     : snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", v[i], v[j]);
		if (w < 0 || (size_t)w >= len - off)
			break;
		off += w;
		i = j + 1;
	}
	free(v);
	return buf;
}

char *srun_task_phrase(const int *ids, size_t n, char *buf, size_t len)
{
	int w = snprintf(buf, len, "%s ", n == 1 ? "task" : "tasks");
	if (w > 0 && (size_t)w < len)
		srun_task_list(ids, n, buf + w, len - w);
	return buf;
}

int srun_label_width(long ntasks)
{
	int w = 1;
	for (long m = ntasks - 1; m >= 10; m /= 10)
		w++;
	return w;
}

char *srun_label(int task, int width, char *buf, size_t len)
{
	snprintf(buf, len, "%*d: ", width, task);
	return buf;
}

const char *srun_status_text(int status, bool oom, char *buf, size_t len)
{
	if (WIFEXITED(status)) {
		if (!WEXITSTATUS(status))
			return NULL;
		snprintf(buf, len, "Exited with exit code %d", WEXITSTATUS(status));
		return buf;
	}
	if (WIFSIGNALED(status)) {
		if (oom && WTERMSIG(status) == SIGKILL) {
			snprintf(buf, len, "Out Of Memory");
			return buf;
		}
		snprintf(buf, len, "%s%s", strsignal(WTERMSIG(status)),
			 WCOREDUMP(status) ? " (core dumped)" : "");
		return buf;
	}
	snprintf(buf, len, "Exited with exit code %d", WEXITSTATUS(status));
	return buf;
}

int srun_status_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

char *srun_fold_counts(const int *v, size_t n, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[i])
			j++;
		int w = j > i ? snprintf(buf + off, len - off, "%s%d(x%zu)", off ? "," : "", v[i],
					 j - i + 1)
			      : snprintf(buf + off, len - off, "%s%d", off ? "," : "", v[i]);
		if (w < 0 || (size_t)w >= len - off)
			break;
		off += w;
		i = j + 1;
	}
	return buf;
}

void srun_tasks_per_node(const int *cpus, size_t n, long ntasks, long req_nodes, long cpt,
			 int *out)
{
	long total = ntasks ? ntasks : (req_nodes ? req_nodes : 1), left = total;
	if (cpt < 1)
		cpt = 1;
	for (size_t i = 0; i < n; i++) {
		if (req_nodes) {
			out[i] = (int)(total / (long)n + ((long)i < total % (long)n));
		} else {
			long room = cpus[i] / cpt;
			out[i] = (int)(i == n - 1 || room > left ? left : room);
		}
		left -= out[i];
	}
}
