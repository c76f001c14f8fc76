-- SPDX-License-Identifier: MIT
--
-- Views comparing two databases written by `neuronprof export --format
-- sqlite`, as `neuronprof diff BASE NEW` compares the recordings
-- (Documentation/analysis.rst, "Comparing two recordings"). Open the BASE
-- database, attach the NEW one as "new", then run this file:
--
--   sqlite3 base.sqlite
--   sqlite> ATTACH 'new.sqlite' AS new;
--   sqlite> .read analysis-diff.sql
--   sqlite> SELECT * FROM diff_tests ORDER BY abs(change_per_execution_ns) DESC;
--
-- The views are TEMP (a view of one database cannot name another). All the
-- recordings of a database are one side, as all the files of a side are for
-- diff; cores are matched by device index and core number.
--
-- diff_tests: one row per op of each engine and TopSP of each core (kind
-- 'op'), per op across the cores ('op_all') and per model's execution
-- latency ('latency'): on each side n, total, mean, median and p95
-- (nearest rank, as summary), the executions the time per execution
-- divides by (the core's; of the cores that ran the op; the model's) and
-- that time; the Mann-Whitney U of BASE from the ranks of both sides
-- (ties: their mean rank), U's mean, and its variance corrected for ties.
-- z = (|u - u_mean| - 0.5) / sqrt(u_var), p = erfc(|z| / sqrt(2)); the
-- Holm adjustment over the rows tested (both sides with 8 samples or more)
-- is left to the caller (neuronprof.diff() in the Python package does it).
-- The file is python/neuronprof/diff.py's VIEWS, which the tests check.

DROP VIEW IF EXISTS temp.diff_tests;
DROP VIEW IF EXISTS temp.diff_samples;
DROP VIEW IF EXISTS temp.diff_executions;
DROP VIEW IF EXISTS temp.diff_instructions;

CREATE TEMP VIEW diff_instructions AS
SELECT 0 AS side, dv.device_index AS device, c.core, q.unit_kind, q.unit_index, i.opcode,
       i.dur_ns
FROM main.instructions i JOIN main.queues q ON q.id = i.queue_id
JOIN main.cores c ON c.id = q.core_id JOIN main.devices dv ON dv.id = c.device_id
UNION ALL
SELECT 1, dv.device_index, c.core, q.unit_kind, q.unit_index, i.opcode, i.dur_ns
FROM new.instructions i JOIN new.queues q ON q.id = i.queue_id
JOIN new.cores c ON c.id = q.core_id JOIN new.devices dv ON dv.id = c.device_id;

CREATE TEMP VIEW diff_executions AS
SELECT 0 AS side, dv.device_index AS device, c.core, e.model_id, e.latency_ns
FROM main.executions e JOIN main.cores c ON c.id = e.core_id
JOIN main.devices dv ON dv.id = c.device_id
UNION ALL
SELECT 1, dv.device_index, c.core, e.model_id, e.latency_ns
FROM new.executions e JOIN new.cores c ON c.id = e.core_id
JOIN new.devices dv ON dv.id = c.device_id;

CREATE TEMP VIEW diff_samples AS
SELECT 'op' AS kind, side, device, core, unit_kind, unit_index, opcode AS code,
       NULL AS model_id, dur_ns AS v
FROM diff_instructions
UNION ALL
SELECT 'op_all', side, NULL, NULL, unit_kind, unit_index, opcode, NULL, dur_ns
FROM diff_instructions
UNION ALL
SELECT 'latency', side, NULL, NULL, NULL, NULL, NULL, model_id, latency_ns
FROM diff_executions;

CREATE TEMP VIEW diff_tests AS
WITH r AS (
  SELECT kind, side, device, core, unit_kind, unit_index, code, model_id, v,
         rank() OVER (k ORDER BY v) AS rk,
         count(*) OVER (PARTITION BY kind, device, core, unit_kind, unit_index, code,
                        model_id, v) AS t,
         row_number() OVER (PARTITION BY kind, device, core, unit_kind, unit_index, code,
                            model_id, side ORDER BY v) AS rn,
         count(*) OVER (PARTITION BY kind, device, core, unit_kind, unit_index, code,
                        model_id, side) AS n
  FROM diff_samples
  WINDOW k AS (PARTITION BY kind, device, core, unit_kind, unit_index, code, model_id)
), g AS (
  SELECT kind, device, core, unit_kind, unit_index, code, model_id,
         sum(side = 0) AS base_n, sum(side = 1) AS new_n,
         sum(CASE WHEN side = 0 THEN v END) AS base_total,
         sum(CASE WHEN side = 1 THEN v END) AS new_total,
         max(CASE WHEN side = 0 AND rn = (n * 50 + 99) / 100 THEN v END) AS base_median_ns,
         max(CASE WHEN side = 1 AND rn = (n * 50 + 99) / 100 THEN v END) AS new_median_ns,
         max(CASE WHEN side = 0 AND rn = (n * 95 + 99) / 100 THEN v END) AS base_p95_ns,
         max(CASE WHEN side = 1 AND rn = (n * 95 + 99) / 100 THEN v END) AS new_p95_ns,
         sum(CASE WHEN side = 0 THEN rk + (t - 1) / 2.0 END) AS base_rank_sum,
         sum(t * t - 1) AS ties
  FROM r GROUP BY kind, device, core, unit_kind, unit_index, code, model_id
), core_execs AS (
  SELECT side, device, core, count(*) AS executions FROM diff_executions
  GROUP BY side, device, core
), op_cores AS (
  SELECT DISTINCT side, device, core, unit_kind, unit_index, opcode FROM diff_instructions
), op_all_execs AS (
  SELECT o.side, o.unit_kind, o.unit_index, o.opcode,
         sum(coalesce(x.executions, 0)) AS executions
  FROM op_cores o LEFT JOIN core_execs x
    ON x.side = o.side AND x.device = o.device AND x.core = o.core
  GROUP BY o.side, o.unit_kind, o.unit_index, o.opcode
), e AS (
  SELECT g.*,
         CASE g.kind WHEN 'latency' THEN g.base_n
           WHEN 'op' THEN (SELECT coalesce(sum(x.executions), 0) FROM core_execs x
                           WHERE x.side = 0 AND x.device = g.device AND x.core = g.core)
           ELSE (SELECT a.executions FROM op_all_execs a WHERE a.side = 0
                 AND a.unit_kind = g.unit_kind AND a.unit_index = g.unit_index
                 AND a.opcode = g.code) END AS base_executions,
         CASE g.kind WHEN 'latency' THEN g.new_n
           WHEN 'op' THEN (SELECT coalesce(sum(x.executions), 0) FROM core_execs x
                           WHERE x.side = 1 AND x.device = g.device AND x.core = g.core)
           ELSE (SELECT a.executions FROM op_all_execs a WHERE a.side = 1
                 AND a.unit_kind = g.unit_kind AND a.unit_index = g.unit_index
                 AND a.opcode = g.code) END AS new_executions
  FROM g
)
SELECT kind, device, core, unit_kind, unit_index,
       CASE WHEN code IS NOT NULL THEN printf('0x%06x', code) END AS code, model_id,
       base_n, new_n, base_total, new_total,
       1.0 * base_total / nullif(base_n, 0) AS base_mean_ns,
       1.0 * new_total / nullif(new_n, 0) AS new_mean_ns,
       base_median_ns, new_median_ns, base_p95_ns, new_p95_ns,
       CASE WHEN base_n > 0 THEN base_executions END AS base_executions,
       CASE WHEN new_n > 0 THEN new_executions END AS new_executions,
       CASE WHEN base_n > 0 THEN 1.0 * base_total / coalesce(nullif(base_executions, 0), 1)
         END AS base_per_execution_ns,
       CASE WHEN new_n > 0 THEN 1.0 * new_total / coalesce(nullif(new_executions, 0), 1)
         END AS new_per_execution_ns,
       coalesce(1.0 * new_total / coalesce(nullif(new_executions, 0), 1), 0) -
         coalesce(1.0 * base_total / coalesce(nullif(base_executions, 0), 1), 0)
         AS change_per_execution_ns,
       CASE WHEN base_n > 0 AND new_n > 0 THEN base_rank_sum - base_n * (base_n + 1) / 2.0
         END AS u,
       base_n * new_n / 2.0 AS u_mean,
       CASE WHEN base_n + new_n > 1 THEN base_n * new_n / 12.0 *
         ((base_n + new_n + 1) - ties / (1.0 * (base_n + new_n) * (base_n + new_n - 1)))
         END AS u_var
FROM e;
