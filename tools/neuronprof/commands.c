// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the subcommands, in the order "neuronprof --help" lists
 * them: the function running each (cmd_<name>.c), its line in that list,
 * and what "neuronprof CMD --help" prints besides the options of the
 * command's own table (options.h), from which its synopsis is made: the
 * operands, other forms of the command, and its description.
 */
#include "tool.h"

const struct subcommand subcommands[] = {
	{
		.fn = cmd_devices,
		.summary = "list neuronprof devices and what they offer",
		.desc = {
			.name = "devices",
			.about = "List the neuronprof devices (DRM render nodes of the neuronprof driver):\n"
				 "node, driver version, architecture, NeuronCores, TopSPs, engines, queue\n"
				 "types per target kind, ring size limits, clock and capabilities. Nodes\n"
				 "this user cannot open are not listed; 'neuronprof doctor' says why.\n",
		},
	},
	{
		.fn = cmd_doctor,
		.summary = "check the kernel modules and device nodes, say how to fix them",
		.desc = {
			.name = "doctor",
			.about = "Check what neuronprof needs: the kernel modules neuronprof and\n"
				 "neuronprof_sim (installed for the running kernel? loaded? with which\n"
				 "parameters?), the DRM render nodes of neuronprof devices and whether this\n"
				 "user may open them. Every problem is printed with what to do about it.\n"
				 "Exit status 0 when nothing is wrong, 1 when a problem was found.\n",
		},
	},
	{
		.fn = cmd_calibrate,
		.summary = "measure a Neuron device's queue entry size and head unit",
		.desc = {
			.name = "calibrate",
			.operands = "[-- COMMAND...]",
			.forms = "calibrate --from LOG [-o REPORT]",
			.about = "Measure the entry size and head unit of the notification queues of a\n"
				 "Neuron device while a workload runs, and print the neuronprof_neuron\n"
				 "parameters to set. Needs root, neuron.ko with the hook and\n"
				 "neuronprof_neuron loaded (Documentation/hardware.rst).\n",
		},
	},
	{
		.fn = cmd_record,
		.summary = "capture a profile on the simulator, or of a command",
		.desc = {
			.name = "record",
			.about = "Without a command: one inspect session on simulated NeuronCores\n"
				 "(neuronprof_sim). A synthetic model is loaded on every chosen core and\n"
				 "executed N times through the library's runtime hooks; everything is written\n"
				 "into the session directory DIR/<instance_id>-<pid>/<session_init_ns>/:\n"
				 "  --mode session  profile_nc_<core>_session_<id>.ntff per core, every execution\n"
				 "  --mode model    <model>_vnc_<id>.ntff per core (the library's interned\n"
				 "                  model id), the first execution only\n"
				 "and, when asked for, the system profile (ntrace.pb and trace_info.pb,\n"
				 "cpu_util.pb, host_mem.pb). The files are read back: entries plus those\n"
				 "counted lost must equal what the simulator produced, per queue type.\n"
				 "With a command: run it with NEURON_RT_INSPECT_ENABLE=1 and the inspect\n"
				 "environment the options set, and exit with its status.\n",
		},
	},
	{
		.fn = cmd_dump,
		.summary = "print an NTFF file: header, metadata, entries",
		.desc = {
			.name = "dump",
			.operands = "FILE",
			.about = "Print an NTFF profile: its header, the capture and device description,\n"
				 "each queue record and its entries.\n",
		},
	},
	{
		.fn = cmd_summary,
		.summary = "per-core and per-engine activity of a profile",
		.desc = {
			.name = "summary",
			.operands = "PATH...",
			.about = "Where the time went, per recording: each PATH is an NTFF file or a\n"
				 "directory, searched recursively; each directory holding profiles (a\n"
				 "session directory) is one recording, summarized on its own, in the order\n"
				 "of the PATHs. Per NeuronCore and\n"
				 "engine: utilisation, busy time, idle gaps; per op: count, total, avg,\n"
				 "median, p95, max and share of the engine's busy time; execution latency\n"
				 "per model and the host's nrt_execute call around each; DMA bytes and\n"
				 "bandwidth; time per throttle level; errors by code; the host system\n"
				 "trace per event type; lost entries and sequence gaps. With recordings of\n"
				 "two machines or more (one directory per host): per machine, their totals\n"
				 "side by side; per execution index, the slowest and fastest machine/core\n"
				 "and the skew; the ops differing most between the slowest machine and the\n"
				 "median one.\n",
		},
	},
	{
		.fn = cmd_diff,
		.summary = "what changed between two recordings, and whether it is real",
		.desc = {
			.name = "diff",
			.operands = "BASE NEW",
			.forms = "diff [options] BASE... -- NEW...",
			.about = "Compare two recordings of one machine, BASE and NEW (each an NTFF file\n"
				 "or a directory, as summary takes them; several PATHs per side with --\n"
				 "between the sides), with summary's numbers: every op per core, engine\n"
				 "and TopSP and across the cores, every model's execution latency, each\n"
				 "core's busy time, utilisation, DMA bytes and errors. For each: both\n"
				 "values, the sample sizes, the change, the change per execution, and for\n"
				 "durations a Mann-Whitney U test (p-values Holm-adjusted over the\n"
				 "comparison) saying whether the change is real. Ranked by the time added\n"
				 "or saved per execution; what one side only has is listed. With a\n"
				 "--fail-above threshold the exit status is 3 when a significant\n"
				 "regression exceeds it, each one named on stderr (a CI gate).\n",
		},
	},
	{
		.fn = cmd_report,
		.summary = "one self-contained HTML page of a profile, with plots",
		.desc = {
			.name = "report",
			.operands = "PATH...",
			.forms = "report --diff [-o FILE] [--top N] BASE NEW",
			.about = "One self-contained HTML page (inline SVG plots, inline script and style,\n"
				 "nothing fetched) of the recordings under each PATH (an NTFF file or a\n"
				 "directory, as summary takes them), with the numbers of summary: per\n"
				 "NeuronCore, utilisation over time per engine and TopSP with the longest\n"
				 "idle gaps, executions, host calls, sequence gaps, throttling and DMA\n"
				 "bandwidth marked; the top ops per unit; execution latency and host\n"
				 "overhead histograms per model; lost entries. Several recordings (several\n"
				 "machines, or several PATHs) are first drawn side by side: busy time and\n"
				 "utilisation per core, execution latency per model, one axis per plot.\n"
				 "The numbers behind every plot are in sortable tables. With --diff,\n"
				 "the comparison of diff BASE NEW: the regressions first, each with its\n"
				 "durations in BASE and NEW side by side on shared axes, then the time\n"
				 "per execution of the ranked rows, the latency of each model, the cores\n"
				 "and every row.\n",
		},
	},
	{
		.fn = cmd_export,
		.summary = "convert a profile to Chrome trace JSON, Perfetto or SQLite",
		.desc = {
			.name = "export",
			.operands = "PATH",
			.about = "Convert a profile (an NTFF file, or a directory searched recursively for\n"
				 ".ntff files and the system profile files ntrace.pb, cpu_util.pb and\n"
				 "host_mem.pb) into a timeline. A file that does not read fails the export;\n"
				 "with --keep-going, in a directory, it is skipped with a warning naming it\n"
				 "and the rest exported (exit status 1).\n"
				 "Recordings of several machines share one timeline by their clock mappings.\n",
			.describe = export_describe,
		},
	},
	{
		.fn = cmd_top,
		.summary = "a live view of a device: utilisation, rates, queues",
		.desc = {
			.name = "top",
			.about = "A live view of a device, refreshed every interval: per core and engine the\n"
				 "utilisation (as summary defines it), instructions/s, inferences/s and their\n"
				 "latency, DMA bandwidth, throttle level and the model id of the last\n"
				 "inference started; per queue the fill and the notifications lost. Rings\n"
				 "are drained whenever they reach a quarter full, as record drains them. It\n"
				 "only observes (no file is written) and gives the queues back when it exits.\n"
				 "On a terminal: a screen that follows resizes; q quits.\n",
		},
	},
	{
		.fn = cmd_exporter,
		.summary = "a device's activity (or a recording's) as Prometheus metrics",
		.desc = {
			.name = "exporter",
			.about = "Publishes a device's activity as Prometheus metrics, per device, core,\n"
				 "engine and queue: busy time, instructions, DMA bytes, inferences, errors,\n"
				 "throttle level, entries delivered and lost, ring fill. The queues are\n"
				 "watched as top watches them; with --replay a recording is published\n"
				 "instead, paced by its timestamps, and once it is over every figure equals\n"
				 "summary's. Metric names and labels: Documentation/analysis.rst.\n",
		},
	},
	{
		.fn = cmd_sim,
		.summary = "run a workload on the simulator (sim run), to watch or record",
		.desc = {
			.name = "sim",
			.usage = "sim run",
			.about = "Runs synthetic programs on NeuronCores of a simulated device\n"
				 "(neuronprof_sim), every chosen core at once, N programs each or back to\n"
				 "back for SEC seconds (SIGINT or SIGTERM ends it after the programs\n"
				 "running), subscribing to nothing: a load for top, exporter and record to\n"
				 "watch. Prints per core the programs, those that raised an error, the\n"
				 "iterations and what the simulator produced into subscribed queues.\n",
		},
	},
};

const size_t nsubcommands = sizeof(subcommands) / sizeof(subcommands[0]);
