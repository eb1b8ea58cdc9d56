/* The readers of jobopt_table.c's rows (jobopt_read.c): each stores an
 * option's value into its JOBSPEC key or the command's own values, or
 * returns JOBOPT_ERROR/JOBOPT_FATAL with Slurm's sentence in err. */
#ifndef HERD_CMD_JOBOPT_READ_H
#define HERD_CMD_JOBOPT_READ_H
#include "cmd/jobopt.h"

int p_str(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err);
int p_flag(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err);
int p_ignore(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		    struct herd_error *err);
int p_count(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		   struct herd_error *err);
int p_count0(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		    struct herd_error *err);
int p_size(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err);
int p_duration(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err);
int p_time(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err);
int p_nodes(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		   struct herd_error *err);
int p_mem(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err);
int p_when(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err);
int p_array(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		   struct herd_error *err);
int p_yes_no(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		    struct herd_error *err);
int p_requeue(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		     struct herd_error *err);
int p_exclusive(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		       struct herd_error *err);
int p_nodelist(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err);
int p_nodefile(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err);
int p_nice(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err);
int p_mail_type(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		       struct herd_error *err);
int p_open_mode(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		       struct herd_error *err);
int p_signal(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		    struct herd_error *err);
int p_verbose(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		     struct herd_error *err);
int p_info(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err);
int p_distribution(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			  struct herd_error *err);
int p_cpu_bind(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err);
int p_mpi(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err);
int p_srun_input(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			struct herd_error *err);
int p_kill_command(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			  struct herd_error *err);
int p_kill_bad_exit(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			   struct herd_error *err);
int p_immediate(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		       struct herd_error *err);
int p_jobid(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		   struct herd_error *err);
int p_no_kill(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		     struct herd_error *err);
int p_hint(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err);
int p_mem_bind(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err);
int p_cpu_freq(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err);
int p_acctg_freq(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			struct herd_error *err);
int p_profile(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		     struct herd_error *err);
int p_propagate(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		       struct herd_error *err);
int p_get_user_env(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			  struct herd_error *err);
int p_extra_node_info(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			     struct herd_error *err);
int p_priority(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err);
int p_uid(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err);
int p_gid(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err);
int p_power(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		   struct herd_error *err);
int p_spec_resources(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			    struct herd_error *err);
int p_debug_level(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		  struct herd_error *err);
int p_whole(struct jobopt *o, const struct jobopt_row *r, const char *arg,
	    struct herd_error *err);
int p_zero_one(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err);
int p_zero_one_opt(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			  struct herd_error *err);
int p_external_launcher(struct jobopt *o, const struct jobopt_row *r, const char *arg,
			       struct herd_error *err);
int p_gres(struct jobopt *o, const struct jobopt_row *r, const char *arg,
	   struct herd_error *err);
int p_gpus(struct jobopt *o, const struct jobopt_row *r, const char *arg,
	   struct herd_error *err);
int p_tres_per_task(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		    struct herd_error *err);
int p_gpu_bind(struct jobopt *o, const struct jobopt_row *r, const char *arg,
	       struct herd_error *err);
int p_gres_flags(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err);
int p_topology(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		      struct herd_error *err);
int p_bbf(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err);
int p_x11(struct jobopt *o, const struct jobopt_row *r, const char *arg,
		 struct herd_error *err);

#endif
