# SPDX-License-Identifier: MIT
#
# The tool's tests: core lists (--cores of record and sim run), read by the
# library's one core-list parser (lib/src/util/parse.c) with "all" and the
# hint on what a list looks like added by the tool (util/util.c).
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

hint="\(expected a list like 0,2-3, or all\)"
# A list that is read lets parsing go on to the next option, whose error
# (options are read in order) shows the list was accepted.
for cmd in "record" "sim run"; do
	for list in all 0 0-3,8 3-3,1,255; do
		# shellcheck disable=SC2086 # $cmd is the command and its subcommand
		run "$cmd --cores $list: read" \
			expect_exit 2 "--iterations: 0 is out of range" \
			"$np" $cmd --cores "$list" --iterations 0
	done
	# shellcheck disable=SC2086
	{
	run "$cmd --cores 0-x: the element named, the list quoted, the form hinted" \
		expect_exit 2 "--cores: bad core index 'x' in '0-x' $hint" "$np" $cmd --cores 0-x
	run "$cmd --cores 0,,1: the empty element named" \
		expect_exit 2 "--cores: empty element in '0,,1' $hint" "$np" $cmd --cores 0,,1
	run "$cmd --cores '': an empty list named" \
		expect_exit 2 "--cores: empty core list $hint" "$np" $cmd --cores ''
	run "$cmd --cores 3-1: the reversed range named" \
		expect_exit 2 "--cores: range '3-1' is reversed in '3-1' $hint" "$np" $cmd --cores 3-1
	run "$cmd --cores -1: a sign is no index" \
		expect_exit 2 "--cores: bad core index '' in '-1' $hint" "$np" $cmd --cores -1
	run "$cmd --cores 0,256: the range of indexes named" \
		expect_exit 2 "--cores: core index 256 is out of range \[0, 255\] in '0,256'$" \
		"$np" $cmd --cores 0,256
	run "$cmd --cores ALL: only 'all' in lower case is every core" \
		expect_exit 2 "--cores: bad core index 'ALL' in 'ALL' $hint" "$np" $cmd --cores ALL
	}
done
