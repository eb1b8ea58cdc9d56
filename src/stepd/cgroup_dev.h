/* ConstrainDevices: which device files a step's cgroup may use.  The
 * character devices every program needs (/dev/null, zero, full, random,
 * urandom, tty, ptmx, pts/N) plus the step's GRES device files; everything
 * else is "Operation not permitted".  cgroup v1 through the devices
 * controller's devices.deny/devices.allow; cgroup v2 through an eBPF
 * program of type BPF_PROG_TYPE_CGROUP_DEVICE (libbpf) attached to the
 * step's cgroup, as systemd and Slurm do.  doc/gres.md section 3. */
#ifndef HERD_STEPD_CGROUP_DEV_H
#define HERD_STEPD_CGROUP_DEV_H
#include <stdbool.h>
#include <stddef.h>

struct cgroup_dev {
	char type;              /* 'c' or 'b' */
	unsigned major, minor;
	bool any_minor;         /* "c 136:*" */
};
#define CGROUP_DEV_MAX 4096 /* devices allowed to one step, the defaults included */

/* The defaults, then one entry per path that is a device file (stat, so a
 * symlink in /dev is followed: the paths are the administrator's, from
 * gres.conf).  A path that does not exist is skipped quietly (a driver's
 * companion file such as /dev/nvidia-uvm may be absent); one that is not a
 * device is logged.  Returns the count. */
size_t cgroup_dev_list(const char *const *paths, size_t npaths, struct cgroup_dev *out, size_t max);

/* v1: devices.deny "a", then devices.allow each of devs, in dir (the step's
 * cgroup in the devices hierarchy).  -1 (logged) when the deny failed. */
int cgroup_dev_v1(const char *dir, const struct cgroup_dev *devs, size_t n);

/* v2: load a device program allowing exactly devs and attach it to dir
 * (BPF_F_ALLOW_MULTI: a program above, systemd's, still applies too).  The
 * attachment holds the program; it goes with the cgroup.  -1 (logged, with
 * what is not applied) when the kernel refused. */
int cgroup_dev_v2(const char *dir, const struct cgroup_dev *devs, size_t n);

#endif
