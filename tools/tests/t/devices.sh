# SPDX-License-Identifier: MIT
#
# The tool's tests: devices and doctor on this machine.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

t_devices() {
	"$np" devices >"$tmp/dv" || return 1
	"$np" devices --json >"$tmp/dv.json" || return 1
	local nd
	nd=$("$py" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["devices"]))' "$tmp/dv.json") || return 1
	if [ "$nd" -eq 0 ]; then
		has "no neuronprof device found" "$tmp/dv"
	else
		count_is "$nd" '^/dev/dri/renderD[0-9]+: device ' "$tmp/dv"
	fi
}
run "devices: text and JSON agree on the device count" t_devices

t_doctor() {
	local rc
	"$np" doctor --json >"$tmp/dr.json"
	rc=$?
	[ "$rc" -le 1 ] || { echo "exit status $rc"; return 1; }
	check_py doctor-json "$tmp/dr.json" || return 1
	"$py" -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["ok"] == (sys.argv[2] == "0") else 1)' \
		"$tmp/dr.json" "$rc" || { echo "exit status $rc disagrees with ok"; return 1; }
	"$np" doctor >"$tmp/dr"
	[ $? -eq "$rc" ] || { echo "text and JSON runs disagree"; return 1; }
	if [ "$rc" -ne 0 ]; then has "fix: " "$tmp/dr"; else has "no problems found" "$tmp/dr"; fi
}
run "doctor: report parses, every problem has a fix, exit status matches" t_doctor

# The running kernel need not be the one a plain make install builds
# for: the fixes name it (KVER=$(uname -r)), and without its headers
# they offer the VM demo.
t_doctor_missing_tree() {
	local kv
	kv=$(uname -r)
	"$np" doctor --json --module-dir "$tmp/no-modules" >"$tmp/dr.json"
	[ $? -eq 1 ] || { echo "expected exit 1"; return 1; }
	check_py doctor-json "$tmp/dr.json" module_dir_exists=false modules.0.installed=false \
		problems.0.fix="boot a kernel that has its modules installed, or install neuronprof for this one: there are no headers of kernel $kv ($tmp/no-modules/build) to build the modules for it: install linux-headers-$kv, then sudo make install KVER=\$(uname -r) in the neuronprof source tree; or try neuronprof on simulated devices in a VM with make demo"
}
run "doctor: a missing module tree is a problem with a fix" t_doctor_missing_tree
# The text prints each fix once: the three problems of a missing tree
# share the install fix, which the later two refer to.
t_doctor_fix_once() {
	"$np" doctor --module-dir "$tmp/no-modules" >"$tmp/dr"
	[ $? -eq 1 ] || { echo "expected exit 1"; return 1; }
	count_is 1 'fix: .*make install' "$tmp/dr" &&
	count_is 2 '^     fix: the one of 1$' "$tmp/dr" &&
	count_is 3 '^  [0-9]\. ' "$tmp/dr"
}
run "doctor: each fix printed once, later problems refer to it" t_doctor_fix_once

t_doctor_headers_no_modules() {
	local root=$tmp/hdrroot
	mkdir -p "$root/build" && : >"$root/build/Makefile" || return 1
	"$np" doctor --json --module-dir "$root" >"$tmp/dr.json"
	[ $? -eq 1 ] || { echo "expected exit 1"; return 1; }
	check_py doctor-json "$tmp/dr.json" modules.0.installed=false \
		problems.0.problem="the kernel module neuronprof is not installed for kernel $(uname -r)" \
		problems.0.fix="build and install the modules for the running kernel: sudo make install KVER=\$(uname -r) in the neuronprof source tree"
}
run "doctor: with the running kernel's headers, the fix installs for it by name" \
	t_doctor_headers_no_modules

# A Neuron instance (a fake /sys and /proc): each missing piece is one
# problem with its fix, in the order they have to be fixed.
t_doctor_instance() {
	local r=$tmp/instance d
	d=$r/sys/bus/pci/devices/0000:00:1e.0
	rm -rf "$r" && mkdir -p "$d" "$r/proc" && echo 0x1d0f >"$d/vendor" && echo 0x7164 >"$d/device" &&
	printf 'ffffffff00000000 T printk\n' >"$r/proc/kallsyms" || return 1
	NEURONPROF_DOCTOR_ROOT=$r "$np" doctor --json >"$tmp/dr.json"
	check_py doctor-json "$tmp/dr.json" neuron.pci_devices=1 neuron.vendor_loaded=false || return 1
	has '"fix": "install the vendor driver' "$tmp/dr.json" || return 1
	mkdir -p "$r/sys/module/neuron" && echo 2.24.7.0 >"$r/sys/module/neuron/version" || return 1
	NEURONPROF_DOCTOR_ROOT=$r "$np" doctor --json >"$tmp/dr.json"
	check_py doctor-json "$tmp/dr.json" neuron.vendor_version=2.24.7.0 neuron.hook=false || return 1
	has '"fix": "sudo neuronprof-neuron-hook install' "$tmp/dr.json" || return 1
	has 'scripts/neuron-vendor-hook.sh install' "$tmp/dr.json" || return 1
	printf 'ffffffffc0000000 T neuron_nq_hook_register\t[neuron]\n' >>"$r/proc/kallsyms"
	NEURONPROF_DOCTOR_ROOT=$r "$np" doctor >"$tmp/dr"
	has 'neuronprof hook yes' "$tmp/dr" || return 1
	has 'fix: sudo modprobe neuronprof_neuron' "$tmp/dr" || return 1
	mkdir -p "$r/sys/module/neuronprof_neuron"
	NEURONPROF_DOCTOR_ROOT=$r "$np" doctor --json >"$tmp/dr.json"
	check_py doctor-json "$tmp/dr.json" neuron.provider_loaded=true || return 1
	! grep -q 'neuronprof_neuron' <("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["problems"])' "$tmp/dr.json")
}
run "doctor: on a Neuron instance, vendor driver, hook and provider each have their fix" t_doctor_instance
