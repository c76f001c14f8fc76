// SPDX-License-Identifier: MIT
/*
 * inspect_run READY: what a runtime does for the library's inspect session,
 * and nothing else: begin the session from the environment (`neuronprof
 * record -- inspect_run READY` sets it), create the file READY once it is
 * capturing, wait for SIGTERM (record --duration sends it), stop and close
 * the session, which writes the profiles. The workload is somebody else's:
 * vm.sh drives the fake neuron.ko's hardware and runtime meanwhile.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <neuronprof/inspect.h>

int main(int argc, char **argv)
{
	sigset_t term;
	int fd, sig;

	if (argc != 2) {
		fprintf(stderr, "usage: %s READY\n", argv[0]);
		return 2;
	}
	/* Blocked before the library starts threads, so that only sigwait() takes it. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	if (nprof_inspect_begin()) {
		fprintf(stderr, "inspect_run: %s\n", nprof_strerror_last());
		return 1;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	close(fd);
	sigwait(&term, &sig);
	if (nprof_inspect_stop() || nprof_inspect_close()) {
		fprintf(stderr, "inspect_run: %s\n", nprof_strerror_last());
		return 1;
	}
	return 0;
}
