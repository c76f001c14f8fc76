/* SPDX-License-Identifier: MIT */
/*
 * neuronprof exporter's parts (cmd_exporter.c parses its options and runs
 * one of them): the metric families and their labels
 * (exporter_metrics.c), publishing them to the textfile and the HTTP
 * endpoint (exporter_publish.c), and the two sources, a device watched
 * live (exporter_live.c) and a recording replayed (exporter_replay.c).
 */
#ifndef NEURONPROF_TOOL_EXPORTER_H
#define NEURONPROF_TOOL_EXPORTER_H

#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "util/prom.h"

#define EXPORTER_LISTEN_DEFAULT	"127.0.0.1:9474"
#define EXPORTER_INTERVAL_MIN	100
/*
 * Between two wake-ups at least this long: a device wakes the readers of
 * every queue of a core at the end of each execution, and taking each
 * wake-up as it comes cost the exporter 3.5% of a core at the demo's load,
 * against 1.3 to 1.5% with 50 ms (bench/exporter_overhead.sh, in a VM
 * under KVM).
 * A ring still has 3/4 of its size free when
 * its watermark wakes the exporter: 192 KiB, 3072 entries of 64 bytes in
 * the default 256 KiB ring, so a queue loses nothing below 61,000 entries a
 * second (a 1M ring: 245,000); whatever it loses is counted in
 * neuronprof_queue_lost_entries_total, and only this exporter's ring loses
 * it: record and top on the same queue have their own.
 */
#define EXPORTER_DRAIN_GAP_MS	50

/*
 * The metric families, in the order of their F_ values (the list of
 * Documentation/analysis.rst): X(id, name, type, unit, help) each, from
 * which the enum of their ids and families[] (exporter_metrics.c) are made.
 */
#define EXPORTER_FAMILIES(X) \
	X(F_ENGINE_BUSY, "neuronprof_engine_busy_seconds_total", PROM_COUNTER, PROM_NS_AS_SECONDS, \
	  "Time the engine (or TopSP) spent in instructions (summary's busy time).") \
	X(F_ENGINE_INSTR, "neuronprof_engine_instructions_total", PROM_COUNTER, PROM_INT, \
	  "Instructions (TRACE entries) the engine (or TopSP) executed.") \
	X(F_ENGINE_DMA, "neuronprof_engine_dma_transfers_total", PROM_COUNTER, PROM_INT, \
	  "DMA transfers (DMA entries) of the engine.") \
	X(F_ENGINE_DMA_BYTES, "neuronprof_engine_dma_bytes_total", PROM_COUNTER, PROM_INT, \
	  "Bytes the engine's DMA transfers moved.") \
	X(F_CORE_BUSY, "neuronprof_core_busy_seconds_total", PROM_COUNTER, PROM_NS_AS_SECONDS, \
	  "Time the NeuronCore had any engine in an instruction (the union of its engines' busy time).") \
	X(F_CORE_INFER, "neuronprof_core_inferences_total", PROM_COUNTER, PROM_INT, \
	  "Inferences (INFER_STATUS start/stop pairs) the NeuronCore completed.") \
	X(F_CORE_ERRORS, "neuronprof_core_errors_total", PROM_COUNTER, PROM_INT, \
	  "Error notifications of the NeuronCore and its TopSPs.") \
	X(F_CORE_THROTTLE, "neuronprof_core_throttle_level", PROM_GAUGE, PROM_INT, \
	  "The NeuronCore's last throttle level (0: not throttled).") \
	X(F_QUEUE_ENTRIES, "neuronprof_queue_entries_total", PROM_COUNTER, PROM_INT, \
	  "Entries the queue delivered to the exporter.") \
	X(F_QUEUE_LOST, "neuronprof_queue_lost_entries_total", PROM_COUNTER, PROM_INT, \
	  "Entries the queue lost because its ring was full.") \
	X(F_QUEUE_GAPS, "neuronprof_queue_sequence_gaps_total", PROM_COUNTER, PROM_INT, \
	  "Sequence numbers the queue's entries skip (entries that vanished, counted or not).") \
	X(F_QUEUE_FILL, "neuronprof_queue_ring_fill_ratio", PROM_GAUGE, PROM_REAL, \
	  "Highest fill of the queue's ring seen before a drain in the last interval (0 to 1).") \
	X(F_QUEUE_CAPTURED, "neuronprof_queue_captured_elsewhere", PROM_GAUGE, PROM_INT, \
	  "1 while the queue has as many subscribers as it takes, so the exporter does not see it (it subscribes once one is freed).") \
	X(F_REPLAY_PROGRESS, "neuronprof_exporter_replay_progress_ratio", PROM_GAUGE, PROM_REAL, \
	  "Share of the recording's changes of these metrics replayed so far (1: the replay is over).") \
	X(F_PUBLICATIONS, "neuronprof_exporter_publications_total", PROM_COUNTER, PROM_INT, \
	  "Times the exporter has published its metrics.")

enum {
#define FAMILY_ID(id, name, type, unit, help)	id,
	EXPORTER_FAMILIES(FAMILY_ID)
#undef FAMILY_ID
	F_COUNT
};

/* The metric families, indexed by the F_ values. */
extern const struct prom_family families[F_COUNT];

/* The engine label of a queue: its engine, its TopSP, or none (NULL). */
const char *queue_engine_label(uint32_t kind, uint32_t type, uint32_t index, uint32_t engine,
			       char *buf, size_t len);

/* The unit label of an engine or a TopSP. */
const char *prom_unit_label(bool topsp, uint32_t index, char *buf, size_t len);

/* @src in lower case into @dst (@len bytes). */
void label_lower(char *dst, const char *src, size_t len);

struct exporter {
	struct prom prom;
	const char *textfile;
	bool http;
	struct MHD_Daemon *mhd;
	pthread_mutex_t lock;		/* guards body */
	char *body;			/* the last exposition */
	size_t body_len;
	uint64_t publications, count, interval_ns;
	size_t s_publications;
	bool textfile_failing;
};

/* Set by SIGINT and SIGTERM (exporter_on_quit()): publish a last time and end. */
extern volatile sig_atomic_t exporter_quit;
void exporter_on_quit(int sig);
/* live_run()'s stop callback: exporter_quit. */
bool exporter_stop(void *ctx);

/* --listen ADDR:PORT into @ss; 0, or EXIT_USAGE after a usage error. */
int exporter_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *sl);

/* Serve /metrics on @listen_at (@ss, @sl); 0 or EXIT_FAIL after a message. */
int exporter_http_start(struct exporter *x, const char *listen_at,
			const struct sockaddr_storage *ss, socklen_t sl);

/* Render the metrics once, then write the textfile and hand the HTTP server its copy. */
int exporter_publish(struct exporter *x);

/* Sleep until @deadline (CLOCK_MONOTONIC ns) or a signal that ends the exporter. */
void exporter_sleep_until(uint64_t deadline);

/* Publish device @device's activity (@ring bytes per queue) until told to stop. */
int exporter_run_live(struct exporter *x, int device, uint64_t ring);

/* Publish the recording at @path, paced by its timestamps at @speed. */
int exporter_run_replay(struct exporter *x, const char *path, double speed);

#endif
