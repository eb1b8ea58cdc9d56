/* sacctmgr load's flat file (src/cmd/sacctmgr/flat.c), line by line as
 * do_load reads it; each record is then dumped as the controller would
 * receive it.  A line that gives no record must be blank or a comment, or
 * be reported bad: do_load would otherwise skip it in silence. */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/sacctmgr/sacctmgr.h"
#include "fuzz.h"

/* sacctmgr.c (its main) defines the options; the defaults here. */
struct sacctmgr_opts opts;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size), *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool bad;
		json_t *rec = flat_parse_line(line, &bad);
		const char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (!rec && !bad && *p && *p != '#')
			abort();   /* a line dropped without a word */
		if (rec) {
			char *dump = json_dumps(rec, JSON_COMPACT);
			free(dump);
			json_decref(rec);
		}
	}
	free(text);
	return 0;
}
