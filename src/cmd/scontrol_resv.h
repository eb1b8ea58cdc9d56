/* scontrol create|update|delete|show reservation: the arguments into a
 * RESV_* body, the controller's records into Slurm's layout.  The parsing
 * and rendering are pure (tests/unit/test_scontrol_resv.c); the calls are
 * scontrol_resv_run's. */
#ifndef HERD_CMD_SCONTROL_RESV_H
#define HERD_CMD_SCONTROL_RESV_H
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include "cmd/opt.h"
#include "cmd/record.h"

enum resv_op { RESV_OP_CREATE, RESV_OP_UPDATE, RESV_OP_DELETE };

/* "Key=value ..." of create or update into *body (caller decrefs); -1 with
 * the lines Slurm's scontrol prints in err (its last line ends "No
 * reservation created." / "No reservation update."), each to print on
 * stderr as "scontrol: error: LINE" unless it starts with "Invalid time". */
int scontrol_resv_parse(enum resv_op op, int argc, char **argv, time_t now, json_t **body,
			char *err, size_t errlen);
/* One RESV_INFO record as scontrol show reservation prints it. */
void scontrol_resv_record(const json_t *resv, struct record *r);

/* sinfo -T: RESV_INFO's reservations as Slurm's table (RESV_NAME STATE
 * START_TIME END_TIME DURATION NODELIST, the name column as wide as the
 * longest name), or "No reservations in the system". */
void scontrol_resv_table(const json_t *list, bool no_header, FILE *out);

/* The commands: argv after "create"/"update"/"delete" (or "show
 * reservation"'s name, NULL for all).  The exit status. */
int scontrol_resv_run(struct cmd_client *c, enum resv_op op, int argc, char **argv);
int scontrol_resv_show(struct cmd_client *c, const char *name, bool oneliner);
#endif
