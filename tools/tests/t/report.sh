# SPDX-License-Identifier: MIT
#
# The tool's tests: report.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# tests/report_check.py: the data a page embeds and the SVG drawn from it
# against summary --json; the busy time per bucket recomputed from
# dump --json; in Chromium, the tables the page's script builds.
# A path with markup in it stays text (the JSON block says "<\/").
mkdir -p "$fx/mark</script><b>&\"'x" && cp "$basic" "$fx/mark</script><b>&\"'x/"
t_report_data() {
	local p
	"$gen" --jitter 20000 "$fx/rjitter.ntff" || return 1
	for p in "$prof" "$fx/hosts" "$fx/raw" "$basic" "$fx/gap.ntff" "$fx/rjitter.ntff" \
		"$fx/mark</script><b>&\"'x"; do
		"$np" report --top 3 -o "$tmp/r.html" "$p" &&
		"$np" summary --json --top 3 "$p" >"$tmp/s.json" || return 1
		"$py" "$here/report_check.py" data "$tmp/r.html" "$tmp/s.json" 3 ||
			{ echo "# of $p"; return 1; }
		# Nothing to fetch: no src, no link but to its own sections.
		count_is 0 '<link|<img|<iframe|src=|href="[^#]|url\(' "$tmp/r.html" || return 1
	done
	# Several PATHs, as summary takes them: three machines, a directory of two
	# recordings and a file, compared side by side on shared axes.
	"$np" report --top 3 -o "$tmp/r.html" "$fx/hosts" "$prof" "$fx/rjitter.ntff" &&
	"$np" summary --json --top 3 "$fx/hosts" "$prof" "$fx/rjitter.ntff" >"$tmp/s.json" &&
	"$py" "$here/report_check.py" data "$tmp/r.html" "$tmp/s.json" 3 &&
	count_is 18 '<svg class="host(busy|util|lat)"' "$tmp/r.html" &&
	has '<h1>neuronprof report: '"$fx/hosts, $prof, $fx/rjitter.ntff"'</h1>' "$tmp/r.html"
}
run "report: the page's data and SVG (idle gaps, machines side by side) equal summary --json (recordings, hosts, raw, gap, jitter, markup in a path, several PATHs)" t_report_data

t_report_buckets() {
	"$gen" --jitter 20000 "$fx/rjitter.ntff" &&
	"$np" dump --json "$fx/rjitter.ntff" >"$tmp/dj.json" || return 1
	for b in 200 7; do
		"$np" report --buckets $b -o "$tmp/r.html" "$fx/rjitter.ntff" &&
		"$py" "$here/report_check.py" buckets "$tmp/r.html" 0 "$tmp/dj.json" || return 1
	done
	"$np" dump --json "$prof/profile_nc_0_session_3.ntff" >"$tmp/d0.json" &&
	"$np" dump --json "$prof/sub/profile_nc_1_session_0.ntff" >"$tmp/d1.json" &&
	"$np" report --buckets 13 -o "$tmp/r.html" "$prof" &&
	"$py" "$here/report_check.py" buckets "$tmp/r.html" 0 "$tmp/d0.json" &&
	"$py" "$here/report_check.py" buckets "$tmp/r.html" 1 "$tmp/d1.json"
}
run "report: busy time per bucket recomputed from dump --json" t_report_buckets

# Errors by code (gen_fixtures --errors: two codes on two cores, an error
# lost on core 1, an op named with the longest name NTFF allows): the
# table and the data equal summary --json's counts; a recording without
# errors says so; long op and model labels fit or end in an ellipsis with
# the whole in the tooltip (report_check.py data checks all of these).
t_report_errors() {
	"$gen" --errors "$fx/rerrs" &&
	"$np" report --top 3 -o "$tmp/r.html" "$fx/rerrs" &&
	"$np" summary --json --top 3 "$fx/rerrs" >"$tmp/s.json" &&
	"$py" "$here/report_check.py" data "$tmp/r.html" "$tmp/s.json" 3 &&
	check_py summary-json "$tmp/s.json" recordings.0.totals.errors=8 &&
	count_is 1 'data-kind="errors"' "$tmp/r.html" &&
	has '<p class="note errlost" data-lost="1">The error queues lost 1 entry (device 0 NeuronCore 1: 1)' "$tmp/r.html" &&
	count_is 2 '<text class="lbl" x="[0-9]+" y="[0-9]+">0:tensor activation_gelu_approx3 0x000100</text>' "$tmp/r.html" &&
	count_is 0 '<p class="empty noerrors">' "$tmp/r.html" || return 1
	"$np" report -o "$tmp/g.html" "$fx/gap.ntff" &&
	has '<p class="empty noerrors">No errors: no ERROR or TOPSP_ERROR entry' "$tmp/g.html" &&
	count_is 0 'data-kind="errors"' "$tmp/g.html" || return 1
	# Three panels side by side: the model label column cannot hold
	# "synthetic_mlp (model 7)"; it ends in an ellipsis, whole in the tooltip.
	"$np" report --top 3 -o "$tmp/r.html" "$fx/named" "$fx/rerrs" "$prof" 2>/dev/null &&
	"$np" summary --json --top 3 "$fx/named" "$fx/rerrs" "$prof" >"$tmp/s.json" 2>/dev/null &&
	"$py" "$here/report_check.py" data "$tmp/r.html" "$tmp/s.json" 3 &&
	count_is 1 '<title>synthetic_mlp \(model 7\)</title>synthetic_mlp[^<]*&hellip;</text>' "$tmp/r.html"
}
run "report: errors by code per core and in total equal summary --json (two codes, two cores, a loss); no errors said; long labels fit" t_report_errors

# What cannot be shown is said; a file that does not read is an error
# that leaves no page, or with --keep-going a page that says so.
t_report_bad() {
	"$np" report -o "$tmp/r.html" "$fx/raw" &&
	has "9 raw entries in 2 queues are not decoded" "$tmp/r.html" &&
	has "No decoded entries in this recording" "$tmp/r.html" &&
	"$gen" --large 0 "$fx/rempty.ntff" &&
	"$np" report -o "$tmp/e.html" "$fx/rempty.ntff" &&
	has "No decoded entries in this recording" "$tmp/e.html" &&
	has "No executions in this recording" "$tmp/e.html" &&
	has "No queue lost entries." "$tmp/e.html" &&
	mkdir -p "$fx/rsys" && cp "$prof/ntrace.pb" "$fx/rsys/" &&
	"$np" report -o "$tmp/y.html" "$fx/rsys" &&
	has "no NeuronCore to plot (a system profile alone)" "$tmp/y.html" || return 1
	head -c 1000 "$basic" >"$fx/rtrunc.ntff"
	rm -f "$tmp/t.html"
	expect_exit 1 "rtrunc.ntff: truncated" "$np" report -o "$tmp/t.html" "$fx/rtrunc.ntff" || return 1
	[ ! -e "$tmp/t.html" ] || { echo "a page was left behind"; return 1; }
	mkdir -p "$fx/rmixed" && cp "$basic" "$fx/rtrunc.ntff" "$fx/rmixed/" &&
	expect_exit 1 "1 file skipped \(--keep-going\)" \
		"$np" report --keep-going -o "$tmp/k.html" "$fx/rmixed" &&
	has "1 file did not read and is left out" "$tmp/k.html" &&
	has "<svg class=\"timeline\"" "$tmp/k.html"
}
run "report: raw, empty and system-profile-only pages say what they cannot show; a bad file is an error" t_report_bad

run "report --buckets 0: exit 2" expect_exit 2 "--buckets: .*1" "$np" report --buckets 0 "$basic"
run "report without PATH: exit 2" expect_exit 2 "missing PATH" "$np" report -o "$tmp/x.html"

# The page in a browser (Debian's chromium, headless, nothing fetched):
# no console error, the script built every table from the data, and a
# screenshot in $build/test-output/.
t_report_browser() {
	local name p ud shots=$build/test-output
	mkdir -p "$shots" || return 1
	"$gen" --jitter 20000 "$fx/rjitter.ntff" && "$gen" --errors "$fx/rerrs" || return 1
	for name in prof hosts markup machines errors; do
		set --
		case $name in
		prof) set -- "$prof" ;;
		hosts) set -- "$fx/hosts" ;;
		markup) set -- "$fx/mark</script><b>&\"'x" ;;
		machines) set -- "$fx/hosts" "$prof" "$fx/rjitter.ntff" ;;
		errors) set -- "$fx/rerrs" "$fx/named" ;;
		esac
		"$np" report -o "$tmp/report-$name.html" "$@" || return 1
		ud=$(mktemp -d "$tmp/chromium.XXXXXX")
		timeout 120 chromium --headless --no-sandbox --disable-gpu \
			--disable-background-networking --disable-component-update --disable-sync \
			--no-first-run --user-data-dir="$ud" --enable-logging=stderr --v=0 \
			--dump-dom "file://$tmp/report-$name.html" >"$tmp/dom-$name.html" 2>"$tmp/chr.err" ||
			{ echo "chromium --dump-dom failed"; tail -20 "$tmp/chr.err"; return 1; }
		if grep -E "Uncaught|ERROR:CONSOLE|CONSOLE\([0-9]+\)" "$tmp/chr.err"; then
			echo "console errors in $name"; return 1
		fi
		"$py" "$here/report_check.py" dom "$tmp/dom-$name.html" "$tmp/report-$name.html" || return 1
		rm -f "$shots/report-$name.png"
		timeout 120 chromium --headless --no-sandbox --disable-gpu \
			--disable-background-networking --disable-component-update --disable-sync \
			--no-first-run --user-data-dir="$ud" --hide-scrollbars --window-size=1100,2400 \
			--screenshot="$shots/report-$name.png" "file://$tmp/report-$name.html" \
			>/dev/null 2>"$tmp/chr.err" &&
		[ -s "$shots/report-$name.png" ] || { echo "no screenshot"; tail -20 "$tmp/chr.err"; return 1; }
		rm -rf "$ud"
	done
}
if [ -n "$label" ]; then
	:	# the browser test is the same for the sanitizer build's page
elif ! command -v chromium >/dev/null; then
	skip_test "report in headless Chromium" "no chromium (scripts/deps.sh installs Debian's)"
else
	run "report in headless Chromium: no console error, tables equal the data, screenshot" t_report_browser
fi

t_summary_file() {
	"$np" summary --json "$basic" >"$tmp/s.json" || return 1
	check_py summary-json "$tmp/s.json" files=1 entries=46 recordings.0.path="$basic" \
		recordings.0.totals.instructions=16 recordings.0.totals.dma=6 \
		recordings.0.totals.events=16 recordings.0.totals.errors=2 recordings.0.host=None
}
run "summary of one file" t_summary_file

run "summary --json with --csv: exit 2" \
	expect_exit 2 "--json and --csv are exclusive" "$np" summary --json --csv "$tmp/c" "$basic"
run "summary --top 0: exit 2, range named" \
	expect_exit 2 "--top: 0 is out of range" "$np" summary --top 0 "$basic"
run "summary --csv into a directory that cannot be made: exit 1, named" \
	expect_exit 1 "cannot create directory $basic/csv: Not a directory" "$np" summary --csv "$basic/csv" "$basic"
# One placement rule for every output (tool.rst, Conventions): the
# missing directories above it are made, as record -o does.
t_out_mkdir() {
	local d=$tmp/mk
	rm -rf "$d" &&
	"$np" export --format json -o "$d/e/x.json" "$basic" >/dev/null 2>&1 &&
	"$np" export --format sqlite -o "$d/s/x.db" "$basic" >/dev/null 2>&1 &&
	"$np" report -o "$d/r/a/x.html" "$basic" >/dev/null 2>&1 &&
	"$np" summary --csv "$d/c/a/b" "$basic" >/dev/null 2>&1 ||
		{ echo "an output into missing directories failed"; return 1; }
	[ -s "$d/e/x.json" ] && [ -s "$d/s/x.db" ] && [ -s "$d/r/a/x.html" ] && [ -s "$d/c/a/b/cores.csv" ] ||
		{ echo "outputs missing"; find "$d"; return 1; }
}
run "export, report and summary --csv into missing directories: made, as record -o" t_out_mkdir

# A capture range (here an iteration range) is on the page as summary says it.
t_report_range() {
	rm -rf "$tmp/rrange" && "$gen" --iter-range 2-3 "$tmp/rrange" >/dev/null || return 1
	"$np" summary "$tmp/rrange/basic.ntff" >"$tmp/rrange.txt" &&
	"$np" report -o "$tmp/rrange.html" "$tmp/rrange/basic.ntff" || return 1
	line=$(grep -m1 '^  captured ' "$tmp/rrange.txt" | sed 's/^  //')
	[ -n "$line" ] || { echo "summary says no range"; return 1; }
	has "<p class=\"range\">$line.</p>" "$tmp/rrange.html" &&
	"$np" report -o "$tmp/rrange0.html" "$basic" && count_is 0 'class="range"' "$tmp/rrange0.html"
}
run "report: the captured iteration range, as summary says it" t_report_range
