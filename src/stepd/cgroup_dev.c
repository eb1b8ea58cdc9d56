/* ConstrainDevices for cgroup v1 (devices controller) and v2 (an eBPF device
 * program built here, instruction by instruction: no compiler, no object
 * file).  Not the place for which files a step gets: the caller says. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "common/log.h"
#include "common/xmalloc.h"
#include "stepd/cgroup_dev.h"

/* The character devices every program expects (doc/cgroup.md). */
static const struct cgroup_dev dev_defaults[] = {
	{ 'c', 1, 3, false },    /* /dev/null */
	{ 'c', 1, 5, false },    /* /dev/zero */
	{ 'c', 1, 7, false },    /* /dev/full */
	{ 'c', 1, 8, false },    /* /dev/random */
	{ 'c', 1, 9, false },    /* /dev/urandom */
	{ 'c', 5, 0, false },    /* /dev/tty */
	{ 'c', 5, 2, false },    /* /dev/ptmx */
	{ 'c', 136, 0, true },   /* /dev/pts/N */
};
#define DEV_NDEFAULTS (sizeof(dev_defaults) / sizeof(*dev_defaults))

size_t cgroup_dev_list(const char *const *paths, size_t npaths, struct cgroup_dev *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < DEV_NDEFAULTS && n < max; i++)
		out[n++] = dev_defaults[i];
	for (size_t i = 0; i < npaths && n < max; i++) {
		struct stat st;
		if (!paths[i] || !*paths[i])
			continue;
		if (stat(paths[i], &st) < 0) {
			if (errno != ENOENT)
				log_error("cgroup: ConstrainDevices: cannot stat %s: %s", paths[i],
					  strerror(errno));
			continue;
		}
		if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) {
			log_error("cgroup: ConstrainDevices: %s is not a device file", paths[i]);
			continue;
		}
		struct cgroup_dev d = { S_ISCHR(st.st_mode) ? 'c' : 'b', major(st.st_rdev),
					minor(st.st_rdev), false };
		bool dup = false;
		for (size_t j = 0; j < n && !dup; j++)
			dup = out[j].type == d.type && out[j].major == d.major &&
			      (out[j].any_minor || out[j].minor == d.minor);
		if (!dup)
			out[n++] = d;
	}
	return n;
}

static int dev_write(const char *dir, const char *file, const char *text)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	ssize_t w = write(fd, text, strlen(text));
	int saved = errno;
	close(fd);
	errno = saved;
	return w == (ssize_t)strlen(text) ? 0 : -1;
}

static void dev_rule(const struct cgroup_dev *d, char *buf, size_t len)
{
	if (d->any_minor)
		snprintf(buf, len, "%c %u:* rwm", d->type, d->major);
	else
		snprintf(buf, len, "%c %u:%u rwm", d->type, d->major, d->minor);
}

int cgroup_dev_v1(const char *dir, const struct cgroup_dev *devs, size_t n)
{
	char rule[64];
	if (dev_write(dir, "devices.deny", "a") < 0) {
		log_error("cgroup: cannot write devices.deny of %s: %s: ConstrainDevices not applied",
			  dir, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		dev_rule(&devs[i], rule, sizeof(rule));
		if (dev_write(dir, "devices.allow", rule) < 0)
			log_error("cgroup: cannot allow \"%s\" in %s: %s", rule, dir, strerror(errno));
	}
	return 0;
}

/* ---- the v2 program ----
 * The context (struct bpf_cgroup_dev_ctx): access_type (access << 16 |
 * type), major, minor.  r2 = type, r4 = major, r5 = minor; each rule
 * compares and returns 1 (allow) on a match; after the last, 0 (deny).
 * The access bits are not looked at: an allowed device is "rwm". */

static struct bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
	struct bpf_insn i = { .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm };
	return i;
}
#define LDX_W(dst, src, off) insn(BPF_LDX | BPF_MEM | BPF_W, dst, src, off, 0)
#define AND_IMM(dst, imm)    insn(BPF_ALU64 | BPF_AND | BPF_K, dst, 0, 0, imm)
#define JNE_IMM(dst, imm, off) insn(BPF_JMP | BPF_JNE | BPF_K, dst, 0, off, imm)
#define MOV_IMM(dst, imm)    insn(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm)
#define EXIT()               insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* The program for devs into prog (room for 4 + 5 n + 2); returns its length. */
static size_t dev_program(const struct cgroup_dev *devs, size_t n, struct bpf_insn *prog)
{
	size_t k = 0;
	prog[k++] = LDX_W(BPF_REG_2, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, access_type));
	prog[k++] = AND_IMM(BPF_REG_2, 0xffff);
	prog[k++] = LDX_W(BPF_REG_4, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, major));
	prog[k++] = LDX_W(BPF_REG_5, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, minor));
	for (size_t i = 0; i < n; i++) {
		int type = devs[i].type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR;
		int len = devs[i].any_minor ? 4 : 5;   /* this rule's instructions */
		/* each jump lands on the next rule: off counts from the next insn */
		prog[k++] = JNE_IMM(BPF_REG_2, type, len - 1);
		prog[k++] = JNE_IMM(BPF_REG_4, (__s32)devs[i].major, len - 2);
		if (!devs[i].any_minor)
			prog[k++] = JNE_IMM(BPF_REG_5, (__s32)devs[i].minor, 2);
		prog[k++] = MOV_IMM(BPF_REG_0, 1);
		prog[k++] = EXIT();
	}
	prog[k++] = MOV_IMM(BPF_REG_0, 0);
	prog[k++] = EXIT();
	return k;
}

int cgroup_dev_v2(const char *dir, const struct cgroup_dev *devs, size_t n)
{
	struct bpf_insn *prog = xmalloc((4 + 5 * n + 2) * sizeof(*prog));
	size_t len = dev_program(devs, n, prog);
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = sizeof(log),
		    .log_level = 0);
	int prog_fd = bpf_prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, "herd_devices", "GPL", prog, len,
				    &opts);
	free(prog);
	if (prog_fd < 0) {
		log_error("cgroup: cannot load the device program for %s: %s%s%s: ConstrainDevices "
			  "not applied", dir, strerror(errno), log[0] ? ": " : "", log);
		return -1;
	}
	int cg_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	int rc = cg_fd < 0 ? -1 : bpf_prog_attach(prog_fd, cg_fd, BPF_CGROUP_DEVICE, BPF_F_ALLOW_MULTI);
	if (rc < 0)
		log_error("cgroup: cannot attach the device program to %s: %s: ConstrainDevices "
			  "not applied", dir, strerror(errno));
	if (cg_fd >= 0)
		close(cg_fd);
	close(prog_fd);
	return rc < 0 ? -1 : 0;
}
