/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the names every output shows beside a code or a model id.
 * An op's name is the device's (NTFF 1.2 code_names, from
 * NEURONPROF_INFO_CODE_NAMES); a model's is the model_name of the files
 * that captured it. Nothing is named that the files do not name: a code
 * without a name, and every code of a raw file, is shown as its code only.
 * A code has one spelling everywhere, CODE_FMT: "0x000102".
 */
#ifndef NEURONPROF_TOOL_NAMES_H
#define NEURONPROF_TOOL_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include <neuronprof/ntff.h>

#include "analysis/profile.h"

/* The one spelling of a code: at least six hex digits after "0x". */
#define CODE_FMT	"0x%06" PRIx32
#define CODE_LEN	16

/* @code spelled CODE_FMT into @buf, which it returns. */
const char *code_str(uint32_t code, char buf[CODE_LEN]);

/* The device's name of @code of @queue_type in @names (sorted), or NULL. */
const char *code_name_in(const struct nprof_ntff_code_name *names, size_t n,
			 uint32_t queue_type, uint32_t code);

/* The name @f gives @code of @queue_type, or NULL (always for a raw file). */
const char *file_code_name(const struct prof_file *f, uint32_t queue_type, uint32_t code);

/*
 * The name the files @files give model @model_id (a MODEL or CONTINUOUS
 * capture's model_name with that model_id), or NULL.
 */
const char *files_model_name(const struct prof_file *const *files, size_t n,
			     uint64_t model_id);

/* @s, or "-" when NULL (text tables). */
static inline const char *or_dash(const char *s)
{
	return s ? s : "-";
}

#endif /* NEURONPROF_TOOL_NAMES_H */
