// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the HTML pieces of html.h.
 */
#include <stdint.h>

#include "ui/html.h"

void html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

void html_json_script(FILE *f, const char *open, const char *json, size_t len)
{
	fputs(open, f);
	for (size_t i = 0; i < len; i++) {
		if (json[i] == '<' && i + 1 < len && json[i + 1] == '/')
			fputs("<\\", f);
		else
			fputc(json[i], f);
	}
	fputs("</script>\n", f);
}

const char *const palette[8] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#bab0ac",
};

/*
 * A model as every command shows it (tool.rst, Conventions): its name with
 * its id when its files carry one ("synthetic_mlp (model 7)"), else
 * "model 7"; escaped.
 */
void model_label(FILE *f, const char *name, uint32_t id)
{
	if (name && *name) {
		html_esc(f, name);
		fprintf(f, " (model %u)", id);
	} else {
		fprintf(f, "model %u", id);
	}
}
