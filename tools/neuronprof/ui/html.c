// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the HTML pieces of html.h.
 */
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
