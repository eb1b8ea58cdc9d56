/* What text a job may hold: its name, comment, account and the other
 * strings a user gives end up in sacct/squeue lines, the store and the
 * environment of MailProg, so none may hold a control character, and
 * --mail-user must be a user name or an address (it is MailProg's
 * argument).  Checked at submission and at `scontrol update`. */
#include <string.h>
#include "common/text.h"
#include "core/core.h"

/* The keys a submission's spec and an update's fields share for them. */
static const struct {
	const char *key, *what;
} job_text_fields[] = {
	{ "name", "job name" }, { "comment", "comment" }, { "account", "account" },
	{ "qos", "QOS" }, { "reservation", "reservation" }, { "partition", "partition" },
	{ "constraint", "constraint" }, { "features", "constraint" },
	{ "wckey", "wckey" }, { "submit_host", "submit host" },
};

int job_text_check(const json_t *fields, struct herd_error *err)
{
	for (size_t i = 0; i < sizeof(job_text_fields) / sizeof(job_text_fields[0]); i++) {
		const char *v = json_string_value(json_object_get(fields, job_text_fields[i].key));
		if (v && text_check_plain(v, job_text_fields[i].what, err) < 0)
			return -1;
	}
	/* "" means the job's own user */
	const char *mail = json_string_value(json_object_get(fields, "mail_user"));
	if (mail && *mail && text_check_mail_user(mail, err) < 0)
		return -1;
	return 0;
}
