/* Expansion of Slurm's %-patterns in output/input file names.  Kept pure so
 * the unit tests can pin Slurm's documented behaviour case by case. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "common/strbuf.h"
#include "common/xmalloc.h"
#include "stepd/pattern.h"

static void pattern_put_num(struct strbuf *b, uint64_t value, int width)
{
	char num[32];
	int n = snprintf(num, sizeof(num), "%0*llu", width, (unsigned long long)value);
	strbuf_add(b, num, n);
}

static void pattern_put_str(struct strbuf *b, const char *s)
{
	if (s)
		strbuf_add(b, s, strlen(s));
}

char *pattern_expand(const char *pattern, const struct pattern_ctx *ctx)
{
	struct strbuf b = { 0 };
	const char *p = pattern;

	strbuf_add(&b, "", 0);
	if (strchr(pattern, '\\')) {
		for (; *p; p++)
			if (*p != '\\')
				strbuf_add(&b, p, 1);
		return b.s;
	}
	while (*p) {
		const char *start = p;
		int width = 0;

		if (*p != '%') {
			strbuf_add(&b, p++, 1);
			continue;
		}
		p++;
		while (isdigit((unsigned char)*p)) {
			if (width < 100)
				width = width * 10 + (*p - '0');
			p++;
		}
		if (width > 10)
			width = 10;
		switch (*p) {
		case '%':
			strbuf_add(&b, "%", 1);
			break;
		case 'j':
			pattern_put_num(&b, ctx->job_id, width);
			break;
		case 'J':
			pattern_put_num(&b, ctx->job_id, width);
			if (ctx->is_step) {
				strbuf_add(&b, ".", 1);
				pattern_put_num(&b, ctx->step_id, 0);
			}
			break;
		case 'A':
			pattern_put_num(&b, ctx->array_job_id ? ctx->array_job_id : ctx->job_id, width);
			break;
		case 'a':
			pattern_put_num(&b, ctx->array_task_id, width);
			break;
		case 'n':
			pattern_put_num(&b, ctx->node_id, width);
			break;
		case 't':
			pattern_put_num(&b, ctx->is_step ? ctx->task_id : 0, width);
			break;
		case 's':
			if (ctx->is_step)
				pattern_put_num(&b, ctx->step_id, width);
			else
				pattern_put_str(&b, "batch");
			break;
		case 'x':
			pattern_put_str(&b, ctx->job_name);
			break;
		case 'u':
			pattern_put_str(&b, ctx->user);
			break;
		case 'N':
			pattern_put_str(&b, ctx->node);
			break;
		case '\0':
			/* a trailing '%' (with or without digits) stays as written */
			strbuf_add(&b, start, p - start);
			return b.s;
		default:
			strbuf_add(&b, start, p - start + 1);
			break;
		}
		p++;
	}
	return b.s;
}

char *pattern_join(const char *dir, const char *path)
{
	if (path[0] == '/' || !dir || !dir[0])
		return xstrdup(path);
	size_t dl = strlen(dir);
	return xasprintf("%s%s%s", dir, dir[dl - 1] == '/' ? "" : "/", path);
}
