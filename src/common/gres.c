/* Generic resources as declared: gres.conf and a node's Gres= parsed into
 * records, and the strings shown for them (doc/gres.md section 1).  Pure
 * but for gres_conf_load's read of the file.  Scheduling is elsewhere. */
#define _GNU_SOURCE   /* strcasestr */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/gres.h"
#include "common/hostlist.h"
#include "common/strbuf.h"
#include "common/xmalloc.h"

#define GRES_MAX_DEVS 4096          /* per node: bounds the work of a hostile file */
#define GRES_MAX_FILE (1 << 20)     /* bytes of gres.conf */
#define GRES_MAX_DECL 64            /* words of a node's Gres= */
#define GRES_MAX_COUNT (1ULL << 48)
#define GRES_MAX_CORE 65536         /* core IDs below it */
#define GRES_MAX_NODE_NAMES 1000000 /* NodeName= names of a whole file, expanded */

static void __attribute__((format(printf, 2, 3))) sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	strbuf_adds(sb, buf);
}

static const struct {
	const char *word;
	unsigned flag;
} flag_words[] = {
	{ "CountOnly", GRES_F_COUNT_ONLY }, { "nvidia_gpu_env", GRES_F_NVIDIA_GPU_ENV },
	{ "amd_gpu_env", GRES_F_AMD_GPU_ENV }, { "opencl_env", GRES_F_OPENCL_ENV },
	{ "no_gpu_env", GRES_F_NO_GPU_ENV }, { "one_sharing", GRES_F_ONE_SHARING },
	{ "all_sharing", GRES_F_ALL_SHARING },
};

int gres_count_parse(const char *s, uint64_t *out)
{
	char *end;
	uint64_t v, mult = 1;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		const char *units = "KMGT", *u = strchr(units, toupper((unsigned char)*end));
		if (!u || end[1])
			return -1;
		for (const char *p = units; p <= u; p++)
			mult *= 1024;
	}
	if (v > GRES_MAX_COUNT / mult)
		return -1;
	*out = v * mult;
	return 0;
}

int gres_flags_parse(const char *s, unsigned *flags, struct herd_error *err)
{
	unsigned f = 0;

	for (const char *p = s; *p;) {
		size_t n = strcspn(p, ","), i;
		for (i = 0; i < sizeof(flag_words) / sizeof(flag_words[0]); i++)
			if (strlen(flag_words[i].word) == n && !strncasecmp(p, flag_words[i].word, n))
				break;
		if (i == sizeof(flag_words) / sizeof(flag_words[0]))
			return errprintf(err, "unknown flag '%.*s' in Flags=%s", (int)n, p, s);
		f |= flag_words[i].flag;
		p += n + (p[n] == ',');
	}
	*flags = f;
	return 0;
}

/* Calls fn for each range lo-hi of a valid ranges string; -1 when malformed. */
static int cores_walk(const char *s, int limit, void (*fn)(long, long, void *), void *arg)
{
	const char *p = s;

	if (!*s)
		return -1;
	while (*p) {
		char *end;
		long lo, hi;
		if (!isdigit((unsigned char)*p))
			return -1;
		lo = hi = strtol(p, &end, 10);
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				return -1;
			hi = strtol(p + 1, &end, 10);
			p = end;
		}
		if (hi < lo || hi >= GRES_MAX_CORE || (limit > 0 && hi >= limit))
			return -1;
		if (*p == ',' && !p[1])
			return -1;
		if (*p && *p != ',')
			return -1;
		p += *p == ',';
		if (fn)
			fn(lo, hi, arg);
	}
	return 0;
}

bool gres_cores_valid(const char *s, int limit)
{
	return cores_walk(s, limit, NULL, NULL) == 0;
}

static bool links_valid(const char *s)
{
	const char *p = s;
	if (!*s)
		return false;
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < -1 || v > 1000000 || (*end && *end != ','))
			return false;
		p = end + (*end == ',');
		if (end[0] == ',' && !end[1])
			return false;
	}
	return true;
}

/* A name or a type: letters, digits, '_', '-', '.'. */
static bool word_valid(const char *s, size_t max)
{
	if (!*s || strlen(s) >= max)
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-.", *p))
			return false;
	return true;
}

void gres_conf_add(struct gres_conf *gc, const struct gres_dev *dev)
{
	gc->devs = xrealloc(gc->devs, (gc->ndevs + 1) * sizeof(*gc->devs));
	gc->devs[gc->ndevs++] = *dev;
}

void gres_devs_number(struct gres_dev *devs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int idx = 0;
		for (size_t j = 0; j < i; j++)
			idx += !strcmp(devs[j].name, devs[i].name);
		devs[i].index = idx;
	}
}

void gres_conf_free(struct gres_conf *gc)
{
	if (!gc)
		return;
	free(gc->devs);
	memset(gc, 0, sizeof(*gc));
}

/* One line's words, each "Key=Value". */
struct line {
	const char *node, *name, *type, *file, *cores, *links, *count, *flags, *autodetect;
};

static int line_set(struct line *l, char *word, const char *where, struct herd_error *err)
{
	static const struct {
		const char *key;
		size_t offset;
	} keys[] = {
		{ "NodeName", offsetof(struct line, node) }, { "Name", offsetof(struct line, name) },
		{ "Type", offsetof(struct line, type) }, { "File", offsetof(struct line, file) },
		{ "Files", offsetof(struct line, file) }, { "Cores", offsetof(struct line, cores) },
		{ "Links", offsetof(struct line, links) }, { "Count", offsetof(struct line, count) },
		{ "Flags", offsetof(struct line, flags) },
		{ "AutoDetect", offsetof(struct line, autodetect) },
	};
	char *eq = strchr(word, '=');

	if (!eq)
		return errprintf(err, "%s: expected Key=Value, found '%s'", where, word);
	*eq = '\0';
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcasecmp(keys[i].key, word)) {
			const char **slot = (const char **)((char *)l + keys[i].offset);
			if (!eq[1])
				return errprintf(err, "%s: %s= has no value", where, keys[i].key);
			*slot = eq + 1;
			return 0;
		}
	return errprintf(err, "%s: unknown key '%s'", where, word);
}

/* *names_left: what the file's NodeName= lines may still expand to (a
 * hostile file cannot make the parse expand 10^6 names per line). */
static bool line_is_mine(const struct line *l, const char *node, size_t *names_left,
			 const char *where, struct herd_error *err, int *rc)
{
	*rc = 0;
	if (!l->node || !node)
		return true;
	struct hostlist *hl = NULL;
	errno = E2BIG;
	if (*names_left)
		hl = hostlist_create_max(l->node, *names_left);
	if (!hl) {
		*rc = errno == E2BIG ? errprintf(err, "%s: NodeName= lines name more than %d nodes",
						 where, GRES_MAX_NODE_NAMES)
				     : errprintf(err, "%s: invalid NodeName=%s", where, l->node);
		return false;
	}
	*names_left -= hostlist_count(hl);
	bool mine = hostlist_find(hl, node) >= 0;
	hostlist_destroy(hl);
	return mine;
}

/* The records of one Name= line appended to gc. */
static int line_devices(const struct line *l, const char *where, struct gres_conf *gc,
			struct herd_error *err)
{
	struct gres_dev dev = { .count = 1 };
	uint64_t count = 0;
	struct hostlist *files = NULL;

	if (!word_valid(l->name, sizeof(dev.name)))
		return errprintf(err, "%s: invalid Name=%s", where, l->name);
	snprintf(dev.name, sizeof(dev.name), "%s", l->name);
	if (l->type) {
		if (!word_valid(l->type, sizeof(dev.type)))
			return errprintf(err, "%s: invalid Type=%s", where, l->type);
		snprintf(dev.type, sizeof(dev.type), "%s", l->type);
	}
	if (l->count && gres_count_parse(l->count, &count) < 0)
		return errprintf(err, "%s: invalid Count=%s", where, l->count);
	if (l->cores) {
		if (!gres_cores_valid(l->cores, 0) || strlen(l->cores) >= sizeof(dev.cores))
			return errprintf(err, "%s: gres/%s: invalid GRES core specification (%s)",
					 where, l->name, l->cores);
		snprintf(dev.cores, sizeof(dev.cores), "%s", l->cores);
	}
	if (l->links) {
		if (!links_valid(l->links) || strlen(l->links) >= sizeof(dev.links))
			return errprintf(err, "%s: invalid Links=%s", where, l->links);
		snprintf(dev.links, sizeof(dev.links), "%s", l->links);
	}
	if (l->flags && gres_flags_parse(l->flags, &dev.flags, err) < 0) {
		char text[sizeof(err->text)];
		snprintf(text, sizeof(text), "%s", err->text);
		return errprintf(err, "%s: %s", where, text);
	}
	if (!l->file) {
		dev.count = l->count ? count : 1;
		if (gc->ndevs >= GRES_MAX_DEVS)
			return errprintf(err, "%s: more than %d GRES records", where, GRES_MAX_DEVS);
		gres_conf_add(gc, &dev);
		return 0;
	}
	files = hostlist_create_max(l->file, GRES_MAX_DEVS);
	if (!files || !hostlist_count(files)) {
		hostlist_destroy(files);
		return errprintf(err, "%s: invalid File=%s", where, l->file);
	}
	size_t n = hostlist_count(files);
	/* shares of GPUs (shard, mps: gres.html's "Name=shard Count=8
	 * File=/dev/nvidia0"): Count is spread evenly over the files */
	bool shares = !strcmp(l->name, "shard") || !strcmp(l->name, "mps");
	if (shares && l->count) {
		if (count % n) {
			hostlist_destroy(files);
			return errprintf(err, "%s: Count=%s is not a multiple of the %zu device files of "
					 "File=%s", where, l->count, n, l->file);
		}
		dev.count = count / n;
	} else if (l->count && count != n) {
		hostlist_destroy(files);
		return errprintf(err, "%s: Count=%s does not match the %zu device files of File=%s",
				 where, l->count, n, l->file);
	}
	if (gc->ndevs + n > GRES_MAX_DEVS) {
		hostlist_destroy(files);
		return errprintf(err, "%s: more than %d GRES records", where, GRES_MAX_DEVS);
	}
	for (size_t i = 0; i < n; i++) {
		const char *f = hostlist_nth(files, i);
		if (f[0] != '/' || strlen(f) >= sizeof(dev.file)) {
			errprintf(err, "%s: File=%s: '%s' is not an absolute path", where, l->file, f);
			hostlist_destroy(files);
			return -1;
		}
		snprintf(dev.file, sizeof(dev.file), "%s", f);
		gres_conf_add(gc, &dev);
	}
	hostlist_destroy(files);
	return 0;
}

static int autodetect_parse(const char *s, enum gres_autodetect *out, const char *where,
			    struct herd_error *err)
{
	if (!strcasecmp(s, "nvml") || !strcasecmp(s, "nvidia"))
		*out = GRES_AUTODETECT_NVML;
	else if (!strcasecmp(s, "off"))
		*out = GRES_AUTODETECT_OFF;
	else if (!strcasecmp(s, "rsmi") || !strcasecmp(s, "oneapi") || !strcasecmp(s, "nrt"))
		return errprintf(err, "%s: AutoDetect=%s is not supported (nvml or off)", where, s);
	else
		return errprintf(err, "%s: invalid AutoDetect=%s (nvml or off)", where, s);
	return 0;
}

/* One logical line (continuations joined, comment cut). */
static int parse_line(char *text, const char *where, const char *node, size_t *names_left,
		      struct gres_conf *gc, enum gres_autodetect *global, enum gres_autodetect *mine,
		      struct herd_error *err)
{
	struct line l = { 0 };
	char *save = NULL;
	int rc;

	for (char *w = strtok_r(text, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save))
		if (line_set(&l, w, where, err) < 0)
			return -1;
	if (!line_is_mine(&l, node, names_left, where, err, &rc))
		return rc;
	if (l.autodetect) {
		enum gres_autodetect a = GRES_AUTODETECT_UNSET;
		if (autodetect_parse(l.autodetect, &a, where, err) < 0)
			return -1;
		*(l.node ? mine : global) = a;
	}
	if (!l.name) {
		if (l.type || l.file || l.cores || l.links || l.count || l.flags)
			return errprintf(err, "%s: Name= is required", where);
		return 0;
	}
	return line_devices(&l, where, gc, err);
}

int gres_conf_parse(const char *text, const char *path, const char *node,
		    struct gres_conf *out, struct herd_error *err)
{
	struct gres_conf gc = { 0 };
	enum gres_autodetect global = GRES_AUTODETECT_UNSET, mine = GRES_AUTODETECT_UNSET;
	struct strbuf sb = { 0 };
	int lineno = 0, first = 0;
	size_t names_left = GRES_MAX_NODE_NAMES;

	for (const char *p = text; *p || sb.len;) {
		size_t n = strcspn(p, "\n");
		lineno++;
		if (!sb.len)
			first = lineno;
		char *raw = xstrndup(p, n);
		p += n + (p[n] == '\n');
		char *hash = strchr(raw, '#');
		if (hash)
			*hash = '\0';
		size_t len = strlen(raw);
		while (len && strchr(" \t\r", raw[len - 1]))
			raw[--len] = '\0';
		bool more = len && raw[len - 1] == '\\' && *p;
		if (more)
			raw[--len] = '\0';
		strbuf_adds(&sb, raw);
		strbuf_adds(&sb, " ");
		free(raw);
		if (more)
			continue;
		char where[300];
		snprintf(where, sizeof(where), "%s:%d", path, first);
		int rc = parse_line(sb.s, where, node, &names_left, &gc, &global, &mine, err);
		free(sb.s);
		sb = (struct strbuf){ 0 };
		if (rc < 0) {
			gres_conf_free(&gc);
			return -1;
		}
	}
	gres_devs_number(gc.devs, gc.ndevs);
	gc.autodetect = mine != GRES_AUTODETECT_UNSET ? mine : global;
	*out = gc;
	return 0;
}

int gres_conf_load(const char *path, const char *node, struct gres_conf *out,
		   struct herd_error *err)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t len;

	if (!f) {
		if (errno == ENOENT) {
			*out = (struct gres_conf){ 0 };
			return 0;
		}
		return errprintf(err, "cannot open %s: %s", path, strerror(errno));
	}
	text = xmalloc(GRES_MAX_FILE + 1);
	len = fread(text, 1, GRES_MAX_FILE + 1, f);
	fclose(f);
	if (len > GRES_MAX_FILE) {
		free(text);
		return errprintf(err, "%s: larger than %d bytes", path, GRES_MAX_FILE);
	}
	text[len] = '\0';
	int rc = gres_conf_parse(text, path, node, out, err);
	free(text);
	return rc;
}

bool gres_types_has(const char *types, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = types ? types : ""; *p;) {
		size_t n = strcspn(p, ",");
		if (n == len && !strncasecmp(p, name, n))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

static int decl_word(char *w, struct gres_decl *d, struct herd_error *err)
{
	char *parts[4];
	int k = 0;

	for (char *p; (p = strsep(&w, ":"));) {
		if (k == 4 || !*p)
			return -1;
		parts[k++] = p;
	}
	if (!k || !word_valid(parts[0], sizeof(d->name)))
		return -1;
	snprintf(d->name, sizeof(d->name), "%s", parts[0]);
	d->count = 1;
	if (k > 1 && isdigit((unsigned char)parts[k - 1][0])) {
		if (gres_count_parse(parts[k - 1], &d->count) < 0)
			return -1;
		k--;
	}
	for (int i = 1; i < k; i++) {
		if (!strcasecmp(parts[i], "no_consume"))
			d->flags |= GRES_F_NO_CONSUME;
		else if (!d->type[0] && word_valid(parts[i], sizeof(d->type)))
			snprintf(d->type, sizeof(d->type), "%s", parts[i]);
		else
			return -1;
	}
	return 0;
}

int gres_decl_parse(const char *s, struct gres_decl **out, size_t *n, struct herd_error *err)
{
	struct gres_decl *list = NULL;
	size_t count = 0;
	char *copy = xstrdup(s ? s : ""), *save = NULL;

	if (!strcasecmp(copy, "(null)") || !strcasecmp(copy, "none"))
		copy[0] = '\0';
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		struct gres_decl d;
		memset(&d, 0, sizeof(d));
		char word[128];
		snprintf(word, sizeof(word), "%s", w);
		if (count == GRES_MAX_DECL || decl_word(w, &d, err) < 0) {
			errprintf(err, "Invalid GRES specification (%s)", word);
			goto error;
		}
		list = xrealloc(list, (count + 1) * sizeof(*list));
		list[count++] = d;
	}
	free(copy);
	*out = list;
	*n = count;
	return 0;
error:
	free(copy);
	free(list);
	return -1;
}

json_t *gres_devs_to_json(const struct gres_dev *devs, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:i, s:s, s:s, s:s, s:I, s:i}",
						     "name", devs[i].name, "type", devs[i].type,
						     "index", devs[i].index, "file", devs[i].file,
						     "cores", devs[i].cores, "links", devs[i].links,
						     "count", (json_int_t)devs[i].count,
						     "flags", (int)devs[i].flags));
	return arr;
}

static int copy_str(char *dst, size_t size, const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	if (!v || strlen(v) >= size)
		return -1;
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

int gres_devs_from_json(const json_t *arr, struct gres_dev **out, size_t *n,
			struct herd_error *err)
{
	struct gres_dev *devs = NULL;
	size_t count = json_array_size(arr), i;
	const json_t *o;

	if (!json_is_array(arr) || count > GRES_MAX_DEVS)
		return errprintf(err, "gres: not an array of at most %d records", GRES_MAX_DEVS);
	devs = xmalloc((count ? count : 1) * sizeof(*devs));
	json_array_foreach(arr, i, o) {
		struct gres_dev *d = &devs[i];
		json_t *idx = json_object_get(o, "index"), *cnt = json_object_get(o, "count");
		json_t *fl = json_object_get(o, "flags");
		if (copy_str(d->name, sizeof(d->name), o, "name") < 0 || !word_valid(d->name, 32) ||
		    copy_str(d->type, sizeof(d->type), o, "type") < 0 ||
		    copy_str(d->file, sizeof(d->file), o, "file") < 0 ||
		    copy_str(d->cores, sizeof(d->cores), o, "cores") < 0 ||
		    copy_str(d->links, sizeof(d->links), o, "links") < 0 || !json_is_integer(idx) ||
		    !json_is_integer(cnt) || json_integer_value(cnt) < 0 ||
		    (uint64_t)json_integer_value(cnt) > GRES_MAX_COUNT ||
		    json_integer_value(idx) < 0 || json_integer_value(idx) > GRES_MAX_DEVS ||
		    (fl && !json_is_integer(fl)) || (d->cores[0] && !gres_cores_valid(d->cores, 0))) {
			free(devs);
			return errprintf(err, "gres: record %zu is malformed", i);
		}
		d->index = json_integer_value(idx);
		d->count = json_integer_value(cnt);
		d->flags = fl ? (unsigned)json_integer_value(fl) : 0;
	}
	*out = devs;
	*n = count;
	return 0;
}

uint64_t gres_devs_count(const struct gres_dev *devs, size_t n, const char *name,
			 const char *type)
{
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(devs[i].name, name) && gres_type_matches(devs[i].type, type))
			total += devs[i].count;
	return total;
}

/* "4096" as Slurm prints counts: the largest exact K/M/G/T unit. */
static void count_add(struct strbuf *sb, uint64_t count)
{
	const char *units = "KMGT";
	int u = -1;
	while (count && count % 1024 == 0 && u < 3) {
		count /= 1024;
		u++;
	}
	sb_addf(sb, "%" PRIu64, count);
	if (u >= 0)
		sb_addf(sb, "%c", units[u]);
}

struct sockets {
	int per_socket;
	unsigned char seen[1024];
};

static void socket_mark(long lo, long hi, void *arg)
{
	struct sockets *s = arg;
	for (long sock = lo / s->per_socket; sock <= hi / s->per_socket &&
	     sock < (long)sizeof(s->seen); sock++)
		s->seen[sock] = 1;
}

/* "0-1" / "0,2": the sockets marked, as ranges. */
static void sockets_add(struct strbuf *sb, const struct sockets *s)
{
	bool first = true;
	for (int i = 0; i < (int)sizeof(s->seen); i++) {
		if (!s->seen[i])
			continue;
		int j = i;
		while (j + 1 < (int)sizeof(s->seen) && s->seen[j + 1])
			j++;
		sb_addf(sb, first ? "%d" : ",%d", i);
		if (j > i)
			sb_addf(sb, "-%d", j);
		first = false;
		i = j;
	}
}

static void decl_head(struct strbuf *sb, const struct gres_decl *d)
{
	if (sb->len)
		strbuf_adds(sb, ",");
	strbuf_adds(sb, d->name);
	if (d->type[0])
		sb_addf(sb, ":%s", d->type);
	if (d->flags & GRES_F_NO_CONSUME)
		strbuf_adds(sb, ":no_consume");
	strbuf_adds(sb, ":");
}

bool gres_type_matches(const char *dev_type, const char *want)
{
	return !want || !*want || strcasestr(dev_type, want);
}

static bool dev_matches(const struct gres_dev *dev, const struct gres_decl *d)
{
	return !strcmp(dev->name, d->name) && gres_type_matches(dev->type, d->type);
}

char *gres_node_string(const struct gres_decl *decl, size_t ndecl, const struct gres_dev *devs,
		       size_t ndevs, int cores_per_socket)
{
	struct strbuf sb = { 0 };

	for (size_t i = 0; i < ndecl; i++) {
		struct sockets s = { .per_socket = cores_per_socket > 0 ? cores_per_socket : 1 };
		bool any = false;
		decl_head(&sb, &decl[i]);
		count_add(&sb, decl[i].count);
		for (size_t j = 0; cores_per_socket > 0 && j < ndevs; j++)
			if (dev_matches(&devs[j], &decl[i]) && devs[j].cores[0] && devs[j].file[0] &&
			    cores_walk(devs[j].cores, 0, socket_mark, &s) == 0)
				any = true;
		if (any) {
			strbuf_adds(&sb, "(S:");
			sockets_add(&sb, &s);
			strbuf_adds(&sb, ")");
		}
	}
	return sb.s ? sb.s : xstrdup("");
}

char *gres_used_string(const struct gres_decl *decl, size_t ndecl, const struct gres_dev *devs,
		       size_t ndevs)
{
	struct strbuf sb = { 0 };

	for (size_t i = 0; i < ndecl; i++) {
		bool files = !strcmp(decl[i].name, "gpu");
		for (size_t j = 0; j < ndevs && !files; j++)
			files = dev_matches(&devs[j], &decl[i]) && devs[j].file[0];
		decl_head(&sb, &decl[i]);
		strbuf_adds(&sb, files ? "0(IDX:N/A)" : "0");
	}
	return sb.s ? sb.s : xstrdup("");
}

bool gres_tres_tracked(const char *storage_tres, const char *name)
{
	if (!strcasecmp(name, "gres/gpumem") || !strcasecmp(name, "gres/gpuutil"))
		name = "gres/gpu";
	size_t len = strlen(name);
	for (const char *p = storage_tres; p && *p;) {
		p += strspn(p, " \t,");
		size_t n = strcspn(p, ",");
		size_t w = n;
		while (w && (p[w - 1] == ' ' || p[w - 1] == '\t'))
			w--;
		if (w == len && !strncasecmp(p, name, len))
			return true;
		p += n;
	}
	return false;
}
