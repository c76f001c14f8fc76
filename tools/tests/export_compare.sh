#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Two builds of the tool, export by export, for a change of the exporters
# that must not change what they write (a speed-up):
#   tools/tests/export_compare.sh OLD NEW OUTDIR [RECORDING...]
# OLD and NEW are neuronprof binaries (build the old one first and copy it
# aside). The recordings are the fixtures gen_fixtures of NEW's build
# makes (tools/build/tests/gen_fixtures next to NEW, or $GEN): the default
# set, --loss and --fleet 3, every file and directory of them; the raw
# recordings of tools/tests/fixtures; and each RECORDING given (a demo's
# session directory, a file of the export benchmark). Each is exported
# with --format json and --format perfetto by both builds; the outputs,
# standard outputs, standard errors and exit statuses are compared with
# cmp. Prints the exports that differ and a count; exit status 1 if any.
set -u
old=${1:?usage: export_compare.sh OLD NEW OUTDIR [RECORDING...]}
new=${2:?usage: export_compare.sh OLD NEW OUTDIR [RECORDING...]}
out=${3:?usage: export_compare.sh OLD NEW OUTDIR [RECORDING...]}
shift 3
here=$(cd "$(dirname "$0")" && pwd)
gen=${GEN:-$(dirname "$new")/tests/gen_fixtures}
rm -rf "$out" && mkdir -p "$out/fx" || exit 1
"$gen" "$out/fx" >/dev/null && "$gen" --loss "$out/fx/loss" >/dev/null &&
	"$gen" --fleet 3 "$out/fx/fleet" >/dev/null || { echo "gen_fixtures failed"; exit 1; }
recs=()
while IFS= read -r r; do
	recs+=("$r")
done < <(find "$out/fx" "$here/fixtures" -mindepth 1 \( -name '*.ntff' -o -type d \) | sort)
recs+=("$@")
n=0 bad=0
for r in "${recs[@]}"; do
	for f in json perfetto; do
		n=$((n + 1))
		for b in old new; do
			bin=$old
			[ $b = new ] && bin=$new
			"$bin" export --format $f -o "$out/$b.$f" "$r" >"$out/$b.out" 2>"$out/$b.err"
			echo $? >"$out/$b.rc"
			# The standard output names the output file: the same for both.
			sed -i "s|$out/$b\.|OUT.|g" "$out/$b.out" "$out/$b.err"
			[ -e "$out/$b.$f" ] || : >"$out/$b.$f"
		done
		for k in $f out err rc; do
			if ! cmp -s "$out/old.$k" "$out/new.$k"; then
				echo "differs ($k): export --format $f $r"
				bad=$((bad + 1))
				break
			fi
		done
		rm -f "$out"/old.* "$out"/new.*
	done
done
echo "$n exports compared, $bad differ"
[ "$bad" -eq 0 ]
