# SPDX-License-Identifier: MIT
#
# The tool's tests: exporter.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# The exposition and textfile writers on their own (tests/prom_unit.c).
t_prom_unit() {
	rm -rf "$tmp/pu" && mkdir -p "$tmp/pu" && "$build/tests/prom_unit" "$tmp/pu"
}
run "exporter: exposition and atomic textfile writers (prom_unit)" t_prom_unit

run "exporter --replay-speed -1: exit 2, named" \
	expect_exit 2 "--replay-speed: '-1' is not a factor of 0 or more" \
	"$np" exporter --replay "$basic" --replay-speed -1
run "exporter --replay-speed without --replay: exit 2" \
	expect_exit 2 "--replay-speed needs --replay" "$np" exporter --replay-speed 2
run "exporter --replay with --device: exit 2, named" \
	expect_exit 2 "--replay publishes a recording: --device is for a device" \
	"$np" exporter --replay "$basic" --device 0
run "exporter --listen without a port: exit 2, named" \
	expect_exit 2 "--listen: 'localhost' is not ADDR:PORT" "$np" exporter --listen localhost
run "exporter --listen with a host name: exit 2, named" \
	expect_exit 2 "--listen: 'localhost' is not a numeric IPv4 or IPv6 address" \
	"$np" exporter --listen localhost:9474
run "exporter --listen port 0: exit 2, named" \
	expect_exit 2 "--listen port: 0 is out of range" "$np" exporter --listen 127.0.0.1:0
run "exporter --listen none without --textfile: exit 2" \
	expect_exit 2 "nothing to publish to" "$np" exporter --listen none
run "exporter --interval 10: exit 2, named" \
	expect_exit 2 "--interval: 10 is out of range" "$np" exporter --interval 10
run "exporter --textfile not ending in .prom: exit 2, named" \
	expect_exit 2 "--textfile: $tmp/m.txt: the name must end with .prom" \
	"$np" exporter --textfile "$tmp/m.txt" --listen none --replay "$basic"
t_exporter_fifo() {
	rm -f "$tmp/fifo.prom" && mkfifo "$tmp/fifo.prom" || return 1
	expect_exit 1 "--textfile: $tmp/fifo.prom is a FIFO, not a regular file: refusing to replace it" \
		"$np" exporter --textfile "$tmp/fifo.prom" --listen none --replay "$basic" &&
	[ -p "$tmp/fifo.prom" ]
}
run "exporter --textfile on a FIFO: exit 1, named, left alone" t_exporter_fifo
t_exporter_symlink() {
	echo keep >"$tmp/target.prom" && ln -sfn "$tmp/target.prom" "$tmp/link.prom" || return 1
	expect_exit 1 "--textfile: $tmp/link.prom is a symbolic link, not a regular file" \
		"$np" exporter --textfile "$tmp/link.prom" --listen none --replay "$basic" &&
	[ -L "$tmp/link.prom" ] && [ "$(cat "$tmp/target.prom")" = keep ]
}
run "exporter --textfile on a symbolic link: exit 1, named, left alone" t_exporter_symlink
t_exporter_devnode() {
	expect_exit 1 "--textfile: $tmp/null.prom is a character device, not a regular file" \
		"$np" exporter --textfile "$tmp/null.prom" --listen none --replay "$basic" &&
	[ -c "$tmp/null.prom" ]
}
rm -f "$tmp/null.prom"
if mknod "$tmp/null.prom" c 1 3 2>/dev/null; then
	run "exporter --textfile on a device node: exit 1, named, left alone" t_exporter_devnode
	rm -f "$tmp/null.prom"
else
	skip_test "exporter --textfile on a device node" "mknod needs root"
fi
run "exporter --replay of a missing file: exit 1, named" \
	expect_exit 1 "$tmp/nope.ntff" "$np" exporter --replay "$tmp/nope.ntff" --listen none --textfile "$tmp/x.prom"
run "exporter --replay of several recordings: exit 1, says it takes one" \
	expect_exit 1 "holds 2 recordings .*: --replay takes one" \
	"$np" exporter --replay "$prof" --listen none --textfile "$tmp/x.prom"

# Replayed at once, the textfile carries summary's figures, per core,
# engine, TopSP and queue, losses included (tests/prom_check.py expo).
t_exporter_replay() {
	local r=$1
	rm -f "$tmp/r.prom"
	"$np" exporter --replay "$r" --replay-speed 0 -n 1 --listen none \
		--textfile "$tmp/r.prom" 2>"$tmp/r.err" || { cat "$tmp/r.err"; return 1; }
	"$np" summary --json "$r" >"$tmp/r.json" || return 1
	"$py" "$here/prom_check.py" expo "$tmp/r.prom" "$tmp/r.json" || return 1
	if command -v promtool >/dev/null; then
		promtool check metrics <"$tmp/r.prom" || return 1
	fi
}
run "exporter --replay basic.ntff: summary's figures, losses as metrics" t_exporter_replay "$basic"
run "exporter --replay a directory of two cores: summary's figures" \
	t_exporter_replay "$fx/straggler/2"
t_exporter_replay_raw() {
	local f
	t_exporter_replay "$fx/raw/raw.ntff" || return 1
	for f in index64 byte32 counter128; do
		t_exporter_replay "$here/fixtures/raw-record-2/$f.ntff" || return 1
	done
}
run "exporter --replay of raw recordings, packed or not: summary's entries (32-byte parts) and losses per queue type" \
	t_exporter_replay_raw
t_exporter_loss() {
	"$np" exporter --replay "$basic" --replay-speed 0 -n 1 --listen none \
		--textfile "$tmp/l.prom" || return 1
	has 'neuronprof_queue_lost_entries_total{device="0",core="0",queue="trace",engine="vector"} 2' "$tmp/l.prom" &&
	has 'neuronprof_queue_sequence_gaps_total{device="0",core="0",queue="trace",engine="vector"} 2' "$tmp/l.prom" &&
	"$np" exporter --replay "$fx/gap.ntff" --replay-speed 0 -n 1 --listen none \
		--textfile "$tmp/g.prom" || return 1
	grep -E '^neuronprof_queue_lost_entries_total\{.*\} 1$' "$tmp/g.prom" >/dev/null &&
	grep -E '^neuronprof_queue_sequence_gaps_total\{.*\} 3$' "$tmp/g.prom" >/dev/null ||
		{ cat "$tmp/g.prom"; return 1; }
}
run "exporter: entries lost (ring) and vanished (sequence gaps) are metrics" t_exporter_loss

# Paced over about 1.5 s and published every 100 ms, the textfile is
# rewritten while it is read: every copy is whole, counters only grow,
# and the replay is seen under way, then over.
t_exporter_paced() {
	local d=$tmp/paced i=0 pid first last
	rm -rf "$d" && mkdir -p "$d/snap" || return 1
	# basic.ntff spans 4500 ns: 4500 ns / 1.5 s.
	"$np" exporter --replay "$basic" --replay-speed 0.000003 --interval 100 -n 20 \
		--listen none --textfile "$d/m.prom" 2>"$d/err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		[ -f "$d/m.prom" ] && cp "$d/m.prom" "$d/snap/$(printf %04d $i).prom" && i=$((i + 1))
		sleep 0.05
	done
	wait "$pid" || { cat "$d/err"; return 1; }
	[ "$i" -ge 10 ] || { echo "only $i copies"; return 1; }
	"$py" "$here/prom_check.py" monotonic "$d"/snap/*.prom || return 1
	first=$(grep '^neuronprof_exporter_replay_progress_ratio ' "$(ls "$d"/snap/*.prom | head -n 1)")
	last=$(grep '^neuronprof_exporter_replay_progress_ratio ' "$d/m.prom")
	[ "$first" != "neuronprof_exporter_replay_progress_ratio 1" ] &&
	[ "$last" = "neuronprof_exporter_replay_progress_ratio 1" ] ||
		{ echo "progress: first '$first', last '$last'"; return 1; }
	for f in "$d"/snap/*.prom; do
		tail -n 1 "$f" | grep -q '^neuronprof_exporter_publications_total [0-9]*$' ||
			{ echo "$f is not whole"; return 1; }
	done
	[ -z "$(ls -A "$d" | grep '^\.')" ] || { echo "temporary files left: $(ls -A "$d")"; return 1; }
}
run "exporter: a paced replay's textfile, rewritten, is whole and its counters only grow" t_exporter_paced

# A queue without entries (prof/sub's DMA queue, 5 lost) does not start
# the replay's clock at 0: paced over 1 s, it is over within 3 s.
t_exporter_empty_queue() {
	local speed
	"$np" summary --json "$prof/sub" >"$tmp/e.json" || return 1
	speed=$("$py" -c '
import json, sys
c = json.load(open(sys.argv[1]))["recordings"][0]["cores"]
print((max(x["last_ns"] for x in c) - min(x["first_ns"] for x in c)) / 1e9)' "$tmp/e.json") || return 1
	"$np" exporter --replay "$prof/sub" --replay-speed "$speed" --interval 100 -n 30 \
		--listen none --textfile "$tmp/e.prom" || return 1
	has 'neuronprof_exporter_replay_progress_ratio 1' "$tmp/e.prom" &&
	has 'neuronprof_queue_lost_entries_total{device="0",core="1",queue="dma",engine="gpsimd"} 5' "$tmp/e.prom" &&
	"$py" "$here/prom_check.py" expo "$tmp/e.prom" "$tmp/e.json"
}
run "exporter: a paced replay with an empty queue that lost entries ends on time, its losses counted" \
	t_exporter_empty_queue

# SIGTERM ends it at once, HTTP server and all, after a last publication.
t_exporter_sigterm() {
	local port pid rc start
	port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	rm -f "$tmp/t.prom"
	"$np" exporter --replay "$basic" --interval 3600000 --listen "127.0.0.1:$port" \
		--textfile "$tmp/t.prom" 2>"$tmp/t.err" &
	pid=$!
	for _ in $(seq 50); do [ -f "$tmp/t.prom" ] && break; sleep 0.1; done
	curl -s -o "$tmp/t.http" -w '%{http_code}\n' "http://127.0.0.1:$port/metrics" >"$tmp/t.code"
	curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$port/" >>"$tmp/t.code"
	curl -s -o /dev/null -w '%{http_code}\n' -X POST "http://127.0.0.1:$port/metrics" >>"$tmp/t.code"
	expect_exit 1 "cannot listen on 127.0.0.1:$port: Address already in use" \
		"$np" exporter --replay "$basic" --listen "127.0.0.1:$port" || { kill "$pid"; return 1; }
	start=$SECONDS
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" -eq 0 ] || { echo "exit $rc"; cat "$tmp/t.err"; return 1; }
	[ $((SECONDS - start)) -le 3 ] || { echo "took $((SECONDS - start)) s to stop"; return 1; }
	[ "$(tr '\n' ' ' <"$tmp/t.code")" = "200 404 405 " ] ||
		{ echo "HTTP codes: $(cat "$tmp/t.code")"; return 1; }
	has 'neuronprof_exporter_publications_total 2' "$tmp/t.prom" &&
	has '# TYPE neuronprof_core_busy_seconds_total counter' "$tmp/t.http"
}
run_if curl "exporter: /metrics 200, other paths 404, POST 405; port in use named; SIGTERM stops it" \
	t_exporter_sigterm

# The systemd unit's options file: what it sets, the exporter accepts
# (the port made a free one, a recording instead of a device).
t_exporter_unit_opts() {
	local port opts
	port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	opts=$(. "$tools/systemd/neuronprof-exporter.default" && echo "$NEURONPROF_EXPORTER_OPTS")
	[ -n "$opts" ] && grep -q -- '--listen 127.0.0.1:9474' <<<"$opts" || { echo "options: '$opts'"; return 1; }
	# shellcheck disable=SC2086
	"$np" exporter ${opts//9474/$port} --replay "$basic" --replay-speed 0 -n 1 \
		--textfile "$tmp/u.prom" && [ -s "$tmp/u.prom" ] || return 1
	grep -qx 'ExecStart=@BINDIR@/neuronprof exporter $NEURONPROF_EXPORTER_OPTS' \
		"$tools/systemd/neuronprof-exporter.service.in"
}
run "exporter: the systemd unit's default options are accepted" t_exporter_unit_opts

# A real Prometheus scraping both outputs (tests/prometheus.sh).
if [ -n "$label" ]; then
	:	# once is enough: the sanitizer build runs everything above
elif [ ! -x /usr/bin/prometheus ] || [ ! -x /usr/bin/prometheus-node-exporter ] ||
     [ ! -x /usr/bin/promtool ] || ! command -v curl >/dev/null; then
	skip_test "exporter scraped by Prometheus" "prometheus, prometheus-node-exporter or curl not installed (scripts/deps.sh)"
else
	run "exporter scraped by Prometheus through node exporter and /metrics: summary's figures (see prometheus.sh)" \
		bash "$here/prometheus.sh" "$build" "$tmp/prometheus" "$basic"
fi

# A module tree holding the built modules ($ko_core, $ko_sim): installed,
# not loaded.
t_doctor_installed() {
	local kv=6.1.0-test root=$tmp/modroot
	mkdir -p "$root/lib/modules/$kv/extra" &&
	cp "$ko_core" "$ko_sim" "$root/lib/modules/$kv/extra/" &&
	depmod -b "$root" "$kv" 2>"$tmp/depmod.err" || { cat "$tmp/depmod.err"; return 1; }
	"$np" doctor --json --module-dir "$root/lib/modules/$kv" >"$tmp/dr.json"
	[ $? -eq 1 ] || { echo "expected exit 1"; return 1; }
	check_py doctor-json "$tmp/dr.json" modules.0.installed=true modules.1.installed=true \
		modules.0.loaded=false modules.1.path="$root/lib/modules/$kv/extra/neuronprof_sim.ko" \
		problems.0.problem="neuronprof is installed but not loaded" || return 1
	"$np" doctor --module-dir "$root/lib/modules/$kv" >"$tmp/dr"
	has "fix: run: sudo modprobe neuronprof_sim" "$tmp/dr"
}
if [ ! -f "$ko_core" ] || [ ! -f "$ko_sim" ]; then
	skip_test "doctor: installed but not loaded" "modules not built (make modules)"
elif ! command -v depmod >/dev/null; then
	skip_test "doctor: installed but not loaded" "no depmod"
elif [ -e /sys/module/neuronprof ]; then
	skip_test "doctor: installed but not loaded" "neuronprof is loaded on this machine"
else
	run "doctor: installed but not loaded -> modprobe" t_doctor_installed
fi
