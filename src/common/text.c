/* Free-text checks shared by the commands and the controller: a stored
 * field never holds a control character, and a --mail-user never reaches
 * MailProg as anything but an address.  Not a full RFC 5322 parser:
 * addresses a site really uses pass, anything a shell or getopt would
 * read as syntax does not. */
#include <ctype.h>
#include <string.h>
#include "common/text.h"
#include "common/xmalloc.h"

#define TEXT_MAIL_USER_MAX 256

bool text_has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

char *text_lower(const char *s)
{
	char *l = xstrdup(s);
	for (char *p = l; *p; p++)
		if ((unsigned char)*p < 0x80)
			*p = (char)tolower((unsigned char)*p);
	return l;
}

int text_check_plain(const char *s, const char *what, struct herd_error *err)
{
	if (!text_has_control(s))
		return 0;
	/* the value itself is not echoed: it holds what would garble the line */
	return errprintf(err, "Invalid %s: control characters are not allowed",
			 what);
}

static bool mail_char_ok(unsigned char c)
{
	if (c >= 0x80)
		return true;   /* UTF-8 in an internationalized address */
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return c && strchr("._+=%-@", c) != NULL;
}

int text_check_mail_user(const char *s, struct herd_error *err)
{
	size_t len = strlen(s), ats = 0;

	if (text_has_control(s))
		return errprintf(err, "Invalid --mail-user: control characters are not allowed");
	if (!len || len > TEXT_MAIL_USER_MAX)
		return errprintf(err, "Invalid --mail-user: a user name or mail address of 1 to %d characters",
				 TEXT_MAIL_USER_MAX);
	/* a leading '-' would be an option to MailProg (--exec=...) */
	if (s[0] == '-' || s[0] == '.' || s[0] == '@' || s[len - 1] == '@')
		return errprintf(err, "Invalid --mail-user '%.60s': not a user name or mail address", s);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (!mail_char_ok(*p))
			return errprintf(err, "Invalid --mail-user '%.60s': character '%c' is not allowed"
					 " in a user name or mail address", s, *p);
		ats += *p == '@';
	}
	if (ats > 1)
		return errprintf(err, "Invalid --mail-user '%.60s': not a user name or mail address", s);
	return 0;
}
