# SPDX-License-Identifier: MIT
#
# The tool's tests: export: SQLite.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# Every query of Documentation/analysis-queries.sql, run by the sqlite3
# program, gives summary's numbers (tests/summary_check.py sql).
t_sqlite() {
	rm -f "$tmp/p.db" &&
	"$np" export --format sqlite -o "$tmp/p.db" "$prof" >"$tmp/o" || return 1
	has "$tmp/p.db: 58 entries from 2 files, 6 host events, 2 executions: " "$tmp/o" &&
	[ "$(sqlite3 "$tmp/p.db" 'PRAGMA integrity_check')" = ok ] &&
	# Schema 8: every reference a declared foreign key that holds, the
	# integer enums named by their tables.
	[ "$(sqlite3 "$tmp/p.db" 'PRAGMA foreign_key_check')" = "" ] &&
	[ "$(sqlite3 "$tmp/p.db" "SELECT count(*) FROM pragma_foreign_key_list('executions')
		WHERE \"table\" = 'host_events'; SELECT s.name FROM inferences i JOIN statuses s
		USING (status) WHERE i.status != 0; SELECT count(*) FROM host_events h JOIN
		host_event_types t USING (type) JOIN strings n ON n.id = h.name_id WHERE t.name = n.value;
		SELECT value FROM meta WHERE key = 'schema_version'" | tr '\n' ' ')" = \
		"1 NRT_EXEC_COMPLETED_WITH_ERR 6 8 " ] ||
		{ echo "foreign keys or enum tables"; sqlite3 "$tmp/p.db" 'PRAGMA foreign_key_check; SELECT * FROM statuses; SELECT * FROM host_event_types'; return 1; }
	[ "$(sqlite3 "$tmp/p.db" 'SELECT count(*) FROM instructions; SELECT count(*) FROM entries;
		SELECT count(*) FROM recordings; SELECT count(*) FROM host_events;
		SELECT count(*) FROM sqlite_master WHERE type = "index" AND sql IS NOT NULL' | tr '\n' ' ')" = "20 38 2 6 9 " ] ||
		{ echo "unexpected row counts"; return 1; }
	# The rows the export says it wrote are every row of the database,
	# the schema's own (the statuses) included.
	local n=0 t
	for t in $(sqlite3 "$tmp/p.db" "SELECT name FROM sqlite_master WHERE type = 'table'"); do
		n=$((n + $(sqlite3 "$tmp/p.db" "SELECT count(*) FROM \"$t\"")))
	done
	has "executions: $n rows" "$tmp/o" ||
		{ echo "the database holds $n rows:"; cat "$tmp/o"; return 1; }
	summary_sql "$prof" "$tmp/s.json" "$tmp/p.db" || return 1
	rm -f "$tmp/j.db" &&
	"$np" export --format sqlite -o "$tmp/j.db" "$fx/jitter.ntff" >/dev/null &&
	summary_sql "$fx/jitter.ntff" "$tmp/sj.json" "$tmp/j.db"
}
run_if sqlite3 "export sqlite: the documented queries reproduce summary --json" t_sqlite
