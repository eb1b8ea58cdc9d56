/* herdd re-reads herd.conf: on RECONFIGURE_NODE (the controller passes
 * "scontrol reconfigure" on) and on SIGHUP, as slurmd does.  Applied: the
 * log level (SlurmdDebug), SlurmUser, the heartbeat (SlurmdTimeout), and
 * this node's declared CPUs and RealMemory, which it registers again at
 * once.  Running jobs are not touched.  A file that does not load, drops
 * this node or needs a restart (conf_diff_restart) changes nothing. */
#include <pwd.h>
#include "common/log.h"
#include "noded/noded.h"

int reconf_reload(struct noded *nd, struct herd_error *err)
{
	struct conf *conf = conf_load(nd->conf_path, err);
	const char *user;
	struct passwd *pw = NULL;
	struct hw hw;

	if (!conf)
		goto error;
	if (conf_diff_restart(nd->conf, conf, err) < 0)
		goto error;
	const struct conf_node *cn = conf_node_find(conf, nd->node);
	if ((user = conf_get(conf, "SlurmUser")) && !(pw = getpwnam(user))) {
		errprintf(err, "%s: SlurmUser %s does not exist on this node", conf->path, user);
		goto error;
	}
	if (hw_detect(&hw, conf, nd->node, err) < 0)
		goto error;
	/* From here nothing can fail. */
	hw_release(&nd->hw);
	nd->hw = hw;
	nd->slurm_uid = pw ? pw->pw_uid : 0;
	if (!nd->verbose)
		log_set_level(conf_get(conf, "SlurmdDebug")
			      ? log_level_parse(conf_get(conf, "SlurmdDebug")) : LOG_LVL_INFO);
	conf_destroy(nd->conf);
	nd->conf = conf;
	nd->cn = cn;
	log_info("reconfigured from %s: %d CPUs, %llu MB", conf->path, hw.cpus,
		 (unsigned long long)hw.memory_mb);
	register_now(nd);   /* the controller hears the new values now */
	return 0;
error:
	conf_destroy(conf);
	log_error("reconfiguration refused: %s", err->text);
	return -1;
}
