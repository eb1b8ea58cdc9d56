/* A private munged for unit tests, started in a temp dir (header-only: each
 * test file is its own program). */
#ifndef HERD_TEST_MUNGED_H
#define HERD_TEST_MUNGED_H
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/herd-auth-XXXXXX";
static char sock[256];

static int start_munged(void **state)
{
	char cmd[1024];
	if (!mkdtemp(dir))
		return -1;
	snprintf(sock, sizeof(sock), "%s/munge.sock", dir);
	snprintf(cmd, sizeof(cmd),
		 "dd if=/dev/urandom of=%1$s/key bs=1024 count=1 2>/dev/null && chmod 400 %1$s/key && "
		 "/usr/sbin/munged --socket=%1$s/munge.sock --key-file=%1$s/key --pid-file=%1$s/pid "
		 "--log-file=%1$s/log --seed-file=%1$s/seed --force", dir);
	if (system(cmd) != 0)
		return -1;
	for (int i = 0; i < 100 && access(sock, F_OK) != 0; i++)
		usleep(20000);
	return 0;
}

static int stop_munged(void **state)
{
	char path[300], cmd[400];
	FILE *f;
	int pid = 0;
	snprintf(path, sizeof(path), "%s/pid", dir);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%d", &pid) == 1 && pid > 0)
			kill(pid, SIGTERM);
		fclose(f);
	}
	usleep(100000);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
