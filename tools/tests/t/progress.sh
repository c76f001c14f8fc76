# SPDX-License-Identifier: MIT
#
# The tool's tests: progress bar.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

t_progress() {
	"$np" dump --progress=always "$basic" >/dev/null 2>"$tmp/e" || return 1
	has "dump [########################################] 100.0% 46/46 entries" "$tmp/e" &&
	"$np" export --format json --progress=always -o "$tmp/x.json" "$basic" >/dev/null 2>"$tmp/e" &&
	has "export [" "$tmp/e" &&
	"$np" summary --progress=always "$basic" >/dev/null 2>"$tmp/e" &&
	has "summary [########################################] 100.0% 46/46 entries" "$tmp/e" &&
	"$np" dump "$basic" >/dev/null 2>"$tmp/e" &&
	[ ! -s "$tmp/e" ] || { echo "progress output without a terminal"; return 1; }
	expect_exit 2 "--progress: 'sometimes' is not one of auto, always, never" \
		"$np" dump --progress=sometimes "$basic"
}
run "progress bar: forced, silent when stderr is not a terminal" t_progress

# A large profile under a terminal (script(1) gives one): the automatic
# bar of summary and export appears, and reaches every entry.
t_progress_tty() {
	"$gen" --large 250000 "$fx/large.ntff" || return 1
	script -qec "'$np' summary '$fx/large.ntff' >/dev/null" /dev/null | tr '\r' '\n' >"$tmp/tty" &&
	has "summary [########################################] 100.0% 250172/250172 entries" "$tmp/tty" &&
	script -qec "'$np' export --format perfetto -o '$tmp/large.pftrace' '$fx/large.ntff' >/dev/null" \
		/dev/null | tr '\r' '\n' >"$tmp/tty" &&
	has "export [########################################] 100.0% 250172/250172 entries" "$tmp/tty"
}
run_if script "progress bar: on by itself for a large profile on a terminal" t_progress_tty
