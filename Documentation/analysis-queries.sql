-- SPDX-License-Identifier: GPL-2.0
--
-- SQL that reproduces the tables of `neuronprof summary` from a database
-- written by `neuronprof export --format sqlite` (Documentation/analysis.rst).
-- Each query starts at a "-- query: NAME" line; tools/tests/run.sh runs every
-- one with the sqlite3 program and compares its rows with `summary --json`.
-- Percentiles are nearest-rank, as in summary: the value at rank
-- ceil(n * p / 100) of the sorted values, computed as (n * p + 99) / 100;
-- n is the count over the whole partition (a window without ORDER BY: with
-- one, count(*) would be a running count).

-- query: cores
-- Per NeuronCore: active span, busy time (the union of its engines' and
-- TopSPs' instructions: each adds what it covers beyond the latest end before
-- it), utilisation, inference time, executions. Where an instruction queue
-- lost entries, over observed time only (Loss windows): busy is the union of
-- the instructions and the windows (clipped to the span) less the union of
-- the windows, utilisation is over the span less the windows, and
-- observed_ns says so (NULL for a core whose instruction queues lost nothing).
WITH times AS (
  SELECT queue_id, ts_ns AS ts FROM entries UNION ALL SELECT queue_id, start_ns FROM instructions
), span AS (
  SELECT q.core_id, min(t.ts) AS first_ns, max(t.ts) AS last_ns
  FROM times t JOIN queues q ON q.id = t.queue_id GROUP BY q.core_id
), inf AS (
  SELECT core_id, count(*) AS n, sum(dur_ns) AS busy, sum(status != 0) AS failed
  FROM inferences GROUP BY core_id
), w AS (
  SELECT lw.core_id, max(lw.start_ns, span.first_ns) AS start_ns,
         min(lw.end_ns, span.last_ns) AS end_ns
  FROM loss_windows lw JOIN span ON span.core_id = lw.core_id
  WHERE lw.queue_type IN ('TRACE', 'TOPSP_TRACE')
), wiv AS (
  SELECT core_id, start_ns, end_ns,
         max(end_ns) OVER (PARTITION BY core_id ORDER BY start_ns, end_ns
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM w WHERE end_ns > start_ns
), unobserved AS (
  SELECT core_id,
         sum(CASE WHEN prev_end IS NULL OR prev_end <= start_ns THEN end_ns - start_ns
                  WHEN prev_end < end_ns THEN end_ns - prev_end ELSE 0 END) AS ns
  FROM wiv GROUP BY core_id
), iv AS (
  SELECT core_id, start_ns, end_ns,
         max(end_ns) OVER (PARTITION BY core_id ORDER BY start_ns, end_ns
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM (SELECT q.core_id, i.start_ns, i.end_ns
        FROM instructions i JOIN queues q ON q.id = i.queue_id WHERE i.end_ns > i.start_ns
        UNION ALL SELECT core_id, start_ns, end_ns FROM w WHERE end_ns > start_ns)
), busy AS (
  SELECT core_id,
         sum(CASE WHEN prev_end IS NULL OR prev_end <= start_ns THEN end_ns - start_ns
                  WHEN prev_end < end_ns THEN end_ns - prev_end ELSE 0 END) AS busy
  FROM iv GROUP BY core_id
)
SELECT rs.value AS recording, d.device_index AS device, c.core,
       (SELECT sum(entry_count) FROM queues WHERE core_id = c.id) AS entries,
       span.first_ns, span.last_ns, span.last_ns - span.first_ns AS span_ns,
       coalesce(inf.n, 0) AS inferences, coalesce(inf.failed, 0) AS inferences_failed,
       coalesce(busy.busy, 0) - coalesce(u.ns, 0) AS busy_ns,
       coalesce(round(100.0 * (coalesce(busy.busy, 0) - coalesce(u.ns, 0)) /
                      nullif(span.last_ns - span.first_ns - coalesce(u.ns, 0), 0), 2), 0)
         AS utilization_pct,
       CASE WHEN EXISTS (SELECT 1 FROM w WHERE w.core_id = c.id)
            THEN span.last_ns - span.first_ns - coalesce(u.ns, 0) END AS observed_ns,
       coalesce(inf.busy, 0) AS inference_busy_ns,
       (SELECT count(*) FROM executions WHERE core_id = c.id) AS executions
FROM cores c
JOIN devices d ON d.id = c.device_id
JOIN recordings r ON r.id = c.recording_id JOIN strings rs ON rs.id = r.path_id
JOIN span ON span.core_id = c.id
LEFT JOIN inf ON inf.core_id = c.id
LEFT JOIN busy ON busy.core_id = c.id
LEFT JOIN unobserved u ON u.core_id = c.id
ORDER BY recording, device, c.core;

-- query: units
-- Per engine and TopSP: instructions (cut ones too) and busy time (the sum
-- of their durations; a cut instruction has none); utilisation over the
-- core's span less the loss windows of the unit's instruction queue, and
-- observed_ns and cut_instructions where it lost any (NULL otherwise).
WITH span AS (
  SELECT q.core_id, min(t.ts) AS first_ns, max(t.ts) AS last_ns, max(t.ts) - min(t.ts) AS span_ns
  FROM (SELECT queue_id, ts_ns AS ts FROM entries UNION ALL SELECT queue_id, start_ns FROM instructions) t
  JOIN queues q ON q.id = t.queue_id GROUP BY q.core_id
), busy AS (
  SELECT q.core_id, q.unit_kind, q.unit_index, count(i.start_ns) AS instructions,
         coalesce(sum(i.dur_ns), 0) AS busy_ns,
         sum(CASE WHEN i.start_ns IS NOT NULL AND i.end_ns IS NULL THEN 1 ELSE 0 END) AS cut
  FROM queues q LEFT JOIN instructions i ON i.queue_id = q.id
  WHERE q.unit_kind IS NOT NULL GROUP BY q.core_id, q.unit_kind, q.unit_index
), w AS (
  SELECT lw.core_id, lw.unit_kind, lw.unit_index, max(lw.start_ns, span.first_ns) AS start_ns,
         min(lw.end_ns, span.last_ns) AS end_ns
  FROM loss_windows lw JOIN span ON span.core_id = lw.core_id
  WHERE lw.queue_type IN ('TRACE', 'TOPSP_TRACE')
), wiv AS (
  SELECT core_id, unit_kind, unit_index, start_ns, end_ns,
         max(end_ns) OVER (PARTITION BY core_id, unit_kind, unit_index ORDER BY start_ns, end_ns
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM w WHERE end_ns > start_ns
), unobserved AS (
  SELECT core_id, unit_kind, unit_index,
         sum(CASE WHEN prev_end IS NULL OR prev_end <= start_ns THEN end_ns - start_ns
                  WHEN prev_end < end_ns THEN end_ns - prev_end ELSE 0 END) AS ns
  FROM wiv GROUP BY core_id, unit_kind, unit_index
)
SELECT rs.value AS recording, d.device_index AS device, c.core, b.unit_kind, b.unit_index,
       b.instructions, b.busy_ns,
       coalesce(round(100.0 * b.busy_ns / nullif(span.span_ns - coalesce(u.ns, 0), 0), 2), 0)
         AS utilization_pct,
       CASE WHEN EXISTS (SELECT 1 FROM w WHERE w.core_id = b.core_id AND
                         w.unit_kind = b.unit_kind AND w.unit_index = b.unit_index)
            THEN span.span_ns - coalesce(u.ns, 0) END AS observed_ns,
       CASE WHEN EXISTS (SELECT 1 FROM w WHERE w.core_id = b.core_id AND
                         w.unit_kind = b.unit_kind AND w.unit_index = b.unit_index)
            THEN b.cut END AS cut_instructions
FROM busy b JOIN cores c ON c.id = b.core_id JOIN devices d ON d.id = c.device_id
JOIN recordings r ON r.id = c.recording_id JOIN strings rs ON rs.id = r.path_id
JOIN span ON span.core_id = c.id
LEFT JOIN unobserved u ON u.core_id = b.core_id AND u.unit_kind = b.unit_kind
  AND u.unit_index = b.unit_index
ORDER BY recording, device, c.core, b.unit_kind, b.unit_index;

-- query: ops
-- Per op of each engine and TopSP: its name (the device's, NULL when it
-- names none), its code, count, total, min, avg, median, p95, max, and its
-- share of the unit's busy time. Instructions cut by a loss (no duration)
-- are left out.
WITH d AS (
  SELECT q.core_id, q.unit_kind, q.queue_type, q.unit_index, i.opcode, i.dur_ns AS dur,
         row_number() OVER (op ORDER BY i.dur_ns) AS rn, count(*) OVER op AS n
  FROM instructions i JOIN queues q ON q.id = i.queue_id WHERE i.dur_ns IS NOT NULL
  WINDOW op AS (PARTITION BY q.core_id, q.unit_kind, q.unit_index, i.opcode)
), unit AS (
  SELECT q.core_id, q.unit_kind, q.unit_index, sum(i.dur_ns) AS busy
  FROM instructions i JOIN queues q ON q.id = i.queue_id WHERE i.dur_ns IS NOT NULL
  GROUP BY q.core_id, q.unit_kind, q.unit_index
)
SELECT rs.value AS recording, dv.device_index AS device, c.core, d.unit_kind, d.unit_index,
       n.name AS op, printf('0x%06x', d.opcode) AS code, count(*) AS count,
       sum(d.dur) AS total_ns, min(d.dur) AS min_ns,
       sum(d.dur) / count(*) AS avg_ns,
       max(CASE WHEN d.rn = (d.n * 50 + 99) / 100 THEN d.dur END) AS median_ns,
       max(CASE WHEN d.rn = (d.n * 95 + 99) / 100 THEN d.dur END) AS p95_ns,
       max(d.dur) AS max_ns,
       coalesce(round(100.0 * sum(d.dur) / nullif(unit.busy, 0), 2), 0) AS busy_pct
FROM d JOIN unit USING (core_id, unit_kind, unit_index)
JOIN cores c ON c.id = d.core_id JOIN devices dv ON dv.id = c.device_id
JOIN recordings r ON r.id = c.recording_id JOIN strings rs ON rs.id = r.path_id
LEFT JOIN code_names n ON n.device_id = c.device_id AND n.queue_type = d.queue_type
  AND n.code = d.opcode
GROUP BY d.core_id, d.unit_kind, d.unit_index, d.opcode
ORDER BY recording, device, c.core, d.unit_kind, d.unit_index, total_ns DESC, code;

-- query: dma
-- DMA transfers and bytes per engine.
SELECT rs.value AS recording, dv.device_index AS device, c.core, dma.engine,
       count(*) AS transfers, sum(dma.bytes) AS bytes
FROM dma JOIN cores c ON c.id = dma.core_id JOIN devices dv ON dv.id = c.device_id
JOIN recordings r ON r.id = c.recording_id JOIN strings rs ON rs.id = r.path_id
GROUP BY dma.core_id, dma.engine
ORDER BY recording, device, c.core, dma.engine;

-- query: models
-- Execution latency per model, and how many executions a host call started.
WITH x AS (
  SELECT c.recording_id, e.model_id, e.latency_ns AS latency, e.failed, e.host_event_id,
         row_number() OVER (m ORDER BY e.latency_ns) AS rn, count(*) OVER m AS n
  FROM executions e JOIN cores c ON c.id = e.core_id
  WINDOW m AS (PARTITION BY c.recording_id, e.model_id)
)
SELECT rs.value AS recording,
       (SELECT m.name FROM models m WHERE m.recording_id = x.recording_id
        AND m.model_id = x.model_id) AS model,
       x.model_id, count(*) AS count, sum(x.failed) AS failed,
       min(x.latency) AS min_ns, sum(x.latency) / count(*) AS avg_ns,
       max(CASE WHEN x.rn = (x.n * 50 + 99) / 100 THEN x.latency END) AS median_ns,
       max(CASE WHEN x.rn = (x.n * 99 + 99) / 100 THEN x.latency END) AS p99_ns,
       max(x.latency) AS max_ns, count(x.host_event_id) AS host_matched
FROM x JOIN recordings r ON r.id = x.recording_id JOIN strings rs ON rs.id = r.path_id
GROUP BY x.recording_id, x.model_id
ORDER BY recording, x.model_id;

-- query: executions
-- Each execution with the host call that started it: the host time before
-- the device started and after it finished.
SELECT rs.value AS recording, dv.device, c.core, e.idx AS "index", e.model_id,
       e.start_ns, e.latency_ns, e.iterations,
       e.start_ns - h.start_ns AS before_ns,
       CASE WHEN h.id IS NULL THEN NULL WHEN h.end_ns > e.end_ns THEN h.end_ns - e.end_ns
            ELSE 0 END AS after_ns
FROM executions e JOIN cores c ON c.id = e.core_id
JOIN (SELECT id, device_index AS device FROM devices) dv ON dv.id = c.device_id
JOIN recordings r ON r.id = c.recording_id JOIN strings rs ON rs.id = r.path_id
LEFT JOIN host_events h ON h.id = e.host_event_id
ORDER BY recording, dv.device, c.core, e.idx;

-- query: throttle
-- Time per throttle level: a level holds until the next THROTTLE entry of
-- its core, the last one until the core's last entry.
WITH last AS (
  SELECT q.core_id, max(t.ts) AS last_ns
  FROM (SELECT queue_id, ts_ns AS ts FROM entries UNION ALL SELECT queue_id, start_ns FROM instructions) t
  JOIN queues q ON q.id = t.queue_id GROUP BY q.core_id
), t AS (
  SELECT core_id, level, ts_ns AS ts, lead(ts_ns) OVER (PARTITION BY core_id ORDER BY ts_ns)
         AS next_ts
  FROM throttle
)
SELECT rs.value AS recording, dv.device_index AS device, c.core, t.level,
       count(*) AS events, sum(coalesce(t.next_ts, last.last_ns) - t.ts) AS time_ns
FROM t JOIN last USING (core_id) JOIN cores c ON c.id = t.core_id
JOIN devices dv ON dv.id = c.device_id
JOIN recordings r ON r.id = c.recording_id JOIN strings rs ON rs.id = r.path_id
GROUP BY t.core_id, t.level
ORDER BY recording, device, c.core, t.level;

-- query: errors
-- Errors of each core (its own and its TopSPs') by code.
SELECT rs.value AS recording, dv.device_index AS device, c.core, e.code, count(*) AS count,
       min(e.ts_ns) AS first_ns
FROM errors e JOIN cores c ON c.id = e.core_id JOIN devices dv ON dv.id = c.device_id
JOIN recordings r ON r.id = c.recording_id JOIN strings rs ON rs.id = r.path_id
GROUP BY e.core_id, e.code
ORDER BY recording, device, c.core, e.code;

-- query: host_events
-- The host system trace per event type.
WITH h AS (
  SELECT h.recording_id, h.name_id, h.dur_ns AS dur, row_number() OVER (t ORDER BY h.dur_ns) AS rn,
         count(*) OVER t AS n
  FROM host_events h
  WINDOW t AS (PARTITION BY h.recording_id, h.name_id)
)
SELECT rs.value AS recording, ns.value AS name, count(*) AS count, sum(h.dur) AS total_ns,
       min(h.dur) AS min_ns, sum(h.dur) / count(*) AS avg_ns,
       max(CASE WHEN h.rn = (h.n * 50 + 99) / 100 THEN h.dur END) AS median_ns,
       max(CASE WHEN h.rn = (h.n * 99 + 99) / 100 THEN h.dur END) AS p99_ns,
       max(h.dur) AS max_ns
FROM h JOIN strings ns ON ns.id = h.name_id
JOIN recordings r ON r.id = h.recording_id JOIN strings rs ON rs.id = r.path_id
GROUP BY h.recording_id, h.name_id
ORDER BY recording, name;

-- query: idle_gaps
-- The longest idle gaps of each core (from the stop of an inference to the
-- start of the next) and of each engine and TopSP (from the end of an
-- instruction to the start of the next of its queue, rows in file order),
-- longest first, ties in time order; 5 each, as summary's default --top.
-- No gap of a unit ends at or starts after an instruction a loss cut (NULL
-- end). at_ns: the gap's start from the core's first timestamp.
WITH g AS (
  SELECT core_id, 'core' AS unit_kind, NULL AS unit_index,
         lag(end_ns) OVER (PARTITION BY core_id ORDER BY start_ns, end_ns) AS start_ns,
         start_ns AS end_ns
  FROM inferences
  UNION ALL
  SELECT core_id, unit_kind, unit_index, start_ns, end_ns FROM (
    SELECT q.core_id, q.unit_kind, q.unit_index,
           lag(i.end_ns) OVER (PARTITION BY i.queue_id ORDER BY i.rowid) AS start_ns,
           i.start_ns AS end_ns, i.end_ns AS own_end
    FROM instructions i JOIN queues q ON q.id = i.queue_id)
  WHERE own_end IS NOT NULL
), ranked AS (
  SELECT *, row_number() OVER (PARTITION BY core_id, unit_kind, unit_index
                               ORDER BY end_ns - start_ns DESC, start_ns) AS rank
  FROM g WHERE end_ns > start_ns
), first AS (
  SELECT q.core_id, min(t.ts) AS first_ns
  FROM (SELECT queue_id, ts_ns AS ts FROM entries UNION ALL SELECT queue_id, start_ns FROM instructions) t
  JOIN queues q ON q.id = t.queue_id GROUP BY q.core_id
)
SELECT rs.value AS recording, dv.device_index AS device, c.core, g.unit_kind, g.unit_index,
       g.rank, g.start_ns, g.end_ns, g.end_ns - g.start_ns AS idle_ns,
       g.start_ns - first.first_ns AS at_ns
FROM ranked g JOIN first USING (core_id) JOIN cores c ON c.id = g.core_id
JOIN devices dv ON dv.id = c.device_id
JOIN recordings r ON r.id = c.recording_id JOIN strings rs ON rs.id = r.path_id
WHERE g.rank <= 5
ORDER BY recording, device, c.core, g.unit_kind, g.unit_index, g.rank;

-- query: losses
-- Each queue that lost entries: what its rings counted (lost) and what its
-- sequence numbers miss (seq_gaps: over consecutive rows of the queue in
-- file order, seq - previous seq - 1 when positive); explained when the
-- gaps are no more than the recorded loss.
WITH s AS (
  SELECT queue_id, seq, lag(seq) OVER (PARTITION BY queue_id ORDER BY rowid) AS prev
  FROM entries
  UNION ALL
  SELECT queue_id, seq, lag(seq) OVER (PARTITION BY queue_id ORDER BY rowid) AS prev
  FROM instructions
  UNION ALL
  SELECT queue_id, seq, lag(seq) OVER (PARTITION BY queue_id ORDER BY rowid) AS prev
  FROM raw_entries
), g AS (
  SELECT queue_id, sum(CASE WHEN seq > prev + 1 THEN seq - prev - 1 ELSE 0 END) AS seq_gaps
  FROM s GROUP BY queue_id
)
SELECT rs.value AS recording, fs.value AS file, q.record, q.records, q.queue_type,
       q.target_kind, q.target_index, q.engine, q.lost_count AS lost,
       coalesce(g.seq_gaps, 0) AS seq_gaps, coalesce(g.seq_gaps, 0) <= q.lost_count AS explained
FROM queues q LEFT JOIN g ON g.queue_id = q.id
JOIN files f ON f.id = q.file_id JOIN strings fs ON fs.id = f.path_id
JOIN recordings r ON r.id = f.recording_id JOIN strings rs ON rs.id = r.path_id
WHERE q.lost_count > 0 OR coalesce(g.seq_gaps, 0) > 0
ORDER BY recording, file, q.record;

-- query: raw_queues
-- Each queue of raw entries (a device whose entries are not decoded): its
-- ring entries, the device entries they hold parts of (consecutive rows of
-- one entry_index count once), what its rings lost and what its sequence
-- numbers miss.
WITH s AS (
  SELECT queue_id, entry_index, seq,
         lag(entry_index) OVER (PARTITION BY queue_id ORDER BY rowid) AS prev_index,
         lag(seq) OVER (PARTITION BY queue_id ORDER BY rowid) AS prev_seq
  FROM raw_entries
), g AS (
  SELECT queue_id, count(*) AS entries,
         sum(prev_index IS NULL OR entry_index != prev_index) AS device_entries,
         sum(CASE WHEN seq > prev_seq + 1 THEN seq - prev_seq - 1 ELSE 0 END) AS seq_gaps
  FROM s GROUP BY queue_id
)
SELECT rs.value AS recording, fs.value AS file, q.record, q.records, q.queue_type,
       q.target_kind, q.target_index, q.engine, d.device_index AS device, c.core,
       d.raw_format AS format, d.clock_domain, coalesce(g.entries, 0) AS entries,
       coalesce(g.device_entries, 0) AS device_entries, q.lost_count AS lost,
       coalesce(g.seq_gaps, 0) AS seq_gaps
FROM queues q LEFT JOIN g ON g.queue_id = q.id
JOIN cores c ON c.id = q.core_id JOIN devices d ON d.id = c.device_id
JOIN files f ON f.id = q.file_id JOIN strings fs ON fs.id = f.path_id
JOIN recordings r ON r.id = f.recording_id JOIN strings rs ON rs.id = r.path_id
WHERE d.raw_format IS NOT NULL
ORDER BY recording, file, q.record;

-- query: loss_windows
-- Where each queue lost entries (the loss_windows view): a sequence gap
-- between the rows around it, or what its rings counted beyond its gaps,
-- after its last row.
SELECT rs.value AS recording, dv.device_index AS device, c.core, lw.queue_type,
       q.target_kind, q.target_index, q.engine, lw.kind, lw.start_ns, lw.end_ns, lw.lost
FROM loss_windows lw JOIN queues q ON q.id = lw.queue_id JOIN cores c ON c.id = lw.core_id
JOIN devices dv ON dv.id = c.device_id
JOIN recordings r ON r.id = c.recording_id JOIN strings rs ON rs.id = r.path_id
ORDER BY recording, device, c.core, lw.queue_id, lw.start_ns;
