# SPDX-License-Identifier: MIT
#
# The tool's tests: raw entries.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# raw/raw.ntff (gen_fixtures.c): core 1 of a raw device, TRACE engine 0 with
# 3 device entries in 6 ring entries, DMA engine 2 with 3 ring entries of 2
# device entries and 1 lost. Nothing may decode them: no opcode, slice,
# counter, execution or op statistic; the bytes as written.
raw=$fx/raw/raw.ntff
t_raw_dump() {
	"$np" dump "$raw" >"$tmp/rd.txt" || return 1
	has "version 2.4," "$tmp/rd.txt" &&
	has "raw entries, not decoded: format neuron-v2 (1), device entries of 64 bytes" "$tmp/rd.txt" &&
	has "timestamps: captured (1), when the host captured each entry" "$tmp/rd.txt" &&
	has "    seq 0 ts 3000100 raw neuron-v2 entry 0 part 0/2: 404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f" "$tmp/rd.txt" &&
	has "      entry 2 (64 bytes): 48494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f60616263646566674a4b4c4d4e4f505152535455565758595a5b5c5d5e5f60616263646566676869" "$tmp/rd.txt" &&
	count_is 9 ' raw neuron-v2 entry ' "$tmp/rd.txt" &&
	# DMA's entry 0 lost its part 0: only entry 1 is reassembled there.
	count_is 4 '^      entry [0-9]+ \(64 bytes\)' "$tmp/rd.txt" &&
	count_is 0 'code 0x|payload 0x' "$tmp/rd.txt" || return 1
	"$np" dump --json "$raw" >"$tmp/rd.json" || return 1
	check_py dump-json "$tmp/rd.json" records=2 entries=9 header.version_major=2 \
		device.raw_format=1 device.raw_format_name=neuron-v2 device.raw_entry_size=64 \
		device.clock_domain=1 device.clock_domain_name=captured \
		queues.1.entries.0.raw.entry=0 queues.1.entries.0.raw.part=1 \
		queues.1.entries.0.raw.parts=2 \
		queues.1.entries.0.raw.bytes=82838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1 || return 1
	"$py" - "$tmp/rd.json" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	for q in d["queues"]:
	    for e in q["entries"]:
	        bad = {"code", "model_id", "iteration", "payload"} & set(e)
	        if bad:
	            sys.exit(f"raw entry with decoded members {bad}: {e}")
	PY
}
run "dump of raw entries: format, parts, bytes in hex, reassembled entries, nothing decoded" t_raw_dump

t_dump_not_raw() {
	"$np" dump "$basic" >"$tmp/bd.txt" && "$np" dump --json --no-entries "$basic" >"$tmp/bd.json" || return 1
	has "version 1.4," "$tmp/bd.txt" &&
	count_is 0 'raw|timestamps:' "$tmp/bd.txt" &&
	check_py dump-json "$tmp/bd.json" header.version_major=1 device.raw_format=0 \
		device.clock_domain=0 device.clock_domain_name=produced
}
run "dump of decoded entries: not raw, device clock" t_dump_not_raw

t_raw_summary() {
	"$np" summary "$fx/raw" >"$tmp/rs.txt" || return 1
	has "raw entries: 9 in 2 queues, not decoded" "$tmp/rs.txt" &&
	count_is 1 '^  0 +1 +TRACE +core 1 +0 neuron-v2 +captured +6 +3 +0 +0$' "$tmp/rs.txt" &&
	count_is 1 '^  0 +1 +DMA +core 1 +2 neuron-v2 +captured +3 +2 +1 +0$' "$tmp/rs.txt" &&
	count_is 0 'op 0x|instructions|utilization|inferences|totals' "$tmp/rs.txt" || return 1
	"$np" summary --json "$fx/raw" >"$tmp/rs.json" || return 1
	check_py summary-json "$tmp/rs.json" recordings.0.entries=9 recordings.0.raw_entries=9 \
		recordings.0.raw_queues.0.device_entries=3 recordings.0.raw_queues.0.decoded=false \
		recordings.0.raw_queues.1.device_entries=2 recordings.0.raw_queues.1.lost=1 \
		recordings.0.raw_queues.1.format=neuron-v2 \
		recordings.0.raw_queues.1.clock_domain=captured recordings.0.losses.0.lost=1 || return 1
	"$py" -c 'import json,sys; r=json.load(open(sys.argv[1]))["recordings"][0]; sys.exit(0 if not r["cores"] and not r["models"] and not r["executions"] else f"decoded statistics from raw entries: {r}")' "$tmp/rs.json" || return 1
	rm -rf "$tmp/rcsv" && "$np" summary --csv "$tmp/rcsv" "$fx/raw" >/dev/null || return 1
	count_is 3 '' "$tmp/rcsv/raw_queues.csv" &&
	has ",TRACE,core,1,0,neuron-v2,captured,6,3,0,0" "$tmp/rcsv/raw_queues.csv" &&
	count_is 1 '' "$tmp/rcsv/ops.csv"
}
run "summary of raw entries: counted per queue, undecoded, no op statistics" t_raw_summary

t_raw_export() {
	"$np" export --format json -o "$tmp/r.json" "$fx/raw" >"$tmp/o" || return 1
	has "9 entries from 1 file: 0 slices (0 loss windows), 9 instants, 0 counter samples, 0 executions" "$tmp/o" &&
	check_py chrome-json "$tmp/r.json" ph.i=9 ph.X=0 ph.B=0 ph.C=0 "name:raw neuron-v2=9" processes=1 \
		threads=2 || return 1
	"$py" - "$tmp/r.json" <<-'PY' || return 1
	import json, sys
	ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "i"]
	names = {(e["pid"], e.get("tid")): e for e in json.load(open(sys.argv[1]))["traceEvents"]
	         if e.get("name") == "thread_name"}
	first = ev[0]["args"]
	want = {"entry": 0, "part": 0, "parts": 2, "seq": 0, "timestamp": "capture time",
	        "decoded": "no",
	        "bytes": "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"}
	if first != want:
	    sys.exit(f"first raw instant {first}, expected {want}")
	tracks = sorted(names[(e["pid"], e["tid"])]["args"]["name"] for e in ev)
	if tracks.count("engine 0 (tensor) TRACE") != 6 or tracks.count("engine 2 (scalar) DMA") != 3:
	    sys.exit(f"raw instants on tracks {tracks}")
	PY
	mkdir -p "$tmp/pb2" && protoc --python_out="$tmp/pb2" -I"$repo/proto" "$proto" &&
	"$np" export --format perfetto -o "$tmp/r.pftrace" "$fx/raw" >/dev/null &&
	check_py perfetto "$tmp/r.pftrace" "$tmp/pb2" TYPE_INSTANT=9 TYPE_SLICE_BEGIN=0 TYPE_COUNTER=0 \
		counters=0 "name:raw neuron-v2=9" "track:TRACE=1" "track:DMA=1" || return 1
	protoc --decode=perfetto.protos.Trace -I"$repo/proto" "$proto" <"$tmp/r.pftrace" >"$tmp/r.txt" &&
	has 'string_value: "82838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1"' "$tmp/r.txt" &&
	count_is 9 'string_value: "capture time"' "$tmp/r.txt"
}
run "export of raw entries: JSON and Perfetto instants 'raw <format>' with their bytes, capture times" t_raw_export

# Recordings the provider made on the hardware layer's rig
# (tests/neuron-rig, scenarios index64, byte32 and counter128: device
# entries of 64, 32 and 128 bytes, 2, 1 and 4 ring entries each) with
# the first raw record (one ring entry per 32 device bytes): every
# reader of raw entries reads them as it did when they were made
# (raw_record.py prints what dump, dump --json, summary --json, export
# json and the database's raw_entries say about raw entries; the
# .expected files are its output then).
t_raw_record_1() {
	raw_reads_as_made raw-record-1
}
run "raw recordings of the first raw record (provider on the rig) read as they did: dump, dump --json, summary, export json, sqlite raw_entries" t_raw_record_1
. "$here/raw_record.sh"

# The database keeps raw entries as bytes: a row per ring entry with its
# device entry's index, its part, its capture time, and its queue; no
# instruction, entry or inference comes from them. Payload byte k of ring
# entry seq s is (0x40 * queue + 2 * s + k) & 0xff (gen_fixtures.c).
t_raw_sqlite() {
	rm -f "$tmp/raw.db" &&
	"$np" export --format sqlite -o "$tmp/raw.db" "$fx/raw" >"$tmp/o" || return 1
	has "$tmp/raw.db: 9 entries from 1 file, 0 host events, 0 executions: " "$tmp/o" &&
	has "$tmp/raw.db: 9 raw entries, not decoded, in raw_entries" "$tmp/o" || return 1
	[ "$(sqlite3 "$tmp/raw.db" 'PRAGMA foreign_keys = ON; PRAGMA foreign_key_check; PRAGMA integrity_check')" = ok ] ||
		{ echo "integrity or foreign keys"; return 1; }
	[ "$(sqlite3 "$tmp/raw.db" 'SELECT count(*) FROM raw_entries; SELECT count(*) FROM entries;
		SELECT count(*) FROM instructions; SELECT count(*) FROM inferences;
		SELECT count(*) FROM queues; SELECT raw_format, raw_entry_size, clock_domain, provider FROM devices' |
		tr '\n' ' ')" = "9 0 0 0 2 neuron-v2|64|captured|neuron " ] ||
		{ echo "unexpected rows"; sqlite3 "$tmp/raw.db" 'SELECT * FROM devices; SELECT * FROM queues'; return 1; }
	[ "$(sqlite3 -separator ' ' "$tmp/raw.db" "SELECT q.queue_type, q.engine, r.seq, r.ts_ns, r.entry_index,
		r.part, r.parts, length(r.bytes), hex(substr(r.bytes, 1, 4)), hex(substr(r.bytes, 32, 1))
		FROM raw_entries r JOIN queues q ON q.id = r.queue_id
		WHERE q.queue_type = 'TRACE' AND r.seq IN (0, 5) OR q.queue_type = 'DMA' AND r.seq = 1
		ORDER BY r.rowid")" = "TRACE 0 0 3000100 0 0 2 32 40414243 5F
TRACE 0 5 3000600 2 1 2 32 4A4B4C4D 69
DMA 2 1 3000700 0 1 2 32 82838485 A1" ] ||
		{ echo "raw rows:"; sqlite3 "$tmp/raw.db" 'SELECT queue_id, seq, ts_ns, entry_index, part, parts, hex(bytes) FROM raw_entries'; return 1; }
	summary_sql "$fx/raw" "$tmp/rs.json" "$tmp/raw.db"
}
run_if sqlite3 "export sqlite of raw entries: bytes, device entry index, part and capture time per ring entry; the raw_queues query gives summary's" t_raw_sqlite

t_perfetto_stdout() {
	"$np" export --format perfetto "$basic" >"$tmp/stdout.pftrace" || return 1
	cmp "$tmp/stdout.pftrace" "$tmp/b.pftrace"
}
run "export perfetto to a pipe equals -o output" t_perfetto_stdout
