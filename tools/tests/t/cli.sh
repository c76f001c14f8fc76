# SPDX-License-Identifier: MIT
#
# The tool's tests: the command line: --help, --version, usage errors, the man page.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

t_help() {
	"$np" --help >"$tmp/o" || return 1
	for c in devices doctor calibrate record dump summary report export top exporter sim; do
		has "  $c " "$tmp/o" || return 1
		"$np" "$c" --help >"$tmp/h" || { echo "$c --help failed"; return 1; }
		has "Usage: neuronprof $c" "$tmp/h" || return 1
	done
}
run "--help and every subcommand's --help" t_help
run "--version names the library version" \
	bash -c "'$np' --version | grep -Eq '^neuronprof \(libneuronprof [0-9]+\.[0-9]+\.[0-9]+\)$'"
# sim run needs a simulated device (the VM test runs it); its usage is checked here.
run "sim without run: exit 2, says what to give" \
	expect_exit 2 "missing what to do: sim run" "$np" sim
run "sim with another command: exit 2, named" \
	expect_exit 2 "unknown sim command 'walk': sim run" "$np" sim walk
run "sim run --duration with --executions: exit 2" \
	expect_exit 2 "--duration and --executions both say how long to run: give one" \
	"$np" sim run --duration 1 --executions 2
run "sim run with an operand: exit 2, named" \
	expect_exit 2 "unexpected argument 'extra'" "$np" sim run extra
run "unknown subcommand: exit 2, named" \
	expect_exit 2 "unknown command 'frobnicate'" "$np" frobnicate
run "no subcommand: exit 2 with usage" expect_exit 2 "Usage: neuronprof" "$np"
run "unknown option: exit 2, named" expect_exit 2 "unknown option '--bogus'" "$np" dump --bogus "$basic"
run "option without its value: exit 2" expect_exit 2 "'--format' needs a value" "$np" export --format
run "bad number: exit 2, named" expect_exit 2 "--entries: 'abc' is not a number" "$np" dump --entries abc "$basic"

t_help_cmd() {
	"$np" help summary >"$tmp/h" || return 1
	has "Usage: neuronprof summary" "$tmp/h" &&
	count_is 0 '^Commands:' "$tmp/h" &&
	"$np" help export >"$tmp/h" && has "sqlite" "$tmp/h" &&
	"$np" help >"$tmp/h" && has "Commands:" "$tmp/h" && has "SQLite" "$tmp/h" || return 1
	expect_exit 2 "help: unknown command 'bogus'" "$np" help bogus
}
run "help CMD prints CMD's help; the top-level help names SQLite" t_help_cmd

# A usage line that continues the one above is indented under its
# first option, not started again with "neuronprof".
t_help_synopsis() {
	local c u col l
	for c in devices doctor calibrate record dump summary diff report export top exporter sim; do
		u=$("$np" "$c" --help | sed -n '/^Usage:/,/^$/p')
		grep -E '^ +neuronprof +\[' <<<"$u" && { echo "$c: a continuation starts with neuronprof"; return 1; }
		# the column of the first option of the first line
		l=$(head -1 <<<"$u")
		l=${l%%[[-]*}
		col=$((${#l} + 1))
		while IFS= read -r l; do
			[ -z "$l" ] && continue
			case $l in *"neuronprof $c"*) continue ;; esac
			[ "$(awk '{ print index($0, "[") }' <<<"$l")" = "$col" ] ||
				{ echo "$c: continuation not under column $col: $l"; return 1; }
		done < <(tail -n +2 <<<"$u")
	done
}
run "every --help: usage continuation lines indented under the first option" t_help_synopsis
run "every --help: the synopsis names every option of the table, and only those (synopsis.sh)" bash "$here/synopsis.sh" "$build"
run "neuronprof(1): its SYNOPSIS and COMMANDS name the options of every --help, and only those (man_options.py)" \
	"$py" "$here/man_options.py" "$repo/man/neuronprof.1" "$np" "diff=$repo/man/neuronprof-diff.1"

# The man page carries every option each command's --help lists, and
# the synopsis the options that were missing from it.
t_man_options() {
	local man=$repo/man/neuronprof.1 c o syn
	for c in devices doctor calibrate record dump summary report export top exporter sim; do
		for o in $("$np" "$c" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
			grep -qF -- "${o//-/\\-}" "$man" || { echo "$c $o: not in the man page"; return 1; }
		done
	done
	syn=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$man")
	grep -A30 -F 'neuronprof top' <<<"$syn" | grep -qF 'ring\-size' &&
	grep -A30 -F 'neuronprof exporter' <<<"$syn" | grep -qF 'replay\-speed' &&
	grep -A30 -F 'neuronprof exporter' <<<"$syn" | grep -qF 'textfile' &&
	grep -A12 -F 'neuronprof summary' <<<"$syn" | grep -qF 'progress=' &&
	grep -A12 -F 'neuronprof summary' <<<"$syn" | grep -qF 'keep\-going' &&
	grep -qF 'sqlite' <<<"$syn" &&
	sed -n '/^\.SH DESCRIPTION/,/^\.SH COMMANDS/p' "$man" | grep -q 'SQLite' ||
		{ echo "the synopsis or description misses top --ring-size, summary --progress/--keep-going or SQLite"; return 1; }
}
run "man page: every option of every --help, the synopsis complete" t_man_options

# neuronprof-diff(1) carries every option of diff --help, and
# neuronprof(1) the command.
t_man_diff() {
	local man=$repo/man/neuronprof-diff.1 o
	for o in $("$np" diff --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		grep -qF -- "${o//-/\\-}" "$man" || { echo "diff $o: not in neuronprof-diff.1"; return 1; }
	done
	grep -qF '.SS diff' "$repo/man/neuronprof.1" &&
		grep -qF 'neuronprof\-diff (1)' "$repo/man/neuronprof.1"
}
run "man page: neuronprof-diff(1) has every option of diff --help" t_man_diff

# The export formats come from one table (export/formats.c): --help lists
# it, the man page documents each, and --format refuses what is not in it.
t_export_formats() {
	local man=$repo/man/neuronprof.1 f n=0
	for f in $("$np" export --help | sed -n '/^Formats:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'); do
		n=$((n + 1))
		grep -qF -- "\-\-format\  $f" "$man" || { echo "format $f: not in the man page"; return 1; }
	done
	[ "$n" -ge 3 ] || { echo "export --help lists $n formats"; return 1; }
	expect_exit 2 "unknown format 'csv' \(expected json, perfetto or sqlite\)" \
		"$np" export --format csv "$basic"
}
run "export formats: one table behind --help, the man page and --format" t_export_formats

# One grammar for ring sizes: K, M and G everywhere, powers of two up to
# 1G, the range in the same units (record from 1M: the runtime counts MiB).
t_ring_size_units() {
	"$np" record -o "$tmp/recdir" --ring-size 2048K -- env >"$tmp/env" 2>/dev/null &&
	has "NEURON_RT_PROFILE_BUF_TRACE_MB=2" "$tmp/env" &&
	"$np" record -o "$tmp/recdir" --ring-size 1G -- env >"$tmp/env" 2>/dev/null &&
	has "NEURON_RT_PROFILE_BUF_TRACE_MB=1024" "$tmp/env" || return 1
	for cmd in "top --json" "exporter --textfile $tmp/x.prom"; do
		# shellcheck disable=SC2086
		expect_exit 2 "--ring-size: 2G is out of range \[4K, 1G\]" "$np" $cmd --ring-size 2G &&
		# shellcheck disable=SC2086
		expect_exit 2 "--ring-size: 3M is not a power of two" "$np" $cmd --ring-size 3M &&
		# shellcheck disable=SC2086
		expect_exit 2 "--ring-size: '8T' is not a number \(suffixes K, M, G are allowed\)" \
			"$np" $cmd --ring-size 8T || return 1
	done
	expect_exit 2 "--ring-size: 2G is out of range \[1M, 1G\]" "$np" record --ring-size 2G -- true &&
	expect_exit 2 "--ring-size: '8T' is not a number \(suffixes K, M, G are allowed\)" \
		"$np" record --ring-size 8T -- true
}
run "--ring-size: one grammar in record, top and exporter" t_ring_size_units
run "record: --max-size and --switch-output reach the command, their grammar (see record_limits.sh)" bash "$here/record_limits.sh" "$build" "$tmp/record_limits${label:+-san}"
run "one name per unit: summary, SQLite queues.unit_name and the Python ops frame (see unit_names.sh)" bash "$here/unit_names.sh" "$build" "$fx/prof" "$tmp/unit_names${label:+-san}" "$py"
run "--ring-size grammar and ring memory check (ringmem_unit)" \
	"$build/tests/ringmem_unit" "$(mktemp -d "$tmp/ringmem.XXXXXX")"
run "record -- CMD: the rings its runtime would ask for, checked before it runs (record_rings_unit)" \
	"$build/tests/record_rings_unit"

run "summary --top -1: exit 2, says it must be positive" \
	expect_exit 2 "--top: -1 is negative: it must be positive" "$np" summary --top -1 "$basic"
run "dump --entries -1: exit 2, says it must be zero or more" \
	expect_exit 2 "--entries: -1 is negative: it must be zero or more" "$np" dump --entries -1 "$basic"

t_vm_run_help() {
	bash "$repo/scripts/vm-run.sh" --help >"$tmp/h" 2>"$tmp/e" || { echo "exit status $?"; return 1; }
	has "Usage: scripts/vm-run.sh [options] -- CMD [ARGS...]" "$tmp/h" &&
	has "Exit status:" "$tmp/h" && [ ! -s "$tmp/e" ] || return 1
	expect_exit 125 "unknown argument '--bogus'" bash "$repo/scripts/vm-run.sh" --bogus
}
run "scripts/vm-run.sh --help: usage on stdout, exit 0" t_vm_run_help

t_gen_help() {
	local d=$tmp/genhelp
	rm -rf "$d" && mkdir -p "$d" || return 1
	(cd "$d" && "$gen" --help) >"$tmp/h" || { echo "exit status $?"; return 1; }
	has "Usage: gen_fixtures" "$tmp/h" || return 1
	(cd "$d" && expect_exit 2 "unknown option '--bogus'" "$gen" --bogus) || return 1
	[ -z "$(ls -A "$d")" ] || { echo "made in the working directory: $(ls -A "$d")"; return 1; }
}
run "gen_fixtures --help: usage, exit 0, no directory named --help" t_gen_help
run "export fast paths (numbers, cursor encoding, JSON and Perfetto events) agree with plain references" \
	"$build/tests/export_fast"
