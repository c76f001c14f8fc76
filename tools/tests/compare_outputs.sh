#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Two builds of the tool, byte for byte, for a change that must not change
# what the tool writes (a refactoring):
#   tools/tests/compare_outputs.sh OLD NEW FIXTURES OUTDIR
# OLD and NEW are neuronprof binaries (build the old one first and copy it
# aside). FIXTURES is a directory made by
#   gen_fixtures FIXTURES; gen_fixtures --loss FIXTURES/loss;
#   gen_fixtures --fleet 3 FIXTURES/fleet
# (tools/build/tests/gen_fixtures) to which recordings made with the
# simulator may be added as FIXTURES/vmrec, FIXTURES/vmrec2 (two of one
# machine) and FIXTURES/vmmodel (a MODEL capture); the ones missing are
# skipped. Runs both binaries over the same commands in OUTDIR: --help of
# every command; summary in every mode (text, --json, --brief, --ns, --top,
# --csv, --keep-going) on each recording and on several at once; report
# (and --buckets/--top, several recordings, --diff); exporter --replay
# --textfile; dump --json; diff in every mode and with the gate; calibrate
# on the logs of tools/tests/calibration and one of calibrate_log.py; and
# usage errors. Compares every standard output, standard error, exit status
# and written file with cmp; prints the commands that differ and a count.
set -u
old=$1 new=$2 fx=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"; mkdir -p "$out/cal"
for f in "$here"/calibration/*.log.gz; do
	gzip -dc "$f" >"$out/cal/$(basename "$f" .gz)"
done
python3 "$here/calibrate_log.py" 64 index 5 4096 300 1 >"$out/cal/synth.log"
n=0 bad=0
cmds=()
add() { cmds+=("$*"); }
# --help of every command
add --help
for c in devices doctor calibrate record dump summary diff report export top exporter sim; do add $c --help; done
add sim run --help
recs=()
for r in basic.ntff gap.ntff raw prof named hosts straggler fleet loss vmrec vmmodel vmrec2; do
	[ -e "$fx/$r" ] && recs+=("$r")
done
for r in "${recs[@]}"; do
	for m in "" "--json" "--brief" "--ns" "--top 2" "--top 1 --brief --ns" "--json --top 3"; do
		add summary $m FX/$r
	done
	add summary --csv OUT/csv-$r FX/$r
	add summary --keep-going FX/$r
	add report -o OUT/rep-$r.html FX/$r
	add report --buckets 7 --top 3 FX/$r
	add exporter --replay FX/$r --replay-speed 0 --listen none --textfile OUT/exp-$r.prom -n 1 --interval 100
	add dump --json FX/$r
done
# several recordings at once
add summary FX/vmrec FX/vmmodel FX/basic.ntff
add summary --json FX/vmrec FX/vmmodel FX/basic.ntff
add summary --csv OUT/csv-multi FX/hosts FX/vmrec
add summary --json FX/hosts FX/straggler
add report FX/hosts FX/vmrec
add report FX/vmrec FX/vmrec2
add summary FX/prof/sub FX/basic.ntff FX/gap.ntff
# diff
for m in "" "--json" "--csv" "--ns --top 3" "--fail-above 1" "--alpha 0.5 --fail-above-busy 1 --fail-on-errors"; do
	add diff $m FX/vmrec FX/vmrec2
	add diff $m FX/straggler/0 FX/straggler/3
done
add diff FX/basic.ntff FX/gap.ntff -- FX/vmrec
add report --diff FX/vmrec FX/vmrec2
add report --diff -o OUT/repdiff.html --top 2 FX/straggler/0 FX/straggler/3
# calibrate from logs
for l in "$out"/cal/*.log; do
	add calibrate --from $l -o OUT/cal-$(basename $l).rep --config OUT/cal-$(basename $l).conf
	add calibrate --from $l -o -
done
# usage errors
add summary --top 0 FX/basic.ntff
add summary --csv
add report --buckets 0 FX/basic.ntff
add diff FX/basic.ntff
add exporter --interval 5
add calibrate --duration 0
add summary /nonexistent
for c in "${cmds[@]}"; do
	n=$((n + 1))
	for side in old new; do
		bin=$old; [ $side = new ] && bin=$new
		d=$out/$side; mkdir -p "$d/files"
		cc=${c//FX/$fx}; cc=${cc//OUT/$d\/files}
		(cd "$d" && eval "\"$bin\" $cc" >"$d/$n.out" 2>"$d/$n.err"; echo $? >"$d/$n.rc")
		# the binary's name appears in messages: normalise it
		sed -i -e "s|$bin|NP|g" -e "s|$d/files|OUT|g" "$d/$n.out" "$d/$n.err"
	done
	for k in out err rc; do
		cmp -s "$out/old/$n.$k" "$out/new/$n.$k" || { echo "DIFF $k: $c"; bad=$((bad + 1)); }
	done
done
# written files
(cd "$out/old/files" && find . -type f | sort) >"$out/old.list"
(cd "$out/new/files" && find . -type f | sort) >"$out/new.list"
cmp -s "$out/old.list" "$out/new.list" || { echo "DIFF: file lists"; bad=$((bad + 1)); }
nf=0
while read -r f; do
	nf=$((nf + 1))
	cmp -s "$out/old/files/$f" "$out/new/files/$f" || { echo "DIFF file $f"; bad=$((bad + 1)); }
done <"$out/old.list"
echo "$n commands, $nf files compared, $bad differences"
