# SPDX-License-Identifier: MIT
#
# The tool's tests: calibrate on logs of the calibration mode's format.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# calibrate_log.py writes what neuronprof_neuron logs for a runtime that
# consumes with the given entry size, head unit and start; calibrate must
# name them without being told, and say "not enough data" rather than
# guess when the log cannot decide.
# One queue of a log without queue types, ring extents or a queue
# programmed again (the first log format) names entry size and head
# unit, and says which further facts it cannot decide: no configuration,
# exit 1 (tools/tests/cal-*.log, logs of the rig's personalities, decide
# them all).
t_calibrate() {
	local es=$1 unit=$2 mode=$3 per=$4 name
	shift 4
	name=$(case $mode in 0) echo "entry index" ;; 1) echo "byte offset" ;; *) echo "free-running counter" ;; esac)
	"$py" "$here/calibrate_log.py" "$es" "$unit" 5 4096 300 "$per" "$@" >"$tmp/cal.log" || return 1
	"$np" calibrate --from "$tmp/cal.log" -o "$tmp/cal.rep" --config "$tmp/cal.conf" >"$tmp/cal.out" 2>&1
	[ $? -eq 1 ] || { cat "$tmp/cal.out"; return 1; }
	has "v2: $name, $es-byte entries" "$tmp/cal.out" && has "not enough data" "$tmp/cal.out" &&
		! has "set: modprobe" "$tmp/cal.out" && [ ! -s "$tmp/cal.conf" ] || return 1
	# The report carries the verdict as comments and the log: it is a log again.
	"$np" calibrate --from "$tmp/cal.rep" -o - >"$tmp/cal.out2" 2>&1
	has "v2: $name, $es-byte entries" "$tmp/cal.out2"
}
for es in 32 64 128; do
	run "calibrate: $es-byte entries, entry-index heads" t_calibrate $es index 0 1
	run "calibrate: $es-byte entries, byte-offset heads" t_calibrate $es byte 1 1
	run "calibrate: $es-byte entries, counter heads" t_calibrate $es counter 2 1
	run "calibrate: $es-byte entries, entry-index heads in batches of 3, no ring bytes" \
		t_calibrate $es index 0 3 --no-ring
done
# Logs of the hardware layer's personalities (tests/neuron-rig/run.sh,
# comments stripped): calibrate must find each personality's facts, as
# run.sh hands them to the device model and the runtime player.
t_calibrate_rig() {
	local log=$1 want=$2
	gzip -dc "$here/calibration/$log.log.gz" >"$tmp/cal.log" || return 1
	"$np" calibrate --from "$tmp/cal.log" -o - --config "$tmp/cal.conf" >"$tmp/cal.out" 2>&1 ||
		{ cat "$tmp/cal.out"; return 1; }
	grep -qF "options neuronprof_neuron $want " "$tmp/cal.conf" || { cat "$tmp/cal.out"; return 1; }
}
run "calibrate: the 2.1.5-like runtime (byte heads, 256-byte lag, phase bit 31)" t_calibrate_rig p-2.1.5 \
	"entry_size_v2=64 head_mode_v2=1 type_entry_size_v2=64,0,64,0,64,0 head_lag_v2=256 phase_bit_v2=31 head_sets_v2=0 reprogram_v2=1 reset_head_v2=0 head_read_v2=1"
run "calibrate: heads written at register set type * 16 + engine" t_calibrate_rig p-typed \
	"entry_size_v2=64 head_mode_v2=0 type_entry_size_v2=64,0,64,0,64,0 head_lag_v2=0 phase_bit_v2=0 head_sets_v2=1 reprogram_v2=1 reset_head_v2=0 head_read_v2=0"
run "calibrate: a re-programmed queue written from its head register, phase bit 20" t_calibrate_rig p-reprog-head \
	"entry_size_v2=64 head_mode_v2=0 type_entry_size_v2=64,0,64,0,64,0 head_lag_v2=0 phase_bit_v2=20 head_sets_v2=0 reprogram_v2=0 reset_head_v2=0 head_read_v2=1"
run "calibrate: counter heads from 3 with a 256-byte lag" t_calibrate_rig p-counter-lag \
	"entry_size_v2=128 head_mode_v2=2 type_entry_size_v2=128,0,128,0,128,0 head_lag_v2=256 phase_bit_v2=0 head_sets_v2=0 reprogram_v2=1 reset_head_v2=3 head_read_v2=1"
run "calibrate: a head naming the last entry read is one entry of lag" t_calibrate_rig p-lastread \
	"entry_size_v2=64 head_mode_v2=0 type_entry_size_v2=64,0,64,0,64,0 head_lag_v2=64 phase_bit_v2=0 head_sets_v2=0 reprogram_v2=1 reset_head_v2=0 head_read_v2=1"
run "calibrate: entry sizes per queue type" t_calibrate_rig p-types \
	"entry_size_v2=64 head_mode_v2=1 type_entry_size_v2=64,0,128,0,32,0 head_lag_v2=0 phase_bit_v2=0 head_sets_v2=0 reprogram_v2=1 reset_head_v2=0 head_read_v2=1"
run "calibrate: a head register that reads 0, re-programmed queues written from the last head written" t_calibrate_rig p-headzero \
	"entry_size_v2=64 head_mode_v2=0 type_entry_size_v2=64,0,64,0,64,0 head_lag_v2=0 phase_bit_v2=0 head_sets_v2=0 reprogram_v2=0 reset_head_v2=3 head_read_v2=2"
run "calibrate: a head register that reads its reset value, re-programmed queues written from the reset's start" t_calibrate_rig p-headreset \
	"entry_size_v2=64 head_mode_v2=1 type_entry_size_v2=64,0,64,0,64,0 head_lag_v2=0 phase_bit_v2=0 head_sets_v2=0 reprogram_v2=1 reset_head_v2=320 head_read_v2=2"
# A register that reads one value: without the re-programmed queue, or
# without the last head written before each programming (a hook before
# its patch 9), where a re-programmed queue is written is not decided.
t_calibrate_fixed_undecided() {
	gzip -dc "$here/calibration/p-headzero.log.gz" | "$@" >"$tmp/cal.log" || return 1
	"$np" calibrate --from "$tmp/cal.log" -o - --config "$tmp/cal.conf" >"$tmp/cal.out" 2>&1
	[ $? -eq 1 ] && [ ! -s "$tmp/cal.conf" ] &&
		has "returns 0 whatever was written" "$tmp/cal.out" &&
		has "where a queue programmed again without a reset is written: " "$tmp/cal.out" ||
		{ cat "$tmp/cal.out"; return 1; }
}
run "calibrate: a head register that reads 0 and no queue programmed again: not decided" \
	t_calibrate_fixed_undecided grep -v " nc 0 0 0 9 "
run "calibrate: a head register that reads 0 and no head written before each programming: not decided" \
	t_calibrate_fixed_undecided sed -E 's/^(queue .*) [0-9-]+$/\1/'
t_calibrate_rig_undecided() {
	gzip -dc "$here/calibration/p-undecided.log.gz" >"$tmp/cal.log" || return 1
	"$np" calibrate --from "$tmp/cal.log" -o - --config "$tmp/cal.conf" >"$tmp/cal.out" 2>&1
	[ $? -eq 1 ] && [ ! -s "$tmp/cal.conf" ] &&
		has "where a queue programmed again without a reset is written: not enough data" "$tmp/cal.out" &&
		has "what a read of a head register returns: not enough data" "$tmp/cal.out"
}
run "calibrate: without a re-program or a queue handed out again, names both facts and configures nothing" \
	t_calibrate_rig_undecided
t_calibrate_undecided() {
	"$py" "$here/calibrate_log.py" "$@" >"$tmp/cal.log" || return 1
	"$np" calibrate --from "$tmp/cal.log" -o - >"$tmp/cal.out" 2>&1
	[ $? -eq 1 ] || { echo "expected exit 1"; cat "$tmp/cal.out"; return 1; }
	has "not enough data" "$tmp/cal.out" && ! grep -q "^set:" "$tmp/cal.out"
}
run "calibrate: 5 head writes are not enough data" t_calibrate_undecided 64 index 0 4096 5 1
run "calibrate: counter heads that never pass the ring are not enough data" \
	t_calibrate_undecided 64 counter 0 4096 40 1
run "calibrate: byte heads in batches without ring bytes do not give the entry size" \
	t_calibrate_undecided 64 byte 0 4096 300 4 --no-ring
run "calibrate: a counter without ring bytes does not give the entry size" \
	t_calibrate_undecided 64 counter 0 4096 300 1 --no-ring
t_calibrate_badlog() {
	printf 'head 0 nc 0 0 1 1 5 10\nnot a log line\n' >"$tmp/cal.bad"
	expect_exit 1 "cal.bad:2: not a calibration log line" "$np" calibrate --from "$tmp/cal.bad" -o -
}
run "calibrate: a line that is not a log line is named by file and line" t_calibrate_badlog
run "calibrate: --duration must be positive seconds" \
	expect_exit 2 "--duration: '-1' is not a number of seconds" "$np" calibrate --duration -1
