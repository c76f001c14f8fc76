# SPDX-License-Identifier: MIT
#
# The tool's tests: losses.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# gen_fixtures --loss (its header): tail.ntff, rings of 12 never drained,
# each TRACE queue losing its last 8 of 20 after its last entry (the
# issue's `record --no-streaming` run, where summary's top op was the
# last instruction before the overflow stretched to its EVENT end); and
# gapped.ntff, a streamed capture whose TRACE, EVENT and INFER_STATUS
# queues lose everything from iteration 1's first engine 1 op to
# iteration 2's second engine 0 op (gaps inside EVENT windows and an
# inference). Every instruction the model can time lasts 100 ns.
t_loss_summary() {
	local f d=$tmp/loss
	rm -rf "$d" && "$gen" --loss "$d" || return 1
	for f in tail gapped; do
		"$np" summary --json "$d/$f.ntff" >"$tmp/ls.json" &&
		"$np" dump --json "$d/$f.ntff" >"$tmp/ld.json" || return 1
		# No op statistic takes time across a loss; cut instructions are counted.
		"$py" "$here/loss_check.py" ops "$tmp/ls.json" 100 &&
		"$py" "$here/summary_check.py" recompute "$tmp/ls.json" 0 5 "$tmp/ld.json" ||
			{ echo "$f"; return 1; }
		"$np" summary --ns "$d/$f.ntff" >"$tmp/ls.txt" &&
		"$py" "$here/summary_check.py" text "$tmp/ls.json" "$tmp/ls.txt" &&
		"$np" summary --ns --brief "$d/$f.ntff" >"$tmp/lb.txt" &&
		grep -q "^  LOSSES: device 0 core 0: busy and utilisation over observed time only" "$tmp/lb.txt" &&
		"$py" "$here/summary_check.py" text "$tmp/ls.json" "$tmp/lb.txt" &&
		rm -rf "$tmp/lcsv" && "$np" summary --csv "$tmp/lcsv" "$d/$f.ntff" >/dev/null &&
		"$py" "$here/summary_check.py" csv "$tmp/ls.json" "$tmp/lcsv" || { echo "$f"; return 1; }
	done
	check_py summary-json "$tmp/ls.json" recordings.0.cores.0.inferences=2 \
		recordings.0.cores.0.observed_ns=4300 recordings.0.cores.0.cut_instructions=2 \
		recordings.0.cores.0.engines.0.cut_instructions=1 \
		recordings.0.cores.0.engines.0.observed_ns=6100 \
		recordings.0.cores.0.loss_windows.0.queue_type=INFER_STATUS \
		recordings.0.cores.0.loss_windows.0.start_ns=5002100 \
		recordings.0.cores.0.loss_windows.0.end_ns=5006000 \
		recordings.0.cores.0.loss_windows.0.lost=2 || return 1
	"$np" summary "$d/tail.ntff" >"$tmp/ls.txt" || return 1
	has "LOSSES: busy and utilisation are over observed time only, 4.300us of the 7.900us span (3.600us in loss windows); 2 instructions cut by a loss left out" "$tmp/ls.txt" &&
	has "loss window TRACE core 0 engine 0: 8 lost after the last entry, 5004400 .. 5009000 ns (4.600us)" "$tmp/ls.txt" &&
	has "0:tensor: observed 4.300us, busy 1.100us, utilisation 25.58% of observed, 1 cut" "$tmp/ls.txt" || return 1
	# exporter --replay checks its totals against summary's (an internal
	# error otherwise): the core's busy seconds are over observed time.
	"$np" exporter --replay "$d/tail.ntff" --replay-speed 0 --listen none \
		--textfile "$tmp/l.prom" -n 1 2>"$tmp/l.err" || { cat "$tmp/l.err"; return 1; }
	has 'neuronprof_core_busy_seconds_total{device="0",core="0"} 0.000002300' "$tmp/l.prom"
}
run "losses: no interval spans a loss window; cut instructions counted; busy and utilisation over observed time (text, JSON, CSV)" \
	t_loss_summary

# The timelines: each loss window a slice "lost N" on its queue's track,
# the totals in the metadata; the Perfetto trace decoded by Python's
# protobuf runtime on code protoc made from proto/perfetto_trace.proto
# (no code of the exporter), and by protoc --decode.
t_loss_export() {
	local f d=$tmp/loss
	mkdir -p "$tmp/pb2" &&
	protoc --python_out="$tmp/pb2" -I"$repo/proto" "$proto" || return 1
	for f in tail gapped; do
		"$np" summary --json "$d/$f.ntff" >"$tmp/ls.json" &&
		"$np" export --format json -o "$tmp/l.json" "$d/$f.ntff" >/dev/null &&
		"$np" export --format perfetto -o "$tmp/l.pftrace" "$d/$f.ntff" >/dev/null || return 1
		"$py" "$here/loss_check.py" chrome "$tmp/l.json" "$tmp/ls.json" &&
		"$py" "$here/loss_check.py" perfetto "$tmp/l.pftrace" "$tmp/pb2" "$tmp/ls.json" &&
		check_py perfetto "$tmp/l.pftrace" "$tmp/pb2" &&
		check_py timeline-summary "$tmp/l.json" "$tmp/ls.json" || { echo "$f"; return 1; }
	done
	protoc --decode=perfetto.protos.Trace -I"$repo/proto" "$proto" <"$tmp/l.pftrace" >"$tmp/l.txt" &&
	has 'name: "neuronprof_loss_windows"' "$tmp/l.txt" &&
	has 'name: "lost 5"' "$tmp/l.txt" && has 'string_value: "11"' "$tmp/l.txt"
}
run "losses: Chrome JSON and Perfetto carry each loss window on its track and the totals in their metadata" \
	t_loss_export

# The report's data, buckets and page, and the database's queries.
t_loss_report_sql() {
	local f d=$tmp/loss
	for f in tail gapped; do
		"$np" report -o "$tmp/l.html" "$d/$f.ntff" >/dev/null &&
		"$np" dump --json "$d/$f.ntff" >"$tmp/ld.json" &&
		"$py" "$here/report_check.py" buckets "$tmp/l.html" 0 "$tmp/ld.json" || { echo "$f"; return 1; }
		grep -q 'class="losses">Losses: busy time and utilisation are over observed time only' "$tmp/l.html" ||
			{ echo "$f: the page does not say the times are over observed time"; return 1; }
		[ "$(grep -o 'class="losswin"' "$tmp/l.html" | wc -l)" -gt 0 ] ||
			{ echo "$f: no loss window drawn"; return 1; }
		rm -f "$tmp/l.db" && "$np" export --format sqlite -o "$tmp/l.db" "$d/$f.ntff" >/dev/null &&
		summary_sql "$d/$f.ntff" "$tmp/ls.json" "$tmp/l.db" || { echo "$f"; return 1; }
	done
}
run_if sqlite3 "losses: report shades the windows and fills its lost row; SQL queries give summary's" \
	t_loss_report_sql
