#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# neuronprof exporter scraped by a real Prometheus, run by tests/run.sh:
#   tests/prometheus.sh BUILD_DIR WORK_DIR RECORDING
# Starts, on 127.0.0.1 and free ports, all owned by this script and
# stopped by it on every exit (trap):
#   - `neuronprof exporter --replay RECORDING` paced so that the replay
#     takes about 4 s (its first to last timestamp over 4 s), publishing
#     every 200 ms both to WORK_DIR/textfile/neuronprof.prom and on
#     http://127.0.0.1:PORT/metrics;
#   - Debian's prometheus-node-exporter with only the textfile collector,
#     reading WORK_DIR/textfile;
#   - Debian's prometheus with a generated configuration scraping both
#     every second (jobs "neuronprof" and "node"), its TSDB in WORK_DIR.
# Then waits until Prometheus has scraped the end of the replay through
# both paths (neuronprof_exporter_replay_progress_ratio 1 in each job)
# and asks it, through /api/v1/query, for every figure
# `neuronprof summary --json RECORDING` gives per core, engine and TopSP
# (tests/prom_check.py query): busy time, inferences, errors, entries
# delivered and lost, instructions, DMA transfers and bytes, in both jobs;
# checks that no counter went down between scrapes (resets() is 0 for
# every neuronprof_*_total series), that `promtool check metrics` accepts
# what /metrics served and the textfile, that /metrics is served as text
# format 0.0.4 and another path is 404.
# Prints what failed and exits 1, or exits 0.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: prometheus.sh BUILD_DIR WORK_DIR RECORDING}" && pwd)
work=${2:?usage: prometheus.sh BUILD_DIR WORK_DIR RECORDING}
rec=${3:?usage: prometheus.sh BUILD_DIR WORK_DIR RECORDING}
np=$build/neuronprof
py=/usr/bin/python3
PROMETHEUS=${PROMETHEUS:-/usr/bin/prometheus}
NODE_EXPORTER=${NODE_EXPORTER:-/usr/bin/prometheus-node-exporter}
PROMTOOL=${PROMTOOL:-/usr/bin/promtool}

rm -rf "$work"
mkdir -p "$work/textfile" "$work/tsdb" || exit 1
pids=()
stop_all() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	pids=()
}
trap stop_all EXIT

failed=0
fail() {
	echo "FAIL: $*"
	failed=1
}

# Three free ports, asked of the kernel at once so that they differ.
read -r p_exp p_node p_prom < <("$py" -c '
import socket
s = [socket.socket() for _ in range(3)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])
') || { echo "FAIL: no free ports"; exit 1; }

"$np" summary --json "$rec" >"$work/summary.json" || { echo "FAIL: summary $rec"; exit 1; }
# Pace: the recording's span over 4 s.
speed=$("$py" -c '
import json, sys
c = json.load(open(sys.argv[1]))["recordings"][0]["cores"]
span = max(x["last_ns"] for x in c) - min(x["first_ns"] for x in c)
print(max(span, 1) / 4e9)
' "$work/summary.json") || exit 1

"$np" exporter --replay "$rec" --replay-speed "$speed" --interval 200 \
	--textfile "$work/textfile/neuronprof.prom" --listen "127.0.0.1:$p_exp" \
	>"$work/exporter.out" 2>"$work/exporter.err" &
pids+=($!)
"$NODE_EXPORTER" --web.listen-address="127.0.0.1:$p_node" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$work/textfile" \
	>"$work/node.log" 2>&1 &
pids+=($!)
cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: neuronprof
    static_configs:
      - targets: ['127.0.0.1:$p_exp']
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$p_node']
YML
"$PROMETHEUS" --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
	--web.listen-address="127.0.0.1:$p_prom" >"$work/prometheus.log" 2>&1 &
pids+=($!)
url=http://127.0.0.1:$p_prom

# The replay is over and both paths have delivered its end.
for job in neuronprof node; do
	"$py" "$here/prom_check.py" wait "$url" \
		"neuronprof_exporter_replay_progress_ratio{job=\"$job\"}" 60 ||
		fail "job $job never reached the end of the replay"
done
if [ "$failed" = 0 ]; then
	for job in neuronprof node; do
		"$py" "$here/prom_check.py" query "$url" "$job" "$work/summary.json" ||
			fail "job $job: Prometheus's figures are not summary's"
	done
	# No counter went down between scrapes, in either path (and there were several).
	"$py" "$here/prom_check.py" resets "$url" || fail "a counter went down between scrapes"
	"$py" "$here/prom_check.py" wait "$url" \
		'count_over_time(neuronprof_exporter_publications_total{job="neuronprof"}[5m]) > bool 2' 10 ||
		fail "fewer than 3 scrapes of the exporter"
fi

# The exposition, through both paths, as promtool sees it.
curl -sS -D "$work/headers" -o "$work/metrics.txt" "http://127.0.0.1:$p_exp/metrics" ||
	fail "GET /metrics"
grep -qi '^content-type: text/plain; version=0.0.4' "$work/headers" ||
	fail "/metrics is not text/plain; version=0.0.4: $(grep -i content-type "$work/headers")"
"$PROMTOOL" check metrics <"$work/metrics.txt" >"$work/promtool-http" 2>&1 ||
	fail "promtool check metrics on /metrics: $(cat "$work/promtool-http")"
"$PROMTOOL" check metrics <"$work/textfile/neuronprof.prom" >"$work/promtool-file" 2>&1 ||
	fail "promtool check metrics on the textfile: $(cat "$work/promtool-file")"
"$py" "$here/prom_check.py" expo "$work/metrics.txt" "$work/summary.json" ||
	fail "/metrics does not carry summary's figures"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p_exp/other")
[ "$code" = 404 ] || fail "GET /other: $code, expected 404"

if [ "$failed" != 0 ]; then
	for f in exporter.err node.log prometheus.log; do
		echo "--- $f"
		tail -n 20 "$work/$f"
	done
fi
stop_all
exit "$failed"
