# SPDX-License-Identifier: MIT
#
# The tool's tests: dump.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

t_dump_text() {
	"$np" dump "$basic" >"$tmp/d" || return 1
	has "queues: 14 records, 46 entries" "$tmp/d" &&
	has "kind session, pid 4242, core 0, session 3" "$tmp/d" &&
	has "instance i-0123456789abcdef0, host fixture-host" "$tmp/d" &&
	has "index 0, arch trn1 (1), provider sim, uapi 1" "$tmp/d" &&
	has "TRACE core 0 engine 1 (vector): instruction/engine, 6 entries, lost 2, seq 0..7" "$tmp/d" &&
	count_is 46 '^    seq ' "$tmp/d" &&
	count_is 14 '^  \[[0-9]+\] ' "$tmp/d"
}
run "dump: header, capture, device, 14 records, 46 entry lines" t_dump_text

t_dump_limit() {
	"$np" dump --entries 1 "$basic" >"$tmp/d" || return 1
	count_is 14 '^    seq ' "$tmp/d" &&
	has "    ... 5 more" "$tmp/d" &&
	"$np" dump --no-entries "$basic" >"$tmp/d" &&
	count_is 0 '^    seq ' "$tmp/d" &&
	count_is 14 '^  \[[0-9]+\] ' "$tmp/d"
}
run "dump --entries 1 / --no-entries" t_dump_limit

t_dump_json() {
	"$np" dump --json "$basic" >"$tmp/d.json" || return 1
	check_py dump-json "$tmp/d.json" records=14 entries=46 with_entries=14 \
		capture.kind=session capture.session_id=3 capture.pid=4242 capture.clock=CLOCK_MONOTONIC \
		device.arch_name=trn1 device.num_topsps=6 device.provider=sim \
		header.version_major=1 header.checksum_type=crc32c entry_count=46 \
		queues.4.queue_type=TRACE queues.4.engine=1 queues.4.lost_count=2 \
		queues.4.entries.3.seq=5 queues.4.entries.3.code=0x000200 \
		queues.0.entries.3.payload.0=1004 queues.7.entries.1.payload.0=80
}
run "dump --json: parses, counts, fields, the sequence gap" t_dump_json

t_dump_json_noent() {
	"$np" dump --json --no-entries "$basic" >"$tmp/d.json" || return 1
	check_py dump-json "$tmp/d.json" records=14 entries=0 with_entries=0
}
run "dump --json --no-entries: metadata only" t_dump_json_noent

# An iteration range's files: each record says what was left out before it (trimmed_count).
t_dump_trimmed() {
	rm -rf "$tmp/dtrim" && "$build/tests/gen_fixtures" --iter-range 2-3 "$tmp/dtrim" >/dev/null || return 1
	"$np" dump --no-entries "$tmp/dtrim/basic.ntff" >"$tmp/d" &&
	count_is 0 '^      trimmed 0 ' "$tmp/d" &&
	has "      trimmed 3 (sequence numbers left out just before this record by an iteration range, not lost)" "$tmp/d" &&
	"$np" dump --json --no-entries "$tmp/dtrim/basic.ntff" >"$tmp/d.json" &&
	check_py dump-json "$tmp/d.json" queues.1.trimmed_count=3 &&
	"$py" -c 'import json, sys; sys.exit("trimmed_count" in json.load(open(sys.argv[1]))["queues"][0])' \
		"$tmp/d.json" || { echo "trimmed_count in record 0, which trims nothing"; return 1; }
	"$np" dump --no-entries "$basic" >"$tmp/d" && count_is 0 'trimmed' "$tmp/d"
}
run "dump: a record's trimmed_count (text and JSON, where not 0)" t_dump_trimmed

run "dump of a directory: exit 1, says so" \
	expect_exit 1 "is a directory; dump reads one NTFF file" "$np" dump "$prof"

# The ring flags a record keeps, each said in words: an unreadable ring's
# queue holds no entries because the provider could not read it, and the
# text says where such a queue may be (neuron: device memory BAR4 does not
# cover, say) and where the reason is.
t_dump_ring_flags() {
	rm -rf "$tmp/dflags" &&
	"$gen" --ring-flags 0xf "$tmp/dflags" >/dev/null || return 1
	"$np" dump --no-entries "$tmp/dflags/basic.ntff" >"$tmp/d" || return 1
	count_is 14 'ring flags 0xf \(overflowed: entries were lost, dead: the device went away, bad consumer position, unreadable: the provider could not read this queue \(neuron: such as device memory that BAR4 does not cover; the kernel log names the reason\), its entries are not here\)$' "$tmp/d" &&
	"$np" dump --no-entries "$basic" >"$tmp/d" &&
	count_is 0 'unreadable' "$tmp/d" &&
	expect_exit 2 "--ring-flags needs non-zero flag bits, not '0'" \
		"$gen" --ring-flags 0 "$tmp/dflags0" &&
	expect_exit 2 "--ring-flags needs non-zero flag bits, not '4x'" \
		"$gen" --ring-flags 4x "$tmp/dflags0"
}
run "dump: every ring flag in words (an unreadable ring says why its entries are missing); gen_fixtures --ring-flags refuses none and junk" t_dump_ring_flags
