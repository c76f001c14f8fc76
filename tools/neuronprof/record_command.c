// SPDX-License-Identifier: MIT
/*
 * neuronprof record -- CMD: runs CMD with NEURON_RT_INSPECT_ENABLE=1 and the
 * other inspect variables set from the options, so a program using the
 * library's inspect session profiles itself, and waits for it. The variables
 * are first checked with the library's own parser, so a bad value is
 * reported here rather than by the program. --duration SEC sends the command
 * SIGTERM after SEC (the library's crash flush then writes its profiles).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <neuronprof/config.h>
#include <neuronprof/inspect.h>

#include "record.h"
#include "record_status.h"
#include "util/options.h"
#include "tool.h"

#define MAX_ENV	(12 + NPROF_QUEUE_TYPES)

struct env_list {
	char *v[MAX_ENV + 1];
	int n;
};

static int env_add(struct env_list *e, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int env_add(struct env_list *e, const char *name, const char *fmt, ...)
{
	char value[512];
	va_list ap;

	if (e->n == MAX_ENV)
		return -1;
	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	if (asprintf(&e->v[e->n], "%s=%s", name, value) < 0)
		return -1;
	e->n++;
	e->v[e->n] = NULL;
	return 0;
}

static void env_free(struct env_list *e)
{
	for (int i = 0; i < e->n; i++)
		free(e->v[i]);
	e->n = 0;
}

static int count_ntff(const char *dir, int depth)
{
	DIR *d = depth < 16 ? opendir(dir) : NULL;
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char sub[4096];
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR)
			n += count_ntff(sub, depth + 1);
		else if (len > 5 && !strcmp(de->d_name + len - 5, ".ntff"))
			n++;
	}
	closedir(d);
	return n;
}

static int build_env(const struct record_opts *o, struct env_list *e)
{
	bool ok = true;

	ok &= !env_add(e, "NEURON_RT_INSPECT_ENABLE", "1");
	ok &= !env_add(e, "NEURON_RT_INSPECT_OUTPUT_DIR", "%s", o->outdir);
	if (o->mode)
		ok &= !env_add(e, "NEURON_RT_INSPECT_DEVICE_PROFILE", "%s", o->mode);
	if (o->sysprof >= 0)
		ok &= !env_add(e, "NEURON_RT_INSPECT_SYSTEM_PROFILE", "%d", o->sysprof);
	if (o->cpu_util)
		ok &= !env_add(e, "NEURON_RT_INSPECT_CPU_UTIL", "1");
	if (o->host_mem)
		ok &= !env_add(e, "NEURON_RT_INSPECT_HOST_MEMORY", "1");
	if (o->on_fail)
		ok &= !env_add(e, "NEURON_RT_INSPECT_ON_FAIL", "1");
	if (o->exec_first)
		ok &= !env_add(e, "NEURON_RT_INSPECT_CAPTURE_EXECUTIONS", "%" PRIu64 "-%" PRIu64,
			       o->exec_first, o->exec_last);
	if (o->iter_first)
		ok &= !env_add(e, "NEURON_RT_INSPECT_CAPTURE_ITERATIONS", "%" PRIu64 "-%" PRIu64,
			       o->iter_first, o->iter_last);
	if (o->no_streaming)
		ok &= !env_add(e, "NEURON_RT_INSPECT_STREAMING", "0");
	if (o->max_size)
		ok &= !env_add(e, "NEURON_RT_INSPECT_CAPTURE_MAX_SIZE", "%" PRIu64, o->max_size);
	if (record_zlevel(o))
		ok &= !env_add(e, "NEURON_RT_INSPECT_CAPTURE_COMPRESSION", "%d", record_zlevel(o));
	if (o->cores)
		ok &= !env_add(e, "NEURON_RT_INSPECT_EVENT_FILTER_NC", "%s", o->cores);
	if (o->event_types)
		ok &= !env_add(e, "NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "%s", o->event_types);
	if (o->max_events)
		ok &= !env_add(e, "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC", "%s",
			       o->max_events);
	if (o->ring_size) {
		for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++) {
			char name[64];

			snprintf(name, sizeof(name), "NEURON_RT_PROFILE_BUF_%s_MB", queue_name(t));
			ok &= !env_add(e, name, "%" PRIu64, o->ring_size >> 20);
		}
	}
	if (!ok)
		fail("out of memory");
	return ok ? 0 : -1;
}

/*
 * Wait for the command, redrawing the status line every second; after
 * --duration, send it SIGTERM once (the library's crash flush writes what it
 * captured). Return its wait status, or -1 with errno.
 */
static int wait_command(struct record_opts *o, pid_t pid, const char *name,
			struct record_status *st)
{
	uint64_t until = o->duration_ns ? record_monotonic_ns() + o->duration_ns : 0;
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, pfd >= 0 ? WNOHANG : 0);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			status = -1;
			break;
		}
		if (until && record_monotonic_ns() >= until) {
			fprintf(stderr, "%sneuronprof: record: %gs passed: stopping %s with SIGTERM\n",
				st->drawn ? "\n" : "", o->duration_ns / 1e9, name);
			kill(pid, SIGTERM);
			until = 0;
		}
		if (pfd >= 0) {
			struct pollfd p[2] = {
				{ .fd = pfd, .events = POLLIN },
				{ .fd = o->ctl.ctl_fd, .events = POLLIN },
			};
			int delay = record_control_timeout_ms(&o->ctl);

			poll(p, o->ctl.ctl_fd >= 0 ? 2 : 1, delay >= 0 && delay < 1000 ? delay : 1000);
		}
		record_control_poll(&o->ctl);
		record_rotate_tick(&o->rot, &o->ctl);
		record_status_tick(st, false);
	}
	if (pfd >= 0)
		close(pfd);
	return status;
}

int record_command(struct record_opts *o, char **cmd)
{
	struct nprof_inspect_config *cfg;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	struct env_list env = { .n = 0 };
	struct record_status st = { .fd = -1 };
	int status, ret;
	time_t started;
	pid_t pid;

	if (o->synthetic_only)
		return usage_error("--%s applies to the synthetic model, not to a command",
				   o->synthetic_only);
	if (build_env(o, &env))
		return EXIT_FAIL;

	/* The library's parser is the authority on what the program will accept. */
	cfg = nprof_inspect_config_allocate();
	if (!cfg) {
		env_free(&env);
		return fail("out of memory");
	}
	if (nprof_inspect_config_parse_envp(cfg, env.v)) {
		ret = usage_error("%s", nprof_strerror_last());
		nprof_inspect_config_free(cfg);
		env_free(&env);
		return ret;
	}
	nprof_inspect_config_free(cfg);
	if (record_check_outdir(o->outdir)) {
		env_free(&env);
		return EXIT_USAGE;
	}
	/* Refused before it runs rather than OOM-killed once its runtime subscribes. */
	if (record_check_command_rings(cmd[0], env.v, o->ring_size)) {
		env_free(&env);
		return EXIT_FAIL;
	}

	/* The command inherits the progress page's descriptor and variable. */
	if (record_status_start(&st)) {
		env_free(&env);
		return EXIT_FAIL;
	}
	/* And the control page's (--delay, --control). */
	if (record_control_wanted(&o->ctl) && record_control_start(&o->ctl)) {
		record_control_finish(&o->ctl);
		record_status_finish(&st);
		env_free(&env);
		return EXIT_FAIL;
	}
	if (record_rotate_start(&o->rot, &o->ctl, o->outdir)) {
		record_control_finish(&o->ctl);
		record_status_finish(&st);
		env_free(&env);
		return EXIT_FAIL;
	}
	fflush(NULL);
	started = time(NULL);
	pid = fork();
	if (pid < 0) {
		record_control_finish(&o->ctl);
		record_status_finish(&st);
		env_free(&env);
		return fail("cannot fork: %s", strerror(errno));
	}
	if (!pid) {
		for (int i = 0; i < env.n; i++)
			putenv(env.v[i]);
		execvp(cmd[0], cmd);
		fprintf(stderr, "neuronprof: record: cannot run %s: %s\n", cmd[0],
			strerror(errno));
		_exit(127);
	}
	/* Like system(): the terminal's ^C and ^\ are for the command. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	status = wait_command(o, pid, cmd[0], &st);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	record_status_finish(&st);
	record_control_finish(&o->ctl);
	record_rotate_finish(&o->rot);
	env_free(&env);
	if (status == -1)
		return fail("cannot wait for %s: %s", cmd[0], strerror(errno));
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "neuronprof: record: %s was killed by signal %d; %d .ntff "
			"file%s under %s\n", cmd[0], WTERMSIG(status), count_ntff(o->outdir, 0),
			count_ntff(o->outdir, 0) == 1 ? "" : "s", o->outdir);
		return 128 + WTERMSIG(status);
	}
	ret = WEXITSTATUS(status);
	fprintf(stderr, "neuronprof: record: %s exited with status %d; %d .ntff file%s under %s\n",
		cmd[0], ret, count_ntff(o->outdir, 0), count_ntff(o->outdir, 0) == 1 ? "" : "s",
		o->outdir);
	if (o->max_size && record_max_size_report(o, o->outdir, started) && !ret)
		ret = EXIT_FAIL;
	return ret;
}
