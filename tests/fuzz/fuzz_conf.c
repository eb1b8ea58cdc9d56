/* herd.conf (common/conf.c) as every daemon and command loads it: the
 * input is written to a file and loaded; then the derived settings and
 * every partition's node list are read, as the controller does. */
#include <stdlib.h>
#include "common/conf.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write("herd.conf", data, size);
	struct herd_error err;
	struct conf *conf = conf_load(path, &err);
	if (!conf)
		return 0;
	conf_cluster_name(conf);
	conf_ctld_host(conf);
	conf_ctld_port(conf);
	conf_munge_socket(conf);
	conf_get_int(conf, "SlurmdPort", 6818);
	conf_get_time(conf, "PriorityDecayHalfLife", 0);
	conf_get_bool(conf, "PriorityFavorSmall", false);
	for (size_t i = 0; i < conf->nparts; i++) {
		struct hostlist *hl = conf_part_hostlist(conf, &conf->parts[i]);
		hostlist_destroy(hl);
		conf_part_destroy(conf_part_dup(&conf->parts[i]));
	}
	for (size_t i = 0; i < conf->nnodes; i++)
		if (conf_node_find(conf, conf->nodes[i].name) == NULL)
			abort();
	/* A reconfigure against itself: nothing needs a restart. */
	struct conf *again = conf_load(path, &err);
	if (!again || conf_diff_restart(conf, again, &err) < 0)
		abort();
	conf_destroy(again);
	conf_destroy(conf);
	return 0;
}
