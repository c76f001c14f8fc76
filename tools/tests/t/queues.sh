# SPDX-License-Identifier: MIT
#
# The tool's tests: a queue is all of its records.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# The fixtures twice: each queue one record, and the same entries appended
# as a streaming capture drains them (gen_fixtures --split: a few entries of
# each queue in turn, so a queue is many records interleaved with the other
# queues'). Instructions, pairs and sequence gaps span records: summary,
# its CSV files, both timeline exports and the database must be the same
# but for what counts records (check.py same). Paths are given relative
# to each tree, so they print the same.
t_split() {
	local w=$tmp/whole s=$tmp/split p n t d tables=0
	rm -rf "$w" "$s"
	"$gen" "$w" && "$gen" --split 2 "$s" &&
	"$gen" --jitter 3000 "$w/jitter.ntff" && "$gen" --split 7 --jitter 3000 "$s/jitter.ntff" ||
		return 1
	# The system profile holds this run's pids and samples: one copy for both.
	cp "$w"/prof/*.pb "$s/prof/" || return 1
	for p in basic.ntff jitter.ntff; do
		"$np" dump --json "$w/$p" >"$tmp/dw.json" && "$np" dump --json "$s/$p" >"$tmp/ds.json" &&
		n=$("$py" -c 'import json,sys; print(*(len(json.load(open(f))["queues"]) for f in sys.argv[1:]))' \
			"$tmp/dw.json" "$tmp/ds.json") || return 1
		[ "${n% *}" -lt "${n#* }" ] || { echo "$p: records $n: --split did not split"; return 1; }
	done
	for p in basic.ntff prof gap.ntff hosts raw jitter.ntff; do
		for t in w s; do
			d=$w
			[ $t = s ] && d=$s
			rm -rf "$tmp/csv.$t"
			(cd "$d" && "$np" summary --json --top 3 "$p" >"$tmp/sum.$t.json" &&
				"$np" summary --csv "$tmp/csv.$t" --top 3 "$p" >/dev/null &&
				"$np" export --format json -o "$tmp/x.$t.json" "$p" >/dev/null 2>&1 &&
				"$np" export --format perfetto -o "$tmp/x.$t.pftrace" "$p" >/dev/null 2>&1) ||
				{ echo "$p: a command failed on the $t tree"; return 1; }
			rm -f "$tmp/x.$t.db"
			(cd "$d" && "$np" export --format sqlite -o "$tmp/x.$t.db" "$p" >/dev/null 2>&1) ||
				{ echo "$p: export sqlite failed on the $t tree"; return 1; }
		done
		check_py same summary-json "$tmp/sum.w.json" "$tmp/sum.s.json" &&
		check_py same csv "$tmp/csv.w" "$tmp/csv.s" &&
		check_py same file "$tmp/x.w.json" "$tmp/x.s.json" &&
		check_py same file "$tmp/x.w.pftrace" "$tmp/x.s.pftrace" ||
			{ echo "$p: differs"; return 1; }
		if [ -f "$tmp/x.w.db" ]; then
			check_py same sqlite "$tmp/x.w.db" "$tmp/x.s.db" || { echo "$p: databases differ"; return 1; }
			tables=$((tables + 1))
		fi
	done
	[ "$tables" -eq 6 ] || { echo "$tables databases compared, expected 6"; return 1; }
	# The second implementation of summary takes a queue as its records too.
	"$np" dump --json "$s/jitter.ntff" >"$tmp/ds.json" &&
	"$np" summary --json --top 4 "$s/jitter.ntff" >"$tmp/ss.json" &&
	"$py" "$here/summary_check.py" recompute "$tmp/ss.json" 0 4 "$tmp/ds.json"
}
run "a queue split into records interleaved with others: summary, CSV, exports and database as if whole" t_split
# The exports read the timing model from the queues with cursors, summary
# from arrays: the same instructions, durations, inferences and executions.
t_timeline_summary() {
	local p t d=$tmp/tl
	rm -rf "$d" && mkdir -p "$d" || return 1
	"$gen" "$d/whole" && "$gen" --jitter 3000 "$d/whole/jitter.ntff" &&
		"$gen" --split 3 "$d/split" && "$gen" --split 5 --jitter 3000 "$d/split/jitter.ntff" ||
		return 1
	for p in basic.ntff jitter.ntff; do
		for t in whole split; do
			(cd "$d/$t" && "$np" summary --json "$p" >"$tmp/ts.json" &&
				"$np" export --format json -o "$tmp/tx.json" "$p" >/dev/null) ||
				{ echo "$p: a command failed on the $t tree"; return 1; }
			check_py timeline-summary "$tmp/tx.json" "$tmp/ts.json" || { echo "$p ($t)"; return 1; }
		done
	done
}
run "the timeline export's instruction, inference and execution slices add up to summary's numbers" \
	t_timeline_summary

t_binary_tty() {
	script -qec "'$np' export --format sqlite '$basic'" /dev/null >"$tmp/tty"
	script -qec "'$np' export --format perfetto -o - '$basic'" /dev/null >>"$tmp/tty"
	has "an SQLite database is binary: give -o FILE or redirect the output" "$tmp/tty" &&
	has "a Perfetto trace is binary: give -o FILE or redirect the output" "$tmp/tty"
}
run_if script "export sqlite or perfetto to a terminal: refused" t_binary_tty
