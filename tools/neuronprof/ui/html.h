/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): what the tool's HTML pages (report's, report --diff's)
 * write the same way (html.c): escaped text, and a JSON document inside a
 * script element.
 */
#ifndef NEURONPROF_TOOL_HTML_H
#define NEURONPROF_TOOL_HTML_H

#include <stddef.h>
#include <stdio.h>

/* @s (NULL: nothing) with &, <, >, " and ' as entities. */
void html_esc(FILE *f, const char *s);

/*
 * The JSON document @json (@len bytes) after the tag @open, safe inside
 * <script> ("</" is written "<\/"), then "</script>".
 */
void html_json_script(FILE *f, const char *open, const char *json, size_t len);

#endif
