// SPDX-License-Identifier: MIT
/*
 * neuronprof calibrate: the first run on a Neuron instance measures the two
 * facts about notification queues that public information does not give
 * (Documentation/hardware.rst): the bytes of a queue entry and what a head
 * register holds. neuronprof_neuron's calibration mode logs every queue the
 * vendor driver programs (its size), every head write the runtime makes
 * (its value) and the ring's bytes at the last head write; from those this
 * command infers the head unit (entry index, byte offset or free-running
 * counter: from wrap points and strides) and the entry size (from the
 * stride and wrap point of the heads, and from the period of the ring's
 * bytes), prints the module parameters to set with how sure it is, and
 * writes a report file to attach to a bug. With too few head writes, or
 * evidence that does not decide, it says "not enough data" and names what
 * is missing rather than guessing.
 *
 * This file parses the options, reads or records the log and runs the
 * parts of calibrate.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"
#include "calibrate.h"
#include "util/util.h"
#include "util/options.h"

static int set_param(const char *v)
{
	FILE *f = fopen(CAL_PARAM, "w");

	if (!f || fputs(v, f) < 0 || fclose(f)) {
		fprintf(stderr, "neuronprof calibrate: %s: %s (is neuronprof_neuron loaded, and are you root?)\n",
			CAL_PARAM, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return 0;
}

/* --apply: each NAME=VALUE of @params into /sys/module/neuronprof_neuron/parameters/NAME. */
static int apply_config(const char *params)
{
	char *copy = xstrdup(params), *tok, *save = NULL;
	int ret = 0;

	for (tok = strtok_r(copy, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		char path[128], *eq = strchr(tok, '=');
		FILE *f;

		if (!eq)
			continue;
		*eq = 0;
		snprintf(path, sizeof(path), "/sys/module/neuronprof_neuron/parameters/%s", tok);
		f = fopen(path, "w");
		if (!f || fprintf(f, "%s\n", eq + 1) < 0 || fclose(f)) {
			fprintf(stderr, "neuronprof calibrate: --apply: %s: %s\n", path, strerror(errno));
			ret = -1;
			f = NULL;
		}
	}
	if (!ret)
		fprintf(stderr, "neuronprof calibrate: applied; devices added from now on use it (rmmod neuronprof_neuron; modprobe neuronprof_neuron)\n");
	free(copy);
	return ret;
}

int cmd_calibrate(int argc, char **argv)
{
	const char *from = NULL, *outp = "neuronprof-calibration.txt", *config = NULL;
	bool apply = false;
	uint64_t duration_ns = 10000000000ULL;
	double duration;
	char *text = NULL;
	size_t len = 0;
	int rc;
	FILE *out;
	const struct opt opts[] = {
		OPT_SECONDS(0, "duration", &duration_ns, 1000000, 86400 * 1000000000ULL,
			    "log for SEC seconds (default 10), or until COMMAND ends"),
		OPT_STRING(0, "from", &from, "LOG", "infer from a calibration log saved earlier",
			   .syn = SYN_NONE),
		OPT_STRING(0, "config", &config, "FILE",
			   "write the provider's configuration there when every fact\n"
			   "was decided (an options line for /etc/modprobe.d/)"),
		OPT_BOOL(0, "apply", &apply,
			 "set the decided facts as neuronprof_neuron's parameters;\n"
			 "devices added afterwards use them (reload the module)"),
		OPT_STRING('o', "output", &outp, "REPORT",
			   "write the report (verdict and log) to REPORT\n"
			   "(default neuronprof-calibration.txt; - for none)"),
		OPT_END(),
	};

	if (opts_parse(argc, argv, opts, NULL, &rc))
		return rc;
	duration = duration_ns / 1e9;
	if (from && optind < argc) {
		return usage_error("--from reads a log; it runs no command");
	}
	if (!from) {
		pid_t pid = 0;

		if (set_param("1\n"))
			return 1;
		if (optind < argc) {
			pid = fork();
			if (pid == 0) {
				execvp(argv[optind], argv + optind);
				fprintf(stderr, "neuronprof calibrate: %s: %s\n", argv[optind], strerror(errno));
				_exit(127);
			}
		}
		fprintf(stderr, "neuronprof calibrate: logging head writes for %s%gs...\n",
			pid > 0 ? "the command or " : "", duration);
		for (double t = 0; t < duration; t += 0.1) {
			struct timespec ts = { 0, 100000000 };

			if (pid > 0 && waitpid(pid, NULL, WNOHANG) == pid) {
				pid = 0;
				break;
			}
			nanosleep(&ts, NULL);
		}
		if (pid > 0) {
			kill(pid, SIGTERM);
			waitpid(pid, NULL, 0);
		}
		rc = cal_read_log(CAL_LOG, &text, &len);
		set_param("0\n");
		if (rc)
			return 1;
	} else if (cal_read_log(from, &text, &len)) {
		return 1;
	}

	/* Inference changes the evidence (phase bits cleared, sets merged): once. */
	char *buf = NULL, *cbuf = NULL, *line, *save = NULL;
	size_t blen = 0, clen = 0;
	FILE *mem = open_memstream(&buf, &blen), *cmem = open_memstream(&cbuf, &clen);

	if (!mem || !cmem) {
		fprintf(stderr, "neuronprof calibrate: %s\n", strerror(errno));
		return 1;
	}
	rc = cal_report(mem, cmem);
	fclose(mem);
	fclose(cmem);
	fputs(buf, stdout);
	if (config) {
		FILE *cf = fopen(config, "w");

		/* Only a decided configuration is written; an undecided run leaves it empty. */
		if (!cf || (!rc && fprintf(cf, "# neuronprof calibrate\noptions neuronprof_neuron %s\n",
					   cbuf) < 0) || fclose(cf)) {
			fprintf(stderr, "neuronprof calibrate: %s: %s\n", config, strerror(errno));
			rc = 1;
		} else if (!rc) {
			fprintf(stderr, "neuronprof calibrate: configuration written to %s (modprobe.d format)\n",
				config);
		}
	}
	if (apply && !rc && apply_config(cbuf))
		rc = 1;
	free(cbuf);
	if (strcmp(outp, "-")) {
		out = fopen(outp, "w");
		if (!out) {
			fprintf(stderr, "neuronprof calibrate: %s: %s\n", outp, strerror(errno));
			free(text);
			free(buf);
			return 1;
		}
		fprintf(out, "# neuronprof calibrate report\n");
		for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(out, "# %s\n", line);
		if (len)
			fwrite(text, 1, len, out);
		if (fclose(out)) {
			fprintf(stderr, "neuronprof calibrate: %s: %s\n", outp, strerror(errno));
			rc = 1;
		} else {
			fprintf(stderr, "neuronprof calibrate: report written to %s\n", outp);
		}
	}
	free(buf);
	free(text);
	for (size_t i = 0; i < cal_nqueues; i++) {
		free(cal_queues[i].heads);
		free(cal_queues[i].first);
		free(cal_queues[i].end);
		free(cal_queues[i].ring);
	}
	return rc ? 1 : 0;
}
