# SPDX-License-Identifier: MIT
#
# Sourced by tools/tests/run.sh inside its suite (uses run, $np, $build,
# $py, $here, $tmp): recordings of packed raw records (NTFF 3.x, uapi
# NEURONPROF_RAW_PACKED) read as they should.
#
# t_raw_record_packed_same: tests/pack_raw makes of each recording of the
# first raw record (fixtures/raw-record-1, made on the rig) the packed
# recording of the same capture; every reader (raw_record.py: dump, dump
# --json, summary --json, export json, the database's raw_entries) prints
# of it exactly what it prints of the unpacked one, part by part; only a
# queue record's entry count and length and the file's count of 64-byte
# entries differ, and the device says it is packed.
#
# t_raw_record_2: recordings the provider made on the rig with packed
# records (fixtures/raw-record-2: scenarios index64, byte32, counter128)
# read as they did when they were made (their .expected).

# What raw_record.py printed, without what the record changes by design.
raw_record_norm() {
	"$py" - "$1" <<'PY'
import json, sys
for ln in open(sys.argv[1]).read().splitlines():
    if ln.startswith("  ["):
        continue
    ln = ln.replace(", in packed records", "")
    if ln.startswith("{"):
        o = json.loads(ln)
        for k in ("entry_count", "data_length", "raw_packed"):
            o.pop(k, None)
        if "raw_entries" in o:
            o.pop("entries")    # the file's 64-byte entries; raw_entries counts parts
        ln = json.dumps(o, sort_keys=True, separators=(",", ":"))
    print(ln)
PY
}

t_raw_record_packed_same() {
	local f d=$here/fixtures/raw-record-1 w=$tmp/packed-same

	mkdir -p "$w" || return 1
	for f in index64 byte32 counter128; do
		"$build/tests/pack_raw" "$d/$f.ntff" "$w" "$f.ntff" || return 1
		"$np" dump "$w/$f.ntff" >"$w/$f.dump" || return 1
		grep -q "version 3\." "$w/$f.dump" || { echo "$f: not NTFF 3.x"; return 1; }
		(cd "$w" && "$py" "$here/raw_record.py" "$np" "$f.ntff") >"$w/$f.txt" || return 1
		raw_record_norm "$d/$f.expected" >"$w/$f.want" &&
			raw_record_norm "$w/$f.txt" >"$w/$f.got" || return 1
		grep -q '^    seq ' "$w/$f.got" || { echo "$f: no raw parts read"; return 1; }
		diff -u "$w/$f.want" "$w/$f.got" | head -n 20
		cmp -s "$w/$f.want" "$w/$f.got" || { echo "$f: the packed recording reads differently"; return 1; }
	done
}
run "packed raw records read as the unpacked ones of the same capture, part by part: dump, dump --json, summary, export json, sqlite raw_entries" t_raw_record_packed_same

t_raw_record_2() {
	raw_reads_as_made raw-record-2
}
[ -d "$here/fixtures/raw-record-2" ] &&
	run "raw recordings of packed records (provider on the rig) read as they did: dump, dump --json, summary, export json, sqlite raw_entries" t_raw_record_2
