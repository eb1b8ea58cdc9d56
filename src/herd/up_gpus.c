/* `herd up --gpus N [--gpu-type T] [--gpu-nvml]`: fake GPUs on every node
 * (doc/gres.md): character devices DIR/dev/<node>/nvidia<i> (major 195, the
 * NVIDIA driver's: with no driver an allowed one opens with ENXIO), and
 * either a gres.conf naming them or, with --gpu-nvml, AutoDetect=nvml with
 * the tests' fake NVML reporting them.  Not real GPUs: nothing runs on them.
 * Without --gpus, the real GPUs NVML reports (if any), on every node. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "common/xmalloc.h"
#include "common/gres.h"
#include "herd/herd.h"

/* src/noded/nvml.c */
int nvml_detect(int threads, const char *dev_dir, struct gres_conf *out, struct herd_error *err);

#define NVIDIA_MAJOR 195

static int make_dir(const char *path, struct herd_error *err)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return errprintf(err, "cannot create %s: %s", path, strerror(errno));
	return 0;
}

/* One fake device: a character device as root, else a plain file. */
static int make_device(const char *path, int minor, struct herd_error *err)
{
	unlink(path);
	if (geteuid() == 0) {
		if (mknod(path, S_IFCHR | 0666, makedev(NVIDIA_MAJOR, minor)) < 0)
			return errprintf(err, "mknod %s: %s", path, strerror(errno));
		chmod(path, 0666);   /* the umask's bits back: any job may try it */
		return 0;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
	if (fd < 0)
		return errprintf(err, "cannot create %s: %s", path, strerror(errno));
	close(fd);
	return 0;
}

int up_gpus_make(const char *dir, int nodes, const struct up_gpus *g, struct herd_error *err)
{
	char *devdir = xasprintf("%s/dev", dir), *path = NULL;
	char *gres_tmp = xasprintf("%s/gres.conf.tmp", dir), *gres_path = xasprintf("%s/gres.conf", dir);
	FILE *gres = NULL;
	int rc = -1;

	if (geteuid() != 0)
		fprintf(stderr, "herd: fake GPU device files need root (mknod c %d): made plain files "
			"in %s instead; device isolation cannot be shown with them\n", NVIDIA_MAJOR,
			devdir);
	if (make_dir(devdir, err) < 0)
		goto done;
	if (!(gres = fopen(gres_tmp, "w"))) {
		errprintf(err, "cannot write %s: %s", gres_tmp, strerror(errno));
		goto done;
	}
	fprintf(gres, "# Written by `herd up --gpus` (doc/gres.md): the fake GPUs in %s.\n", devdir);
	if (g->nvml)
		fprintf(gres, "AutoDetect=nvml\n");
	for (int i = 0; i < nodes; i++) {
		free(path);
		path = xasprintf("%s/n%d", devdir, i + 1);
		if (make_dir(path, err) < 0)
			goto done;
		FILE *nv = NULL;
		if (g->nvml) {
			char *nvpath = xasprintf("%s/n%d/nvml.conf", devdir, i + 1);
			nv = fopen(nvpath, "w");
			if (!nv)
				errprintf(err, "cannot write %s: %s", nvpath, strerror(errno));
			free(nvpath);
			if (!nv)
				goto done;
			fprintf(nv, "# the fake NVML's GPUs (tests/fake/nvml.c)\n");
		}
		for (int k = 0; k < g->count; k++) {
			free(path);
			path = xasprintf("%s/n%d/nvidia%d", devdir, i + 1, k);
			if (make_device(path, k, err) < 0) {
				if (nv)
					fclose(nv);
				goto done;
			}
			if (nv)
				fprintf(nv, "name=%s;minor=%d\n", g->type ? g->type : "NVIDIA Fake GPU", k);
		}
		if (nv && fclose(nv) != 0) {
			errprintf(err, "cannot write the fake NVML's file in %s/n%d", devdir, i + 1);
			goto done;
		}
		if (!g->nvml && g->count)
			fprintf(gres, "NodeName=n%d Name=gpu%s%s File=%s/n%d/nvidia[0-%d]\n", i + 1,
				g->type ? " Type=" : "", g->type ? g->type : "", devdir, i + 1,
				g->count - 1);
	}
	if (fclose(gres) != 0 || rename(gres_tmp, gres_path) < 0) {
		gres = NULL;
		errprintf(err, "cannot write %s: %s", gres_path, strerror(errno));
		goto done;
	}
	gres = NULL;
	rc = 0;
done:
	if (gres)
		fclose(gres);
	if (rc < 0)
		unlink(gres_tmp);
	free(devdir), free(path), free(gres_tmp), free(gres_path);
	return rc;
}

/* herdd's environment for the fake NVML; NULL-terminated, caller frees each. */
char **up_gpus_env(const char *dir, int node, const char *fake_lib)
{
	char **env = xmalloc(5 * sizeof(*env));
	env[0] = xasprintf("HERD_NVML_LIBRARY=%s", fake_lib);
	env[1] = xasprintf("HERD_FAKE_NVML=%s/dev/n%d/nvml.conf", dir, node);
	env[2] = xasprintf("HERD_NVML_DEV_DIR=%s/dev/n%d", dir, node);
	env[3] = xasprintf("HERD_NVML_MIG_MINORS=%s/dev/n%d/mig-minors", dir, node);
	env[4] = NULL;
	return env;
}

void up_gpus_detect(struct up_gpus *g)
{
	struct gres_conf gc = { 0 };
	struct herd_error err;

	g->real = 0;
	if (nvml_detect(1, "/dev", &gc, &err) < 0 || !gc.ndevs) {
		gres_conf_free(&gc);
		return;
	}
	g->real = (int)gc.ndevs;
	snprintf(g->real_type, sizeof(g->real_type), "%s", gc.devs[0].type);
	for (size_t i = 1; i < gc.ndevs; i++)
		if (strcmp(gc.devs[i].type, g->real_type))
			g->real_type[0] = '\0';
	g->type = g->real_type[0] ? g->real_type : NULL;
	gres_conf_free(&gc);
}

int up_gpus_real(const char *dir, struct herd_error *err)
{
	char *path = xasprintf("%s/gres.conf", dir), *tmp = xasprintf("%s/gres.conf.tmp", dir);
	FILE *f = fopen(tmp, "w");
	int rc = 0;

	if (f)
		fprintf(f, "# Written by `herd up --gpus` (doc/gres.md): this machine's GPUs, as "
			"NVML reports them.\nAutoDetect=nvml\n");
	if (!f || fclose(f) != 0 || rename(tmp, path) < 0) {
		rc = errprintf(err, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
	}
	free(path), free(tmp);
	return rc;
}
