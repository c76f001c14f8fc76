# SPDX-License-Identifier: MIT
#
# The tool's source layers (tools/check-layers.py): util, analysis, export,
# commands, no include running up, and a planted upward include and a circle
# that fail the check. Sourced once by tests/run.sh (not per build); not run
# on its own.

t_layers() {
	"$py" "$tools/check-layers.py" >"$tmp/layers" || { cat "$tmp/layers"; return 1; }
	has "0 running up" "$tmp/layers"
}
run "source layers: util, analysis, export, commands; no include runs up" t_layers
# The check can fail: an include planted in util/ that runs up to export/,
# and two headers that include each other.
t_layers_planted() {
	rm -rf "$tmp/src" && cp -r "$tools/neuronprof" "$tmp/src" || return 1
	printf '#include "export/export.h"\n' >>"$tmp/src/util/json.c"
	if "$py" "$tools/check-layers.py" "$tmp/src" >"$tmp/layers"; then
		echo "an upward include passed"; return 1
	fi
	has "util/json.c: includes export/export.h, a layer above" "$tmp/layers" &&
		has "1 running up" "$tmp/layers" || return 1
	rm -rf "$tmp/src" && cp -r "$tools/neuronprof" "$tmp/src" || return 1
	printf '#include "util/output.h"\n' >>"$tmp/src/util/json.h"
	printf '#include "util/json.h"\n' >>"$tmp/src/util/output.h"
	if "$py" "$tools/check-layers.py" "$tmp/src" >"$tmp/layers"; then
		echo "a circle passed"; return 1
	fi
	has "circle: " "$tmp/layers"
}
run "source layers: a planted upward include and a circle fail the check" t_layers_planted
