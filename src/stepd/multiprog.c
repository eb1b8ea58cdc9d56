/* The --multi-prog file, line by line: a task list, the program and its
 * arguments.  srun already read the file; herdstepd only picks each local
 * task's line. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "stepd/multiprog.h"

/* Split a line into words: blanks separate, quotes group, '#' outside
 * quotes ends the line.  Returns the count, -1 on an unclosed quote. */
static int multiprog_words(const char *line, char ***out)
{
	char **words = NULL;
	int n = 0;
	const char *p = line;

	*out = NULL;
	for (;;) {
		struct strbuf w = { 0 };
		bool have = false;
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			break;
		strbuf_add(&w, "", 0);
		while (*p && !isspace((unsigned char)*p)) {
			if (*p == '\'' || *p == '"') {
				char q = *p++;
				const char *end = strchr(p, q);
				if (!end) {
					free(w.s);
					for (int i = 0; i < n; i++)
						free(words[i]);
					free(words);
					return -1;
				}
				strbuf_add(&w, p, end - p);
				p = end + 1;
			} else {
				strbuf_add(&w, p++, 1);
			}
			have = true;
		}
		if (!have) {
			free(w.s);
			continue;
		}
		words = xrealloc(words, (n + 2) * sizeof(char *));
		words[n++] = w.s;
		words[n] = NULL;
	}
	*out = words;
	return n;
}

/* Does the task list name task?  *offset: its position in the list.
 * 1 yes, 0 no, -1 malformed. */
static int multiprog_match(const char *list, uint32_t task, uint32_t ntasks, uint32_t *offset)
{
	const char *p = list;
	uint32_t before = 0;
	int found = 0;

	if (!strcmp(list, "*")) {
		*offset = task;
		return 1;
	}
	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), z;
		if (end == p || !isdigit((unsigned char)*p))
			return -1;
		z = a;
		p = end;
		if (*p == '-') {
			z = strtoul(p + 1, &end, 10);
			if (end == p + 1 || z < a)
				return -1;
			p = end;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
		if (!found && task >= a && task <= z) {
			*offset = before + (task - a);
			found = 1;
		}
		before += z - a + 1;
	}
	(void)ntasks;
	return found;
}

/* %t and %o in one word. */
static char *multiprog_subst(const char *word, uint32_t task, uint32_t offset)
{
	struct strbuf b = { 0 };
	char num[16];

	strbuf_add(&b, "", 0);
	for (const char *p = word; *p; p++) {
		if (p[0] == '%' && (p[1] == 't' || p[1] == 'o')) {
			snprintf(num, sizeof(num), "%u", p[1] == 't' ? task : offset);
			strbuf_adds(&b, num);
			p++;
		} else {
			strbuf_add(&b, p, 1);
		}
	}
	return b.s;
}

void multiprog_free_argv(char **argv)
{
	if (!argv)
		return;
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

char **multiprog_argv(char *const *lines, size_t nlines, uint32_t task, uint32_t ntasks,
		      struct herd_error *err)
{
	for (size_t i = 0; i < nlines; i++) {
		char **words;
		int n = multiprog_words(lines[i], &words);
		uint32_t offset = 0;
		int m;

		if (n < 0) {
			errprintf(err, "--multi-prog line %zu: unmatched quote", i + 1);
			return NULL;
		}
		if (n == 0) {
			free(words);
			continue;
		}
		m = multiprog_match(words[0], task, ntasks, &offset);
		if (m < 0 || (m > 0 && n < 2)) {
			errprintf(err, "--multi-prog line %zu: %s", i + 1,
				  m < 0 ? "invalid task list" : "no program given");
			multiprog_free_argv(words);
			return NULL;
		}
		if (m == 0) {
			multiprog_free_argv(words);
			continue;
		}
		char **argv = xmalloc(n * sizeof(char *));
		for (int w = 1; w < n; w++)
			argv[w - 1] = multiprog_subst(words[w], task, offset);
		argv[n - 1] = NULL;
		multiprog_free_argv(words);
		return argv;
	}
	errprintf(err, "--multi-prog: no line names task %u", task);
	return NULL;
}
