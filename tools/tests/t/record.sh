# SPDX-License-Identifier: MIT
#
# The tool's tests: record.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

run "record: rings from 1M (whole MiB) only, exit 2" \
	expect_exit 2 "--ring-size: 4096 is out of range \[1M, 1G\]" "$np" record --ring-size 4096
run "record: --event-types without the system trace, exit 2" \
	expect_exit 2 "--event-types configures the system trace: add --system-profile" \
	"$np" record --event-types hardware
run "record: --on-fail is for a command, exit 2" \
	expect_exit 2 "--on-fail applies to a command" "$np" record --on-fail --mode model
run "record: --executions 0, exit 2, range named" \
	expect_exit 2 "--executions: 0 is out of range \[1, 65536\]" "$np" record --executions 0
run "record: empty --model-name, exit 2" \
	expect_exit 2 "--model-name: '' is not 1 to 200 bytes long" "$np" record --model-name ''
run "record: /dev/null refused as output, exit 2" \
	expect_exit 2 "'/dev/null' is refused" "$np" record --mode model -o /dev/null
run "record --iterations 0: exit 2, range named" \
	expect_exit 2 "--iterations: 0 is out of range \[1, 65536\]" "$np" record --iterations 0
run "record --cores with a bad list: exit 2" \
	expect_exit 2 "--cores: bad core index 'x' in '0-x'" "$np" record --cores 0-x
run "record --duration with --executions: exit 2" \
	expect_exit 2 "--duration and --executions both say how long to run" \
	"$np" record --duration 5 --executions 2
run "record --duration with --error: exit 2" \
	expect_exit 2 "--error raises the error in the last execution" \
	"$np" record --duration 5 --error
run "record --duration 0: exit 2, range named" \
	expect_exit 2 "--duration: 0 is out of range" "$np" record --duration 0
# Every option in seconds takes a fraction (util.c parse_seconds): 1.5
# is read, so the next check is the one that refuses.
run "record --duration 1.5 and --timeout 0.5: read as seconds" \
	expect_exit 2 "--duration and --executions both say how long" \
	"$np" record --timeout 0.5 --duration 1.5 --executions 2
run "sim run --duration 0.25: read as seconds" \
	expect_exit 2 "--duration and --executions both say how long" \
	"$np" sim run --duration 0.25 --executions 2
run "calibrate --duration 0.5 --output -: read (the log is what fails)" \
	expect_exit 1 "calibrate: $tmp/no-such-log: No such file" \
	"$np" calibrate --duration 0.5 --output - --from "$tmp/no-such-log"
run "record --duration 1e3: exit 2, the grammar named" \
	expect_exit 2 "--duration: '1e3' is not a number of seconds \\(such as 2 or 1.5\\)" "$np" record --duration 1e3
run "sim run --duration 1.5x: exit 2, the grammar named" \
	expect_exit 2 "--duration: '1.5x' is not a number of seconds" "$np" sim run --duration 1.5x
run "record --timeout finer than 1 ns: exit 2" \
	expect_exit 2 "--timeout: '0.0000000001' is finer than a nanosecond" "$np" record --timeout 0.0000000001
run "calibrate --duration 0: exit 2, the range in seconds" \
	expect_exit 2 "--duration: 0 is out of range \\[0.001, 86400\\] seconds" "$np" calibrate --duration 0
