/* User and group names for uids and gids, cached: the name service (files,
 * LDAP, sss) would otherwise be asked on every submission and every squeue,
 * from the loop thread.  Entries are refreshed after five minutes, so a
 * renamed user shows up without a restart. */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "core/core.h"

#define NAMES_SLOTS 256      /* per kind; a power of two */
#define NAMES_TTL 300

struct name_entry {
	unsigned id;
	bool used;
	time_t when;
	char name[64];
};

static struct name_entry users[NAMES_SLOTS], groups[NAMES_SLOTS];
static unsigned fictional_first;   /* names_fictional's; 0: none */

void names_fictional(unsigned first)
{
	fictional_first = first;
	memset(users, 0, sizeof(users));    /* names cached before no longer hold */
	memset(groups, 0, sizeof(groups));
}

static const char *lookup(struct name_entry *table, unsigned id, bool is_user)
{
	struct name_entry *e = &table[(id * 2654435761u) & (NAMES_SLOTS - 1)];
	time_t now = time(NULL);
	char buf[4096];

	if (e->used && e->id == id && now - e->when < NAMES_TTL)
		return e->name;
	e->used = true;
	e->id = id;
	e->when = now;
	snprintf(e->name, sizeof(e->name), "%u", id);   /* Slurm shows the number when unknown */
	if (fictional_first && id >= fictional_first)
		snprintf(e->name, sizeof(e->name), "%c%u", is_user ? 'u' : 'g', id - fictional_first);
	else if (is_user) {
		struct passwd pw, *res = NULL;
		if (getpwuid_r(id, &pw, buf, sizeof(buf), &res) == 0 && res)
			snprintf(e->name, sizeof(e->name), "%s", pw.pw_name);
	} else {
		struct group gr, *res = NULL;
		if (getgrgid_r(id, &gr, buf, sizeof(buf), &res) == 0 && res)
			snprintf(e->name, sizeof(e->name), "%s", gr.gr_name);
	}
	return e->name;
}

const char *names_user(uid_t uid)
{
	return lookup(users, uid, true);
}

const char *names_group(gid_t gid)
{
	return lookup(groups, gid, false);
}
