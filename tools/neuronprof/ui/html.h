/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): what the tool's HTML (report's page and plots, report
 * --diff's page) writes the same way (html.c): escaped text, a JSON
 * document inside a script element, a model's label, the plots' colours.
 */
#ifndef NEURONPROF_TOOL_HTML_H
#define NEURONPROF_TOOL_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* @s (NULL: nothing) with &, <, >, " and ' as entities. */
void html_esc(FILE *f, const char *s);

/*
 * The JSON document @json (@len bytes) after the tag @open, safe inside
 * <script> ("</" is written "<\/"), then "</script>".
 */
void html_json_script(FILE *f, const char *open, const char *json, size_t len);

/* The colours of the plots' series. */
extern const char *const palette[8];
#define NPAL	(sizeof(palette) / sizeof(palette[0]))

/* A model as every command shows it: "name (model 7)" or "model 7", escaped. */
void model_label(FILE *f, const char *name, uint32_t id);

#endif
