# SPDX-License-Identifier: MIT
#
# The tool's tests: the held-out validator.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# tests/heldout/validate_trace.py shares nothing with the exporters: its
# own schema written from Perfetto's published field numbers, Python's
# json and sqlite3. The exports of three machines (hosts/), a raw
# recording (raw/), a directory with a system profile and a sequence gap
# (prof/) and a named recording decode with no problem; the database of
# the raw recording holds its rows. Broken traces are caught, so the
# validator can fail.
t_heldout() {
	local v="$here/heldout/validate_trace.py" d="$tmp/heldout" p
	rm -rf "$d" && mkdir -p "$d/pb2" &&
	protoc --python_out="$d/pb2" -I"$here/heldout" "$here/heldout/perfetto_published.proto" || return 1
	# two/: two recordings of one core, the later first in path order
	# (as a SESSION and a later MODEL recording of the demo): they share
	# the core's tracks.
	mkdir -p "$d/two/a" "$d/two/b" &&
	cp "$fx/gap.ntff" "$d/two/a/profile_nc_0_session_1.ntff" &&
	cp "$fx/named/synthetic_mlp_vnc_0.ntff" "$d/two/b/" || return 1
	for p in hosts raw prof named two; do
		local src=$fx/$p
		[ "$p" = two ] && src=$d/two
		"$np" export --format perfetto -o "$d/$p.pftrace" "$src" >/dev/null 2>&1 &&
		"$np" export --format json -o "$d/$p.json" "$src" >/dev/null 2>&1 &&
		"$py" "$v" perfetto "$d/$p.pftrace" "$d/pb2" &&
		"$py" "$v" json "$d/$p.json" || return 1
	done
	"$np" export --format sqlite -o "$d/raw.db" "$fx/raw" >/dev/null &&
	"$py" "$v" sqlite-raw "$d/raw.db" || return 1
	# What it must refuse: a slice left open, a track used before it is
	# defined, slices moved out of time order, a raw database without
	# its rows.
	"$py" "$here/heldout/break_trace.py" "$d/pb2" "$d/prof.json" "$d/prof.pftrace" "$d" ||
		return 1
	! "$py" "$v" json "$d/open.json" >"$d/o" && grep -q "B without E" "$d/o" ||
		{ echo "an unbalanced JSON trace passed"; cat "$d/o"; return 1; }
	! "$py" "$v" perfetto "$d/late.pftrace" "$d/pb2" >"$d/o" && grep -q "not defined before it" "$d/o" ||
		{ echo "a track used before its descriptor passed"; cat "$d/o"; return 1; }
	! "$py" "$v" perfetto "$d/order.pftrace" "$d/pb2" >"$d/o" && grep -q "before the track's previous event" "$d/o" ||
		{ echo "events out of time order passed"; cat "$d/o"; return 1; }
	cp "$d/raw.db" "$d/norows.db" && sqlite3 "$d/norows.db" 'DELETE FROM raw_entries' &&
	! "$py" "$v" sqlite-raw "$d/norows.db" >"$d/o" && grep -q "raw_entries rows for" "$d/o" ||
		{ echo "a raw database without its rows passed"; cat "$d/o"; return 1; }
}
run_if sqlite3 "held-out validator: Perfetto and JSON exports of three machines, a raw recording, a directory, a named recording and two recordings of one core; the raw database's rows; broken traces caught" t_heldout
