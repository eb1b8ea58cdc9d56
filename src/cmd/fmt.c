/* Slurm output-format specs and cell rendering for squeue/sinfo.  Matches
 * what Slurm prints: a width cuts the value to that many characters ('.'
 * pads on the left instead of the right), no width prints the value whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "cmd/fmt.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

static void line_append(char **line, const char *s, size_t n)
{
	size_t old = *line ? strlen(*line) : 0;
	*line = xrealloc(*line, old + n + 1);
	memcpy(*line + old, s, n);
	(*line)[old + n] = '\0';
}

static void push_item(struct fmt *f, struct fmt_item item)
{
	f->items = xrealloc(f->items, (f->count + 1) * sizeof(*f->items));
	f->items[f->count++] = item;
}

/* Literal text joins the previous literal, so "a%%b" is one item. */
static void push_text(struct fmt *f, const char *s, size_t n)
{
	if (!n)
		return;
	if (f->count && !f->items[f->count - 1].letter) {
		line_append(&f->items[f->count - 1].text, s, n);
		return;
	}
	push_item(f, (struct fmt_item){ .text = xstrndup(s, n) });
}

struct fmt *fmt_parse(const char *spec, const char *letters)
{
	struct fmt *f = xmalloc(sizeof(*f));
	const char *p = spec ? spec : "";

	while (*p) {
		const char *pct = strchr(p, '%');
		if (!pct) {
			push_text(f, p, strlen(p));
			break;
		}
		push_text(f, p, pct - p);
		const char *q = pct + 1;
		if (*q == '%') {
			push_text(f, "%", 1);
			p = q + 1;
			continue;
		}
		struct fmt_item item = { 0 };
		if (*q == '.') {
			item.right = true;
			q++;
		}
		if (*q == '#') {
			item.fit = true;
			q++;
		}
		while (*q >= '0' && *q <= '9') {
			if (item.width < 100000)
				item.width = item.width * 10 + (*q - '0');
			q++;
		}
		if (*q && strchr(letters, *q)) {
			item.letter = *q;
			push_item(f, item);
			p = q + 1;
			continue;
		}
		/* Slurm prints an unknown spec as it was written and complains. */
		if (!f->bad)
			f->bad = *q ? *q : '%';
		size_t n = *q ? (size_t)(q - pct + 1) : (size_t)(q - pct);
		push_text(f, pct, n);
		p = pct + n;
	}
	return f;
}

void fmt_destroy(struct fmt *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->count; i++)
		free(f->items[i].text);
	free(f->items);
	free(f);
}

static void add_spaces(struct strbuf *sb, size_t n)
{
	static const char spaces[] = "                                                                ";
	while (n) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		strbuf_add(sb, spaces, k);
		n -= k;
	}
}

/* One cell onto sb (no allocation per cell: squeue renders 100,000 rows). */
static void cell_add(struct strbuf *sb, const char *value, int width, bool right)
{
	size_t len = strlen(value);
	if (width <= 0) {
		strbuf_add(sb, value, len);
		return;
	}
	if (len > (size_t)width)
		len = width;
	if (right)
		add_spaces(sb, width - len);
	strbuf_add(sb, value, len);
	if (!right)
		add_spaces(sb, width - len);
}

void fmt_cell(char **line, const char *value, int width, bool right)
{
	struct strbuf sb = { 0 };
	cell_add(&sb, value, width, right);
	line_append(line, sb.s ? sb.s : "", sb.len);
	free(sb.s);
}

const char *fmt_title_of(const struct fmt_title *titles, char letter)
{
	for (; titles && titles->letter; titles++)
		if (titles->letter == letter)
			return titles->title;
	return NULL;
}

char *fmt_line(const struct fmt *f, fmt_value_f value, const void *row,
	       const struct fmt_title *titles)
{
	struct strbuf line = { 0 };
	char buf[4096];

	strbuf_add(&line, "", 0);
	for (size_t i = 0; i < f->count; i++) {
		const struct fmt_item *it = &f->items[i];
		if (!it->letter) {
			strbuf_adds(&line, it->text);
			continue;
		}
		const char *s;
		if (value) {
			buf[0] = '\0';
			s = value(it->letter, row, buf, sizeof(buf));
		} else {
			s = fmt_title_of(titles, it->letter);
			if (!s) {
				buf[0] = it->letter;
				buf[1] = '\0';
				s = buf;
			}
		}
		cell_add(&line, s ? s : "", it->width, it->right);
	}
	return line.s;
}

char *fmt_from_names(const char *spec, const struct fmt_name *names, char **bad)
{
	char *out = xstrdup("");
	const char *p = spec ? spec : "";

	*bad = NULL;
	while (*p) {
		size_t n = strcspn(p, ",");
		char *field = xstrndup(p, n);
		p += n + (p[n] == ',');
		if (!*field) {
			free(field);
			continue;
		}
		char *colon = strchr(field, ':');
		const char *opts = "";
		if (colon) {
			*colon = '\0';
			opts = colon + 1;
		}
		char letter = 0;
		for (const struct fmt_name *k = names; k->name && !letter; k++)
			if (!strcasecmp(field, k->name))
				letter = k->letter;
		if (!letter) {
			*bad = field;
			free(out);
			return NULL;
		}
		bool right = *opts == '.';
		if (right)
			opts++;
		int width = colon ? 0 : 20;
		while (*opts >= '0' && *opts <= '9') {
			if (width < 100000)
				width = width * 10 + (*opts - '0');
			opts++;
		}
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "%%%s%d%c", right ? "." : "", width, letter);
		line_append(&out, prefix, strlen(prefix));
		for (; *opts; opts++)   /* the suffix, a '%' in it kept literal */
			line_append(&out, *opts == '%' ? "%%" : opts, *opts == '%' ? 2 : 1);
		free(field);
	}
	return out;
}

void fmt_fit(struct fmt *f, fmt_value_f value, const void *const *rows, size_t nrows,
	     const struct fmt_title *titles, int min_width)
{
	char buf[4096];

	for (size_t i = 0; i < f->count; i++) {
		struct fmt_item *it = &f->items[i];
		if (!it->letter || !it->fit)
			continue;
		const char *title = fmt_title_of(titles, it->letter);
		size_t width = title ? strlen(title) : 1;
		if (width < (size_t)min_width)
			width = min_width;
		for (size_t r = 0; r < nrows; r++) {
			buf[0] = '\0';
			const char *s = value(it->letter, rows[r], buf, sizeof(buf));
			if (s && strlen(s) > width)
				width = strlen(s);
		}
		if ((int)width > it->width)
			it->width = width;
	}
}

void fmt_print_table(const struct fmt *f, fmt_value_f value, const void *const *rows,
		     size_t nrows, const struct fmt_title *titles, bool header, bool long_form)
{
	char *line;
	if (long_form && header) {   /* -l -h: Slurm drops the date line with the titles */
		char date[64];
		time_t t = time(NULL);
		struct tm tm;
		localtime_r(&t, &tm);
		strftime(date, sizeof(date), "%a %b %d %H:%M:%S %Y", &tm);
		printf("%s\n", date);
	}
	if (header) {
		line = fmt_line(f, NULL, NULL, titles);
		printf("%s\n", line);
		free(line);
	}
	for (size_t i = 0; i < nrows; i++) {
		line = fmt_line(f, value, rows[i], NULL);
		printf("%s\n", line);
		free(line);
	}
}
