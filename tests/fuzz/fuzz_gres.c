/* gres.conf (common/gres.c) as herdd parses it for its node, and the same
 * text as a node's Gres= and as the strings shown from both. */
#include <stdlib.h>
#include "common/gres.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size);
	struct gres_conf gc = { 0 };
	struct gres_decl *decl = NULL;
	size_t ndecl = 0;
	struct herd_error err;

	if (gres_conf_parse(text, "gres.conf", "n1", &gc, &err) < 0)
		gc = (struct gres_conf){ 0 };
	if (gres_decl_parse(text, &decl, &ndecl, &err) < 0)
		decl = NULL, ndecl = 0;
	free(gres_node_string(decl, ndecl, gc.devs, gc.ndevs, 4));
	free(gres_used_string(decl, ndecl, gc.devs, gc.ndevs));
	json_t *j = gres_devs_to_json(gc.devs, gc.ndevs);
	struct gres_dev *back;
	size_t nback;
	if (gres_devs_from_json(j, &back, &nback, &err) == 0)
		free(back);
	json_decref(j);
	free(decl);
	gres_conf_free(&gc);
	free(text);
	return 0;
}
