#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: the whole stack on the simulator, end to end.
#
#  1. make modules lib tools (which first runs `make deps`);
#  2. boots the Debian kernel in a QEMU VM with the modules
#     (scripts/vm-run.sh), loads the simulator (modprobe neuronprof_sim
#     arch=trn2: one trn2 device, 8 NeuronCores) and runs there
#       neuronprof devices
#       neuronprof record --mode session ...   SESSION capture
#       neuronprof record --mode model ...     MODEL capture
#     each with the system profile (host trace, CPU utilisation, host
#     memory). A core is captured by one inspect session at a time and a
#     session has one device profile mode, so these are two recordings;
#  3. brings the guest's /out back as DEMO_OUT (default ./demo-output):
#       session/<instance>-<pid>/<session_ns>/profile_nc_<n>_session_<id>.ntff
#       model/<instance>-<pid>/<session_ns>/<model>_vnc_<id>.ntff
#     each next to ntrace.pb, trace_info.pb, cpu_util.pb, host_mem.pb;
#  4. on the host: `neuronprof summary --brief --top 5` of each recording
#     (where the time went, one screen each: a row per core, the ops across
#     cores, executions, the host trace: Documentation/analysis.rst), then
#     one timeline of both
#     (device profiles and system profiles) exported as
#     DEMO_OUT/profile.pftrace (Perfetto) and DEMO_OUT/profile.json (Chrome
#     JSON), and both as the SQLite database DEMO_OUT/profile.db, queried
#     with sqlite3 for the ops that took the most time in each recording
#     (never the two added together); and both recordings
#     as one self-contained HTML page, DEMO_OUT/report.html (neuronprof
#     report: plots and tables, nothing fetched).
#
# Environment: DEMO_SHORT=1 (2 cores, 2 executions of 2 iterations, for
# `make check`; default: 8 cores, 3 executions of 4 iterations), DEMO_OUT,
# NPROF_JOBS (make -j, default 2), MAKE, VM_TIMEOUT (default 600).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
MAKE=${MAKE:-make}
out=${DEMO_OUT:-$repo/demo-output}
case $out in /*) ;; *) out=$PWD/$out ;; esac
# Paths as printed: relative to the current directory when below it.
show=${out#"$PWD"/}
np=$repo/tools/build/neuronprof

if [ "${DEMO_SHORT:-0}" = 1 ]; then
	cores=0-1 executions=2 iterations=2
else
	cores=all executions=3 iterations=4
fi
model=synthetic_mlp

step() {
	printf '\n==> %s\n' "$*"
}

step "building modules, library and tool (make modules lib tools)"
"$MAKE" -C "$repo" --no-print-directory -j"${NPROF_JOBS:-2}" modules lib tools

# The guest's half. Each step's status is kept so every step runs and the
# VM's exit status says whether all of them worked.
guest=$(mktemp "${TMPDIR:-/tmp}/nprof-demo-guest.XXXXXX")
trap 'rm -f "$guest"' EXIT
cat >"$guest" <<EOF
np=/tool/neuronprof
rc=0
cd /tmp
run() {
	echo
	echo "guest\\\$ \$*"
	"\$@" || { echo "(exit status \$?)"; rc=1; }
}
run modprobe neuronprof_sim arch=trn2
run \$np devices
run \$np record --mode session --cores $cores --executions $executions \\
	--iterations $iterations --throttle --system-profile --cpu-util --host-memory \\
	-o /out/session
run \$np record --mode model --model-name $model --model-id 2 --cores $cores \\
	--executions $executions --iterations $iterations --system-profile --cpu-util \\
	--host-memory -o /out/model
exit \$rc
EOF

step "booting the simulator VM (scripts/vm-run.sh; QEMU, Debian kernel $(bash "$here/kver.sh" 2>/dev/null || echo '?'))"
# Only a directory an earlier demo made is replaced.
if [ -e "$out" ] && [ ! -e "$out/.neuronprof-demo" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	echo "demo: $out exists and was not written by the demo; set DEMO_OUT or remove it" >&2
	exit 1
fi
rm -rf "$out"
mkdir -p "$out"
: >"$out/.neuronprof-demo"
if ! bash "$here/vm-run.sh" --timeout "${VM_TIMEOUT:-600}" --outdir "$out" \
	--file "$np:/tool/neuronprof" --file "$guest:/tool/demo.sh" -- sh /tool/demo.sh; then
	echo "demo: the run in the VM failed (see above)" >&2
	exit 1
fi

step "summary of the SESSION recording (neuronprof summary --brief --top 5 $show/session)"
"$np" summary --brief --top 5 "$show/session"
step "summary of the MODEL recording (neuronprof summary --brief --top 5 $show/model)"
"$np" summary --brief --top 5 "$show/model"

step "both recordings as one HTML page (neuronprof report -o $show/report.html $show)"
"$np" report -o "$show/report.html" "$show"

step "exporting both recordings and their system profiles into one timeline"
"$np" export --format perfetto -o "$show/profile.pftrace" "$show"
"$np" export --format json -o "$show/profile.json" "$show"

step "both recordings as an SQLite database, and the ops that took the most time in each"
"$np" export --format sqlite -o "$show/profile.db" "$show"
if command -v sqlite3 >/dev/null; then
	# Per recording (a SESSION and a MODEL capture of the same cores are
	# never added together): its 3 ops with the most time over all cores.
	sqlite3 -header -column "$show/profile.db" \
		"WITH ops AS (
		   SELECT c.recording_id AS rec, i.unit_kind || ' ' || i.unit_index AS unit,
		          coalesce(i.op, '-') AS op, i.code, count(*) AS count,
		          sum(i.dur_ns) AS total_ns, sum(i.dur_ns) / count(*) AS avg_ns,
		          count(DISTINCT i.core_id) AS cores
		   FROM instruction_ops i JOIN cores c ON c.id = i.core_id
		   GROUP BY c.recording_id, i.unit_kind, i.unit_index, i.opcode),
		 ranked AS (SELECT *, row_number() OVER (PARTITION BY rec ORDER BY total_ns DESC,
		                                         unit, code) AS rank FROM ops)
		 SELECT (SELECT f.capture_kind FROM files f WHERE f.recording_id = rec LIMIT 1)
		        AS recording, rank, unit, op, code, count, total_ns, avg_ns, cores
		 FROM ranked WHERE rank <= 3 ORDER BY rec, rank"
fi

step "done"
echo "profiles:  $show/session/ (SESSION), $show/model/ (MODEL)"
echo "timeline:  $show/profile.pftrace (Perfetto), $show/profile.json (Chrome JSON)"
echo "database:  $show/profile.db (SQLite; Documentation/analysis.rst has the schema and queries)"
echo "report:    $show/report.html (open it in a browser; it fetches nothing)"
echo "Open $show/profile.pftrace at https://ui.perfetto.dev (Open trace file)."
