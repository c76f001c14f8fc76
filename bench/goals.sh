#!/bin/bash
# SPDX-License-Identifier: MIT
#
# goals.sh LOG: the last table of `make bench`: every goal of every
# benchmark in bench/ (as documented with each one), the figure the run in
# LOG printed for it, and whether it was met; then the CPU the run was on
# (/proc/cpuinfo's model name and the flags that choose the CRC32C path,
# the library's choice among them, lib/src/util/crc32c.c), the load average
# (the goals are judged on wall time) and how many threads the reader's
# verify-at-open checksums ran on.
#
# A benchmark that did not run (skipped: no modules, no kernel source; or
# the run stopped before it) shows "not run". A benchmark whose goal line
# says "goal: ... : FIGURE ...: met|NOT met" is taken as it judged itself;
# the others' ratio lines are read here and compared with the goal below.
# Exit status 0 whatever the figures: the table reports, it does not gate.
set -u
log=${1:?usage: goals.sh LOG}

# name | goal | pattern of the line | sed expression printing the figure | op | target
# op: ge (figure >= target) or le (figure <= target). Lines matching
# "^goal: " are listed separately (self-judged).
rules=$(cat <<'EOF'
ntff_memory|peak heap beyond the block table, 256 MiB / 16 MiB, flat|^ratio peak heap beyond the block table|s/.*this run): \([0-9.]*\).*/\1/p|le|1.00
ntff_write|appends + finalize / best write() baseline|^ratio NTFF appends+finalize|s/.*: \([0-9.]*\)$/\1/p|ge|0.9
sys_trace_record|event + timestamp / clock_gettime, 1 thread|^ratio event with its timestamp|s/.*1 thread \([0-9.]*\)x.*/\1/p|le|1.0
sys_trace_record|event + timestamp / clock_gettime, N threads|^ratio event with its timestamp|s/.* threads \([0-9.]*\)x (target.*/\1/p|le|1.0
ntff_drain|ring -> NTFF / best write() baseline|^ratio ring -> NTFF / best baseline|s/.*: \([0-9.]*\)x$/\1/p|ge|0.9
stream_capture|capture / best write() baseline|^ratio capture / best baseline|s/.*: \([0-9.]*\)x (target.*/\1/p|ge|0.8
head_write_copy|provider's copy shape / memcpy|^ratio provider's copy shape|s/.*this run: \([0-9.]*\)x.*/\1/p|le|2
export|sqlite / bare insert loop|^ratio export / its baseline|s/.*sqlite \([0-9.]*\) .*/\1/p|ge|0.7
report|report / summary --json|^ratio report/summary|s/.*: \([0-9.]*\)x$/\1/p|ge|0.5
diff|diff / summary of both|^ratio diff/summary|s/.*: \([0-9.]*\)x$/\1/p|ge|0.5
neuron_head_write_native|worst interrupts-off span (us)|^neuron_head_write_native: worst interrupts-off span|s/.*span: \([0-9.]*\) us.*/\1/p|le|50
neuron_head_write_native|provider's head write / memcpy|^neuron_head_write_native: the provider's head write costs|s/.*costs \([0-9.]*\)x.*/\1/p|le|1.25
sim_producer|SIM_EXEC into subscribed rings / memcpy|^ratio SIM_EXEC into subscribed rings|s/.*: \([0-9.]*\)x$/\1/p|le|3
exporter_overhead|exporter's CPU at the demo's load / one core|goal < 0.02|s/.*: \([0-9.]*\)$/\1/p|le|0.02
EOF
)

printf '\n== goals (every benchmark in bench/; figures from this run)\n'
printf '%-26s %-70s %-24s %s\n' benchmark goal figure result
met=0 missed=0 notrun=0
# Self-judged goal lines: "goal: TEXT: FIGURE [(cpu ...)]: met|NOT met".
while IFS= read -r line; do
	body=${line#goal: }
	result=${body##*: }
	rest=${body%: *}
	figure=${rest##*: }
	text=${rest%: *}
	case $text in
	"NTFF "*) bench=ntff_reader ;;
	export*) bench=export ;;
	*) bench=- ;;
	esac
	printf '%-26s %-70s %-24s %s\n' "$bench" "$text" "$figure" "$result"
	if [ "$result" = met ]; then met=$((met + 1)); else missed=$((missed + 1)); fi
done < <(grep -a '^goal: ' "$log")
for want in ntff_reader export; do
	if ! grep -aq "^goal: $( [ $want = export ] && echo export || echo NTFF)" "$log"; then
		printf '%-26s %-70s %-24s %s\n' "$want" "(its goals)" - "not run"
		notrun=$((notrun + 1))
	fi
done
while IFS='|' read -r bench goal pat expr op target; do
	[ -n "$bench" ] || continue
	line=$(grep -a -- "$pat" "$log" | tail -n 1)
	fig=$(printf '%s\n' "$line" | sed -n "$expr" | head -n 1)
	if [ -z "$line" ] || [ -z "$fig" ]; then
		printf '%-26s %-70s %-24s %s\n' "$bench" "$goal ($op $target)" - "not run"
		notrun=$((notrun + 1))
		continue
	fi
	if awk -v f="$fig" -v t="$target" -v op="$op" \
		'BEGIN { exit !(op == "ge" ? f + 0 >= t + 0 : f + 0 <= t + 0) }'; then
		result=met met=$((met + 1))
	else
		result="NOT met" missed=$((missed + 1))
	fi
	printf '%-26s %-70s %-24s %s\n' "$bench" "$goal ($op $target)" "$fig" "$result"
done <<<"$rules"
printf '%-26s %s\n' crc32c "no goal (bytes per second and cycles per byte of each path reported)"
printf '%-26s %s\n' fanout "no goal (each subscriber's cost is reported)"
printf '%-26s %s\n' neuron_head_write "no goal (information only under TCG; the goal is neuron_head_write_native's)"
# ntff_zstd: no goal; its figures against plain blocks, as information.
zl=$(grep -a '^ratio zstd 1 / plain measured in this run (simulator-shaped' "$log" | tail -n 1 |
	sed -n 's/^ratio zstd 1 \/ plain measured in this run (simulator-shaped entries): \(.*\) (no goal: information)$/\1/p')
printf '%-26s %s\n' ntff_zstd "no goal; zstd 1 / plain, simulator-shaped entries: ${zl:-not run}"

model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
flags=" $(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | head -n 1) "
have=
for f in sse4_2 pclmulqdq avx2 avx512f vpclmulqdq; do
	case $flags in *" $f "*) have="$have $f" ;; *) have="$have no-$f" ;; esac
done
case $have in
*" avx512f"*" vpclmulqdq"*) path="512-bit VPCLMULQDQ folding (AVX-512)" ;;
*" sse4_2"*) path="three interleaved crc32 (SSE4.2) streams, prefetching" ;;
*) path="slicing-by-8 tables" ;;
esac
pc=$(grep -a '^page cache: ' "$log" | tail -n 1)
printf 'goals met %d, not met %d, not run %d\n' "$met" "$missed" "$notrun"
printf 'cpu: %s (%d cpus); flags:%s; CRC32C path: %s\n' "$model" "$(nproc)" "$have" "$path"
[ -z "$pc" ] || printf 'ntff_reader %s\n' "$pc"
# Wall-time goals on a shared machine: how busy it was, and the reader's threads.
printf 'load average at the end (1, 5, 15 min): %s; verify-at-open checksum threads: %s\n' \
	"$(cut -d' ' -f1-3 /proc/loadavg)" \
	"$([ "${NPROF_NTFF_VERIFY_THREADS:-}" = 1 ] && echo "1 (NPROF_NTFF_VERIFY_THREADS=1)" || echo "up to 2")"
exit 0
