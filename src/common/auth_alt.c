/* AuthAltTypes and AuthAltParameters as slurm.conf writes them: comma-separated
 * lists of plugin names and of name[=value] options.  Pure: the restd unit
 * tests and the controller share it. */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include "common/token.h"
#include "common/xmalloc.h"

/* The item of a comma-separated list that is name or starts with "name=",
 * blanks around it ignored; its length goes to *len_out. */
static const char *auth_alt_find(const char *list, const char *name, size_t *len_out)
{
	size_t nlen = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		while (len && isspace((unsigned char)*p)) {
			p++;
			len--;
		}
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		if (len >= nlen && !strncasecmp(p, name, nlen) && (len == nlen || p[nlen] == '=')) {
			*len_out = len;
			return p;
		}
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

bool auth_alt_jwt(const char *types)
{
	size_t len;
	return auth_alt_find(types, "auth/jwt", &len) && len == strlen("auth/jwt");
}

char *auth_alt_param(const char *params, const char *name)
{
	size_t len, nlen = strlen(name);
	const char *p = auth_alt_find(params, name, &len);

	if (!p)
		return NULL;
	return len == nlen ? xstrdup("") : xstrndup(p + nlen + 1, len - nlen - 1);
}
