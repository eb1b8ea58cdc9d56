/* The reply-code table and errprintf. */
#include <stdarg.h>
#include <stdio.h>
#include "common/error.h"

int errprintf(struct herd_error *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->text, sizeof(err->text), fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *herd_strerror(int rc)
{
	switch (rc) {
#define HERD_RC_CASE(name, value, text) case value: return text;
	HERD_RC_TABLE(HERD_RC_CASE)
#undef HERD_RC_CASE
	}
	return "Unknown error";
}
