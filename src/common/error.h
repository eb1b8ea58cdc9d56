/* Errors: the shared rc table every reply uses, and `struct herd_error`, a
 * sentence for a human that commands print as is ("sbatch: error: ..."). */
#ifndef HERD_ERROR_H
#define HERD_ERROR_H

struct herd_error {
	char text[256];
};

/* Fill err->text (err may be NULL) and return -1. */
int errprintf(struct herd_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One table of reply codes, shared by every daemon and command.  The
 * sentences match Slurm's error strings where Slurm has the same error,
 * because scripts grep for them. */
#define HERD_RC_TABLE(X) \
	X(HERD_OK, 0, "No error") \
	X(HERD_ERR_PROTOCOL, 1001, "Protocol error") \
	X(HERD_ERR_AUTH, 1002, "Protocol authentication error") \
	X(HERD_ERR_UNKNOWN_TYPE, 1003, "Unexpected message received") \
	X(HERD_ERR_INTERNAL, 1004, "Unexpected internal error") \
	X(HERD_ERR_ACCESS, 2002, "Access/permission denied") \
	X(HERD_ERR_USER_ID, 2010, "Invalid user id") \
	/* Herd: a step refused to one who may manage the job but not act as \
	 * its owner (srun: "Unable to create step", not "...confirm allocation") */ \
	X(HERD_ERR_STEP_ACCESS, 2902, "Access/permission denied") \
	X(HERD_ERR_NOT_SUPPORTED, 2049, "Requested operation not supported on this system") \
	X(HERD_ERR_JOB_FINISHED, 2138, "Job has already finished") \
	X(HERD_ERR_INVALID_PARTITION, 2000, "Invalid partition name specified") \
	X(HERD_ERR_DEFAULT_PARTITION, 2001, "No partition specified or system default partition") \
	X(HERD_ERR_INVALID_JOB, 2017, "Invalid job id specified") \
	X(HERD_ERR_ALREADY_DONE, 2021, "Job/step already completing or completed") \
	X(HERD_ERR_INVALID_NODE, 2023, "Invalid node name specified") \
	X(HERD_ERR_INVALID_FEATURE, 2012, "Invalid feature specification") \
	X(HERD_ERR_INVALID_LICENSES, 2048, "Invalid license specification") \
	X(HERD_ERR_TIME_LIMIT, 2051, "Requested time limit is invalid (missing or exceeds some limit)") \
	X(HERD_ERR_NODE_CONFIG, 2014, "Requested node configuration is not available") \
	X(HERD_ERR_NODES_BUSY, 2016, "Requested nodes are busy") \
	X(HERD_ERR_PARTITION_DOWN, 2015, "Required partition not available (inactive or drain)") \
	X(HERD_ERR_INVALID_GRES, 2033, "Invalid generic resource (gres) specification") \
	X(HERD_ERR_JOB_NOT_PENDING, 2034, "Job is no longer pending execution") \
	X(HERD_ERR_JOB_PENDING, 2019, "Job is pending execution") \
	X(HERD_ERR_INVALID_ARG, 2072, "Invalid argument") \
	X(HERD_ERR_DISABLED, 2074, "Requested operation is presently disabled") \
	X(HERD_ERR_NOT_RUNNING, 2035, "Job not running") \
	X(HERD_ERR_NOT_SUSPENDED, 2036, "Job not suspended") \
	X(HERD_ERR_NO_STEP, 2053, "Invalid job step id specified") \
	X(HERD_ERR_INVALID_ARRAY, 2086, "Invalid job array specification") \
	X(HERD_ERR_DEPENDENCY, 2040, "Job dependency problem") \
	X(HERD_ERR_INVALID_TIME, 2052, "Invalid time specified") \
	X(HERD_ERR_INVALID_NICE, 2099, "Invalid --nice value") \
	X(HERD_ERR_INVALID_ACCOUNT, 2045, "Invalid account or account/partition combination specified") \
	X(HERD_ERR_ACCOUNTING_POLICY, 2050, \
	  "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)") \
	X(HERD_ERR_INVALID_QOS, 2066, "Invalid qos specification") \
	X(HERD_ERR_INVALID_WCKEY, 2062, "Invalid wckey specification") \
	X(HERD_ERR_PART_GROUP, 2003, "User's group not permitted to use this partition") \
	X(HERD_ERR_INVALID_NODE_COUNT, 2006, "Node count specification invalid") \
	X(HERD_ERR_RESV_ACCESS, 2057, "Access denied to requested reservation") \
	X(HERD_ERR_RESV_INVALID, 2058, "Requested reservation is invalid") \
	X(HERD_ERR_RESV_BUSY, 2060, "Requested reservation is in use") \
	X(HERD_ERR_RESV_OVERLAP, 2063, "Requested reservation overlaps with another reservation") \
	X(HERD_ERR_PORTS_BUSY, 2064, "Required ports are in use") \
	X(HERD_ERR_PORTS_INVALID, 2065, "Requires more ports than can be reserved") \
	X(HERD_ERR_RESV_NAME_DUP, 2073, "Duplicate reservation name") \
	X(HERD_ERR_RESV_NO_USERS, 2079, "Reservation request lacks users, groups or accounts") \
	X(HERD_ERR_NOT_HET_LEADER, 2107, "Job not heterogeneous job leader") \
	X(HERD_ERR_NOT_WHOLE_HET, 2108, "Operation not permitted on individual component of heterogeneous job")

enum herd_rc {
#define HERD_RC_ENUM(name, value, text) name = value,
	HERD_RC_TABLE(HERD_RC_ENUM)
#undef HERD_RC_ENUM
};

const char *herd_strerror(int rc);  /* never NULL */

#endif
