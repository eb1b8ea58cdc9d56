/* The time, size, TRES and small word notations users type (parse.c,
 * acct/tres.c): --time, --mem, GrpTRES=, --mail-type, YES/NO.  Every
 * parser gets the input; what the printers make of a parsed value must
 * parse back to it. */
#include <stdlib.h>
#include <string.h>
#include "common/parse.h"
#include "acct/assoc.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), buf[256], err[256];   /* 256: as the callers of fmt_mail_type */
	int64_t seconds, again;
	uint64_t mb, u;
	bool b;
	unsigned mask, mask2;

	if (parse_time_limit(s, &seconds) == 0) {
		fmt_hms(seconds, buf, sizeof(buf));
		fmt_duration(seconds, buf, sizeof(buf));
		if (parse_time_limit(buf, &again) < 0 || again != seconds)
			abort();
	}
	if (parse_size_mb(s, &mb) == 0) {
		fmt_size_mb(mb, buf, sizeof(buf));
		uint64_t mb2;
		if (parse_size_mb(buf, &mb2) < 0 || mb2 != mb)
			abort();
	}
	parse_uint(s, UINT64_MAX, &u);
	parse_uint(s, 65535, &u);
	parse_bool(s, &b);
	if (parse_mail_type(s, &mask) == 0) {
		fmt_mail_type(mask, buf, sizeof(buf));
		if (parse_mail_type(buf, &mask2) < 0 || (mask2 != mask && mask))
			abort();
	}
	tres_vec v, v2;
	tres_clear(v);
	if (tres_parse(s, v, err, sizeof(err)) == 0) {
		char *str = tres_string(v);
		tres_clear(v2);
		if (*str && (tres_parse(str, v2, err, sizeof(err)) < 0 || memcmp(v, v2, sizeof(v))))
			abort();
		free(str);
	}
	free(s);
	return 0;
}
