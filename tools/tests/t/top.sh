# SPDX-License-Identifier: MIT
#
# The tool's tests: top.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

run "top --batch --json: exit 2" \
	expect_exit 2 "--batch and --json exclude each other" "$np" top --batch --json
run "top without a terminal and without --batch/--json: exit 2" \
	expect_exit 2 "stdout is not a terminal: use --batch or --json" "$np" top
run "top --interval below 100 ms: exit 2" \
	expect_exit 2 "--interval: 50 is out of range" "$np" top --json --interval 50
run "top with an operand: exit 2" expect_exit 2 "" "$np" top --json extra
t_top_n() {
	expect_exit 2 "top: -n: 0 is out of range" "$np" top --json -n 0 &&
	expect_exit 2 "top: --count: 0 is out of range" "$np" top --json --count 0 &&
	expect_exit 2 "option '-n' needs a value" "$np" top --json -n
}
run "top -n N is --count N (as top and perf top take it)" t_top_n


t_record_env() {
	(cd "$tmp" && "$np" record -o "$tmp/recdir" --mode session --cores 0,1 --ring-size 2M \
		--cpu-util --event-types hardware --max-events 1000 -- env) >"$tmp/env" 2>"$tmp/e" ||
		{ cat "$tmp/e"; return 1; }
	has "NEURON_RT_INSPECT_ENABLE=1" "$tmp/env" &&
	has "NEURON_RT_INSPECT_OUTPUT_DIR=$tmp/recdir" "$tmp/env" &&
	has "NEURON_RT_INSPECT_DEVICE_PROFILE=session" "$tmp/env" &&
	has "NEURON_RT_INSPECT_EVENT_FILTER_NC=0,1" "$tmp/env" &&
	has "NEURON_RT_INSPECT_CPU_UTIL=1" "$tmp/env" &&
	has "NEURON_RT_INSPECT_EVENT_FILTER_TYPE=hardware" "$tmp/env" &&
	has "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC=1000" "$tmp/env" &&
	has "NEURON_RT_PROFILE_BUF_TRACE_MB=2" "$tmp/env" &&
	has "NEURON_RT_PROFILE_BUF_TOPSP_ERROR_MB=2" "$tmp/env" &&
	has "env exited with status 0" "$tmp/e"
}
run "record -- CMD: the inspect environment from the options" t_record_env
t_record_range_env() {
	"$np" record -o "$tmp/recdir" --executions 100-110 -- env \
		>"$tmp/env" 2>"$tmp/e" || { cat "$tmp/e"; return 1; }
	has "NEURON_RT_INSPECT_CAPTURE_EXECUTIONS=100-110" "$tmp/env"
}
run "record -- CMD: --executions A-B passes the capture range" t_record_range_env
t_record_iter_env() {
	"$np" record -o "$tmp/recdir" --iterations 2-3 -- env \
		>"$tmp/env" 2>"$tmp/e" || { cat "$tmp/e"; return 1; }
	has "NEURON_RT_INSPECT_CAPTURE_ITERATIONS=2-3" "$tmp/env" &&
	! grep -q "NEURON_RT_INSPECT_CAPTURE_EXECUTIONS" "$tmp/env"
}
run "record -- CMD: --iterations A-B passes the iteration range" t_record_iter_env
run "record: --iterations A-B that ends before it begins" \
	expect_exit 2 "--iterations 3-2: the range ends before it begins" "$np" record --iterations 3-2
run "record -- CMD: --executions A-B with --delay needs SESSION mode" \
	expect_exit 2 "with --delay or --control needs --mode session" \
	"$np" record --executions 1-2 --delay 1 -- true
run "record: --executions A-B that ends before it begins" \
	expect_exit 2 "the range ends before it begins" "$np" record --executions 5-4
run "record: --control takes fifo:CTL[,ACK]" \
	expect_exit 2 "expected fifo:CTL" "$np" record --control ctl -- true
run "record: --control refuses what is not a FIFO" \
	expect_exit 1 "is not a FIFO" "$np" record --control "fifo:$repo/README.md" -- true

# The control page as the command sees it (the page's second word,
# read through the inherited descriptor): --delay -1 starts it off, each
# command of the FIFO flips it before its ack, twice on and off; then
# --delay 0.3 turns it on by itself.
t_record_control() {
	local script out
	rm -f "$tmp/ctl" "$tmp/ack"
	mkfifo "$tmp/ctl" "$tmp/ack" || return 1
	# shellcheck disable=SC2016
	script='v() { od -An -tu8 -j8 -N8 "/dev/fd/$NEURONPROF_CONTROL_FD" | tr -d " "; }
		echo "start $(v)"
		for c in enable disable enable disable; do
			echo $c >"$1"; read -r a <"$2"; echo "$c $a $(v)"
		done'
	out=$("$np" record -o "$tmp/recdir" --delay -1 --control "fifo:$tmp/ctl,$tmp/ack" \
		-- sh -c "$script" sh "$tmp/ctl" "$tmp/ack" 2>"$tmp/e") || { cat "$tmp/e"; return 1; }
	[ "$out" = "$(printf 'start 0\nenable ack 1\ndisable ack 0\nenable ack 1\ndisable ack 0')" ] ||
		{ echo "control page seen: $out"; return 1; }
	# shellcheck disable=SC2016
	script='v() { od -An -tu8 -j8 -N8 "/dev/fd/$NEURONPROF_CONTROL_FD" | tr -d " "; }
		echo "$(v)"; sleep 1.5; echo "$(v)"'
	out=$("$np" record -o "$tmp/recdir" --delay 0.3 -- sh -c "$script" 2>"$tmp/e") ||
		{ cat "$tmp/e"; return 1; }
	[ "$out" = "$(printf '0\n1')" ] || { echo "--delay 0.3: control page seen: $out"; return 1; }
}
run "record -- CMD: --control fifo:CTL,ACK and --delay drive the control page" t_record_control
run "record -- CMD: the command's exit status" \
	expect_exit 3 "sh exited with status 3" "$np" record -o "$tmp/recdir" -- sh -c 'exit 3'
run "record -- CMD: a command that does not exist: 127" \
	expect_exit 127 "cannot run $tmp/nonexistent" "$np" record -o "$tmp/recdir" -- "$tmp/nonexistent"
run "record -- CMD: synthetic options refused" \
	expect_exit 2 "--iterations applies to the synthetic model" "$np" record --iterations 3 -- true
run "record -- CMD: ring size must be a power of two in whole MiB" \
	expect_exit 2 "1536K is not a power of two \(rings are 1M, 2M" "$np" record --ring-size 1536K -- true
run "record -- CMD: the library's parser rejects a bad event type" \
	expect_exit 2 "NEURON_RT_INSPECT_EVENT_FILTER_TYPE: unknown event type 'bogus'" \
	"$np" record --event-types bogus -- true
run "record -- CMD: /dev/null refused as output" \
	expect_exit 2 "'/dev/null' is refused" "$np" record -o /dev/null -- true
