// SPDX-License-Identifier: MIT
/*
 * neuronprof exporter: a device's activity as Prometheus metrics.
 *
 * Live, it watches the queues of a device as top does (live.h: every queue
 * subscribed with a small ring (256 KiB unless --ring-size) and record's
 * watermark, beside record or top on the same queues, each ring consumed whenever
 * it reaches a quarter full) and every --interval publishes what it has
 * folded since the start: per engine the busy time, instructions, DMA
 * transfers and bytes; per core the busy time (the union of its engines'),
 * inferences, errors and the last throttle level; per queue the entries
 * delivered, the entries lost and the ring's highest fill in the interval;
 * and which queues it could not subscribe because they had as many
 * subscribers as they take (it subscribes them once one is freed). With --replay it publishes
 * the same metrics from a recording instead, paced by the recording's
 * timestamps (--replay-speed), computed by summary's own code
 * (rec_stats_build_observed(), the timing model of timing.c) so that once
 * the replay is over every figure equals `neuronprof summary`'s.
 *
 * Two ways out, each optional but not both absent: --textfile PATH.prom,
 * replaced atomically at every publication for node exporter's textfile
 * collector (prom.h), and an HTTP /metrics endpoint served by libmicrohttpd
 * on --listen (127.0.0.1:9474 by default). Both give the same exposition,
 * rendered once per publication. SIGINT and SIGTERM end it after a last
 * publication (live: after a flush of the queues).
 *
 * This file parses the options and runs the parts of exporter.h.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/device.h>

#include "exporter.h"
#include "live.h"
#include "util/options.h"
#include "tool.h"

static int parse_speed(const struct opt *o, const char *s, void *ctx)
{
	double *out = ctx;
	char *end;
	double v;

	(void)o;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < 0)
		return usage_error("--replay-speed: '%s' is not a factor of 0 or more (1: as recorded, 0: all at once)",
				   s);
	*out = v;
	return 0;
}

int cmd_exporter(int argc, char **argv)
{
	struct sigaction quit = { .sa_handler = exporter_on_quit }, ign = { .sa_handler = SIG_IGN };
	uint64_t device = 0, ring = LIVE_RING_DEFAULT, interval_ms = 5000;
	const char *replay = NULL, *listen_at = EXPORTER_LISTEN_DEFAULT;
	/* Set (to the option's name) when the option is given. */
	const char *device_given = NULL, *ring_given = NULL, *speed_given = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	double speed = 1.0;
	struct exporter x;
	char why[512];
	int ret;
	const struct opt opts[] = {
		OPT_U64(0, "device", &device, "N", 0, INT32_MAX, "device index (default: the first)",
			.first = &device_given),
		OPT_RING_SIZE(&ring, RING_SIZE_MIN,
			      "ring per queue: a power of two, 4K to 1G (K, M, G\n"
			      "suffixes; default 256K)", .first = &ring_given),
		OPT_STRING(0, "replay", &replay, "RECORDING",
			   "publish a recording (an NTFF file or a directory)\n"
			   "instead of a device"),
		OPT_CALLBACK(0, "replay-speed", "FACTOR", parse_speed, 0,
			     "recording time per wall-clock time (default 1: as\n"
			     "recorded; 0.001: a thousand times slower; 0: all\n"
			     "at once)", .first = &speed_given, .syn_join = SYN_IN),
		OPT_STRING(0, "textfile", &x.textfile, "PATH.prom",
			   "write the metrics to PATH.prom for node exporter's\n"
			   "textfile collector, replaced atomically every interval"),
		OPT_STRING(0, "listen", &listen_at, "ADDR:PORT",
			   "serve http://ADDR:PORT/metrics (default " EXPORTER_LISTEN_DEFAULT ");\n"
			   "'none': no HTTP server", .syn = "[--listen ADDR:PORT | --listen none]"),
		OPT_U64(0, "interval", &interval_ms, "MS", EXPORTER_INTERVAL_MIN, 3600000,
			"publish every MS milliseconds (default 5000, at least 100)"),
		OPT_U64('n', "count", &x.count, "N", 1, UINT64_MAX,
			"stop after N publications (default: until ^C or SIGTERM)",
			.syn = "[-n N | --count N]"),
		OPT_END(),
	};

	memset(&x, 0, sizeof(x));
	if (opts_parse(argc, argv, opts, &speed, &ret))
		return ret;
	if (check_operands(argc, argv, 0, NULL))
		return EXIT_USAGE;
	if (replay && (device_given || ring_given))
		return usage_error("--replay publishes a recording: --%s is for a device",
				   device_given ? device_given : ring_given);
	if (speed_given && !replay)
		return usage_error("--replay-speed needs --replay");
	x.http = strcmp(listen_at, "none") != 0;
	if (!x.http && !x.textfile)
		return usage_error("--listen none and no --textfile: nothing to publish to");
	if (x.http && exporter_parse_listen(listen_at, &ss, &sl))
		return EXIT_USAGE;
	if (x.textfile && textfile_check(x.textfile, why, sizeof(why))) {
		if (strstr(why, "must end with"))
			return usage_error("--textfile: %s", why);
		return fail("--textfile: %s", why);
	}
	x.interval_ns = interval_ms * 1000000ULL;

	prom_init(&x.prom, families, F_COUNT);
	x.s_publications = prom_series(&x.prom, F_PUBLICATIONS, NULL);
	pthread_mutex_init(&x.lock, NULL);
	sigaction(SIGINT, &quit, NULL);
	sigaction(SIGTERM, &quit, NULL);
	sigaction(SIGPIPE, &ign, NULL);
	if (x.http) {
		sigset_t block, old;

		/* The server's threads leave SIGINT and SIGTERM to this one. */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &block, &old);
		ret = exporter_http_start(&x, listen_at, &ss, sl);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (ret)
			goto out;
		fprintf(stderr, "neuronprof: exporter: serving http://%s/metrics\n", listen_at);
	}
	if (replay)
		ret = exporter_run_replay(&x, replay, speed);
	else
		ret = exporter_run_live(&x, device_given ? (int)device : NPROF_DEVICE_ANY, ring);
out:
	if (x.mhd)
		MHD_stop_daemon(x.mhd);
	pthread_mutex_destroy(&x.lock);
	free(x.body);
	prom_free(&x.prom);
	return ret;
}
