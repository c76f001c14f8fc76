#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-fuzz.sh RESULTS SECONDS FUZZDIR: run every fuzzer in FUZZDIR for
# SECONDS on a scratch copy of its seed corpus (FUZZDIR/corpus/<target>),
# counting one pass or one failure per fuzzer in RESULTS.
set -u
results=$1 secs=$2 dir=$3
for fz in "$dir"/fuzz_*; do
	[ -x "$fz" ] || continue
	target=$(basename "$fz" | sed 's/^fuzz_//')
	work="$dir/work/$target"
	rm -rf "$work" && mkdir -p "$work"
	cp "$dir/corpus/$target"/* "$work"/ 2>/dev/null
	log="$dir/$target.log"
	if "$fz" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$dir/crash-$target-" "$work" > "$log" 2>&1; then
		runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
		echo "[fuzz/$target] ok: ${runs:-?} inputs in ${secs}s"
		echo "fuzz/$target 1 0 0" >> "$results"
	else
		echo "[fuzz/$target] FAILED, last lines of $log:"
		tail -n 30 "$log" | sed "s|^|[fuzz/$target] |"
		echo "fuzz/$target 0 1 0" >> "$results"
	fi
done
exit 0
