# SPDX-License-Identifier: MIT
#
# The tool's tests: export: Perfetto.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# Descriptors: the device (a process), its core, 13 queue tracks, 4 engine
# and TopSP groups, 2 counter tracks, the executions track: 22. Packets:
# the first (clearing the incremental state), 22 descriptors, a begin and
# an end per slice (26 + 1 execution), 9 instants, 2 x 2 counter values.
t_perfetto_protoc() {
	"$np" export --format perfetto -o "$tmp/b.pftrace" "$basic" >/dev/null || return 1
	protoc --decode=perfetto.protos.Trace -I"$repo/proto" "$proto" <"$tmp/b.pftrace" \
		>"$tmp/b.txt" || return 1
	count_is 22 '^  track_descriptor \{' "$tmp/b.txt" &&
	count_is 1 '^    process \{' "$tmp/b.txt" &&
	count_is 27 'type: TYPE_SLICE_BEGIN' "$tmp/b.txt" &&
	count_is 27 'type: TYPE_SLICE_END' "$tmp/b.txt" &&
	count_is 9 'type: TYPE_INSTANT' "$tmp/b.txt" &&
	count_is 4 'type: TYPE_COUNTER' "$tmp/b.txt" &&
	count_is 1 'sequence_flags: 1$' "$tmp/b.txt" &&
	count_is 0 '^    name: "' "$tmp/b.txt" &&
	has 'unit: UNIT_COUNT' "$tmp/b.txt" &&
	has 'unit_name: "%"' "$tmp/b.txt"
	# protoc --decode_raw knows no schema at all: the file is protobuf.
	protoc --decode_raw <"$tmp/b.pftrace" >/dev/null
}
run "export perfetto: protoc decodes, counts, interned names, counter units" t_perfetto_protoc

t_perfetto_python() {
	"$py" -c 'import google.protobuf' || { echo "no python3 with google.protobuf ($py)"; return 1; }
	mkdir -p "$tmp/pb2" &&
	protoc --python_out="$tmp/pb2" -I"$repo/proto" "$proto" || return 1
	check_py perfetto "$tmp/b.pftrace" "$tmp/pb2" packets=90 descriptors=22 processes=1 \
		counters=2 TYPE_SLICE_BEGIN=27 TYPE_SLICE_END=27 TYPE_INSTANT=8 TYPE_COUNTER=4 \
		flows=0 "name:0x000100=2" "name:model 7 execution=1" "track:NeuronCore 0=1" \
		"track:device 0 (trn1 sim)=1" "track:executions=1" \
		"parent:NeuronCore 0>device 0 (trn1 sim)=1" "parent:executions>NeuronCore 0=1" &&
	"$np" export --format perfetto -o "$tmp/p.pftrace" "$prof" >/dev/null &&
	check_py perfetto "$tmp/p.pftrace" "$tmp/pb2" descriptors=43 processes=2 counters=9 \
		threads=2 TYPE_SLICE_BEGIN=41 TYPE_SLICE_END=41 TYPE_INSTANT=12 TYPE_COUNTER=21 \
		flows=1 "flow:nrt_execute>model 7 execution=1" "name:nrt_execute=2" lanes=1
}
run "export perfetto: python protobuf decodes; interned ids, flags, nesting, flows" t_perfetto_python
run "export instructions and DMA transfers: the batch paths (xformat.instrs, .dmas) write the bytes of the slice and instant paths, JSON and Perfetto" \
	"$build/tests/export_instr"
