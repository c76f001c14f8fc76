# SPDX-License-Identifier: MIT
#
# The tool's tests: end to end in a VM: record on the simulator.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

if [ -n "$label" ]; then
	return	# the sanitizer build runs the host tests only
elif [ "${NPROF_SKIP_VM:-0}" = 1 ]; then
	skip_test "record in a VM on neuronprof_sim" "NPROF_SKIP_VM=1"
elif [ ! -f "$ko_core" ] || [ ! -f "$ko_sim" ]; then
	skip_test "record in a VM on neuronprof_sim" "modules not built (make modules)"
elif ! command -v "${QEMU:-qemu-system-x86_64}" >/dev/null; then
	skip_test "record in a VM on neuronprof_sim" "no QEMU"
else
	# vm_test SCRIPT: tests/SCRIPT.sh, its log's tail if it fails.
	vm_test() {
		bash "$here/$1.sh" "$build" "$tmp/$1" >"$tmp/$1.log" 2>&1 ||
			{ tail -n 60 "$tmp/$1.log"; return 1; }
	}
	run "record in a VM: devices, doctor, record, summary, export (see vm.sh)" vm_test vm
	run "recordings in a VM equal the simulator's device-time model (see vm_model.sh)" \
		vm_test vm_model
	run "top beside sim_run in a VM loses nothing (see vm_top.sh)" vm_test vm_top
	run "record --executions 100-110 of 200 holds exactly those; --control enables and disables twice; --iterations 2-4 (see vm_capture.sh)" \
		vm_test vm_capture
	run "exporter beside sim_run in a VM: entries delivered as produced, none lost, promtool accepts both outputs (see vm_exporter.sh)" \
		vm_test vm_exporter
	run "record, top and exporter on the same queues in a VM, each delivered + lost = produced; rings refused up front; a freed queue taken back (see vm_fanout.sh)" \
		vm_test vm_fanout
	run "record -- CMD bounded: --max-size, a full disk, --switch-output with --switch-max-files (see vm_limits.sh)" vm_test vm_limits
	run "record -z and --compression-level: NTFF major 4, read back exactly, within --max-size; the same outputs as a plain copy (see vm_zstd.sh)" \
		vm_test vm_zstd
fi
