# SPDX-License-Identifier: MIT
#
# The tool's tests: names: the device's op names and the file's model name.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# named/ (gen_fixtures.c): basic.ntff's entries as a MODEL capture of
# "synthetic_mlp" (id 7) whose device names TRACE 0x100 and 0x101
# "matmult", 0x200 "tensor_tensor", TOPSP_TRACE 0x700 "collective" and DMA
# queue 0 "dma_copy"; every other code has no name and is shown as its
# code only. Every output shows the name beside the code, spelled 0x000102.
named=$fx/named
nfile=$named/synthetic_mlp_vnc_0.ntff
t_names_summary() {
	"$np" summary --ns "$named" >"$tmp/n.txt" &&
	"$np" summary --json "$named" >"$tmp/n.json" || return 1
	grep -Eq '^    0:tensor +matmult +0x000100 +2 ' "$tmp/n.txt" &&
	grep -Eq '^    0:tensor +- +0x000102 +2 ' "$tmp/n.txt" &&
	grep -Eq '^    topsp0 +collective +0x000700 ' "$tmp/n.txt" &&
	grep -Eq '^  1:vector +tensor_tensor +0x000200 +2 ' "$tmp/n.txt" &&
	grep -Eq '^  synthetic_mlp +7 +1 +1 ' "$tmp/n.txt" &&
	grep -Eq '^  0 +0 +synthetic_mlp +7 +0 ' "$tmp/n.txt" ||
		{ echo "text rows without names:"; cat "$tmp/n.txt"; return 1; }
	check_py summary-json "$tmp/n.json" \
		recordings.0.cores.0.engines.0.ops.0.op=matmult \
		recordings.0.cores.0.engines.0.ops.0.code=0x000100 \
		recordings.0.cores.0.engines.0.ops.2.op=None \
		recordings.0.cores.0.engines.0.ops.2.code=0x000102 \
		recordings.0.cores.0.engines.1.ops.0.op=tensor_tensor \
		recordings.0.cores.0.topsps.0.ops.0.op=collective \
		recordings.0.cores.0.topsps.1.ops.0.op=None \
		recordings.0.ops_across_cores.0.op=matmult \
		recordings.0.models.0.model=synthetic_mlp recordings.0.models.0.model_id=7 \
		recordings.0.executions.0.model=synthetic_mlp || return 1
	# The text, CSV and SQL say what the JSON says, names included.
	"$py" "$here/summary_check.py" text "$tmp/n.json" "$tmp/n.txt" || return 1
	rm -rf "$tmp/ncsv" && "$np" summary --csv "$tmp/ncsv" "$named" >/dev/null &&
	"$py" "$here/summary_check.py" csv "$tmp/n.json" "$tmp/ncsv" || return 1
	has ",engine,0,matmult,0x000100,2," "$tmp/ncsv/ops.csv" &&
	has ",engine,0,,0x000102,2," "$tmp/ncsv/ops.csv" &&
	has ",synthetic_mlp,7,1," "$tmp/ncsv/models.csv" &&
	has ",engine,0,matmult,0x000100,2," "$tmp/ncsv/ops_across_cores.csv" || return 1
	# A recording whose device names nothing: "-", null and empty fields.
	"$np" summary --json "$basic" >"$tmp/nb.json" &&
	check_py summary-json "$tmp/nb.json" recordings.0.cores.0.engines.0.ops.0.op=None \
		recordings.0.cores.0.engines.0.ops.0.code=0x000100 recordings.0.models.0.model=None
}
run "names: summary text, JSON and CSV show the device's op names and the model name beside the code" t_names_summary

t_names_dump() {
	"$np" dump "$nfile" >"$tmp/nd.txt" &&
	"$np" dump --json "$nfile" >"$tmp/nd.json" || return 1
	has "  5 code names (the device's)" "$tmp/nd.txt" &&
	has "engine 0 op matmult code 0x000100 model 7 (synthetic_mlp) iter 0 " "$tmp/nd.txt" &&
	has "engine 0 code 0x000102 model 7 (synthetic_mlp) iter 0 " "$tmp/nd.txt" &&
	has "kind model, pid 4242, core 0, model synthetic_mlp (id 7)" "$tmp/nd.txt" || return 1
	# Records: INFER_STATUS, EVENT 0, TRACE 0 (entries 0x100, 0x101, 0x102, ...).
	check_py dump-json "$tmp/nd.json" device.code_names.0.name=matmult \
		device.code_names.0.code=0x000100 device.code_names.0.queue_type=TRACE \
		device.code_names.4.name=collective device.code_names.4.queue_type=TOPSP_TRACE \
		queues.2.entries.0.op=matmult queues.2.entries.0.code=0x000100 \
		queues.2.entries.2.op=None queues.2.entries.2.code=0x000102 \
		queues.2.entries.0.model=synthetic_mlp queues.2.entries.0.model_id=7 \
		queues.0.entries.0.code=0x000001 queues.0.entries.0.op=None || return 1
	# No names in the file: codes only.
	"$np" dump "$basic" >"$tmp/nbd.txt" &&
	has "  0 code names: codes are shown as codes" "$tmp/nbd.txt" &&
	! grep -q " op " "$tmp/nbd.txt"
}
run "names: dump text and JSON name ops and the model, the code spelled 0x000102" t_names_dump

t_names_timeline() {
	"$np" export --format json -o "$tmp/n.tl.json" "$named" >/dev/null &&
	check_py chrome-json "$tmp/n.tl.json" "name:matmult=4" "name:tensor_tensor=2" \
		"name:0x000102=2" "name:collective=2" "name:0x000701=2" \
		"name:synthetic_mlp iteration=2" "name:synthetic_mlp execution=1" \
		"name:dma_copy queue 0=2" "name:dma queue 1=2" "name:model 7 iteration=0" \
		"event:matmult@code:0x000100=2" "event:matmult@code:0x000101=2" \
		"event:0x000102@code:-=2" \
		"event:synthetic_mlp execution@model:synthetic_mlp@model_id:7=1" || return 1
	"$py" -c 'import google.protobuf' || { echo "no python3 with google.protobuf ($py)"; return 1; }
	mkdir -p "$tmp/pb2" &&
	protoc --python_out="$tmp/pb2" -I"$repo/proto" "$proto" || return 1
	"$np" export --format perfetto -o "$tmp/n.pftrace" "$named" >/dev/null &&
	check_py perfetto "$tmp/n.pftrace" "$tmp/pb2" "name:matmult=4" "name:tensor_tensor=2" \
		"name:0x000102=2" "name:collective=2" "name:synthetic_mlp iteration=2" \
		"name:synthetic_mlp execution=1" "name:dma_copy queue 0=2"
}
run "names: JSON and Perfetto timelines name instructions by op, iterations and executions by model" t_names_timeline

# The report names a model as summary and the timelines do: by its
# name, with its id (tool.rst, Conventions).
t_names_report() {
	"$np" report -o "$tmp/n.html" "$named" >/dev/null || return 1
	has "synthetic_mlp (model 7): device latency" "$tmp/n.html" &&
	has "synthetic_mlp (model 7): no nrt_execute host call" "$tmp/n.html" &&
	has "execution 0, synthetic_mlp (model 7): " "$tmp/n.html" &&
	count_is 0 '(>|execution 0, )model 7' "$tmp/n.html"
}
run "names: the report names the model as summary does" t_names_report

t_names_sqlite() {
	rm -f "$tmp/n.db" &&
	"$np" export --format sqlite -o "$tmp/n.db" "$named" >/dev/null || return 1
	[ "$(sqlite3 "$tmp/n.db" 'PRAGMA foreign_key_check')" = "" ] || { echo "foreign keys"; return 1; }
	[ "$(sqlite3 -separator ' ' "$tmp/n.db" "SELECT queue_type, code, code_hex, name FROM code_names
		ORDER BY queue_type, code" | tr '\n' ';')" = \
		"DMA 0 0x000000 dma_copy;TOPSP_TRACE 1792 0x000700 collective;TRACE 256 0x000100 matmult;TRACE 257 0x000101 matmult;TRACE 512 0x000200 tensor_tensor;" ] ||
		{ echo "code_names:"; sqlite3 "$tmp/n.db" 'SELECT * FROM code_names'; return 1; }
	[ "$(sqlite3 -separator ' ' "$tmp/n.db" "SELECT coalesce(op, '-'), code, count(*) FROM instruction_ops
		GROUP BY code ORDER BY code" | tr '\n' ';')" = \
		"matmult 0x000100 2;matmult 0x000101 2;- 0x000102 2;tensor_tensor 0x000200 2;- 0x000201 2;- 0x000202 2;collective 0x000700 2;- 0x000701 2;" ] ||
		{ echo "instruction_ops:"; sqlite3 "$tmp/n.db" 'SELECT op, code, count(*) FROM instruction_ops GROUP BY code'; return 1; }
	[ "$(sqlite3 -separator ' ' "$tmp/n.db" 'SELECT model_id, name FROM models')" = "7 synthetic_mlp" ] ||
		{ echo "models view"; return 1; }
	summary_sql "$named" "$tmp/n.json" "$tmp/n.db"
}
run_if sqlite3 "names: SQLite code_names, instruction_ops and models; the ops and models queries carry the names" t_names_sqlite
