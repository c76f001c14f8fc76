// SPDX-License-Identifier: MIT
/*
 * Host tests of the output limits of an inspect session's captures, on a
 * fake device: the size limit's setter and variable; a streaming SESSION
 * capture of about 3 MB under a 1 MiB limit stops writing entries before
 * the limit, counts the rest as lost so that every queue's entries plus
 * lost equal what the device produced, and leaves a complete file within
 * the limit, with one message for the whole session (not one per queue);
 * a write that fails for the file size limit (RLIMIT_FSIZE, SIGXFSZ
 * ignored: EFBIG, as a full disk's ENOSPC) stops the output with one
 * message too. The control page's switch_seq rotates a SESSION capture's
 * output: each change starts a new file at the next execution, and the
 * files hold exactly the executions between the switches.
 *
 * The fake device's rings are one page (64 entries) and its SIM_EXEC paces
 * itself to the streaming consumer, so nothing here depends on timing.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "harness.h"
#include "inspect_util.h"

#define ITERATIONS	2000u		/* per queue: 24 queues of 64-byte entries, 3 MB */
#define QUEUES		24u
#define LIMIT		(1ULL << 20)

static int setup(struct fakex *x)
{
	if (fakex_setup(x, 1))
		return -1;
	x->dev[0]->info.max_ring_size = 4096;
	x->fd[0]->pace = true;
	return 0;
}

/* Log messages of the test, counted by what they say. */
static struct {
	int stops;		/* "capture stops writing" */
	int per_queue;		/* a queue's "cannot be written" */
	int summary;		/* the stop's "holds ... bytes of entries" */
} seen;

static void count_log(enum nprof_log_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)ctx;
	printf("#   log: %s\n", msg);
	seen.stops += strstr(msg, "capture stops writing") != NULL;
	seen.per_queue += strstr(msg, "cannot be written") != NULL;
	seen.summary += strstr(msg, "bytes of entries: capture stopped writing") != NULL;
}

TEST(config_capture_max_size)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	char *env[2] = { NULL, NULL };

	CHECK(cfg != NULL);
	CHECK_INT(nprof_inspect_config_get_capture_max_size(cfg), 0);
	CHECK_INT(nprof_inspect_config_set_capture_max_size(cfg, 50ULL << 20), 0);
	CHECK_INT(nprof_inspect_config_get_capture_max_size(cfg), 50ULL << 20);
	CHECK_INT(nprof_inspect_config_set_capture_max_size(cfg, (1ULL << 20) - 1), -EINVAL);
	CHECK_INT(nprof_inspect_config_set_capture_max_size(cfg, 0), 0);
	CHECK_INT(nprof_inspect_config_get_capture_max_size(cfg), 0);
	CHECK_INT(nprof_inspect_config_set_capture_max_size(NULL, 0), -EINVAL);
	CHECK_INT(nprof_inspect_config_get_capture_max_size(NULL), 0);
	env[0] = "NEURON_RT_INSPECT_CAPTURE_MAX_SIZE=2G";
	CHECK_INT(nprof_inspect_config_parse_envp(cfg, env), 0);
	CHECK_INT(nprof_inspect_config_get_capture_max_size(cfg), 2ULL << 30);
	env[0] = "NEURON_RT_INSPECT_CAPTURE_MAX_SIZE=3145728";
	CHECK_INT(nprof_inspect_config_parse_envp(cfg, env), 0);
	CHECK_INT(nprof_inspect_config_get_capture_max_size(cfg), 3ULL << 20);
	env[0] = "NEURON_RT_INSPECT_CAPTURE_MAX_SIZE=512K";
	CHECK_INT(nprof_inspect_config_parse_envp(cfg, env), -EINVAL);
	env[0] = "NEURON_RT_INSPECT_CAPTURE_MAX_SIZE=10X";
	CHECK_INT(nprof_inspect_config_parse_envp(cfg, env), -EINVAL);
	env[0] = "NEURON_RT_INSPECT_CAPTURE_MAX_SIZE=";
	CHECK_INT(nprof_inspect_config_parse_envp(cfg, env), -EINVAL);
	nprof_inspect_config_free(cfg);
}

/* Entries and lost of every queue of @path; -1 if it does not read. */
static int sum_file(const char *path, uint64_t *entries, uint64_t *lost, int *queues)
{
	struct nprof_ntff_reader *r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	int n;

	*entries = *lost = 0;
	*queues = 0;
	if (!r) {
		printf("#   %s: %s\n", path, nprof_strerror_last());
		return -1;
	}
	n = nprof_ntff_reader_queue_count(r);
	for (int i = 0; i < n; i++) {
		struct nprof_ntff_queue q = { .size = sizeof(q) };

		if (nprof_ntff_reader_queue(r, (size_t)i, &q)) {
			nprof_ntff_reader_close(r);
			return -1;
		}
		*entries += q.entry_count;
		*lost += q.lost_count;
	}
	*queues = n;
	nprof_ntff_reader_close(r);
	return 0;
}

/* Begin a SESSION capture of core 2 with @limit; its directory into @dir. */
static struct nprof_inspect_config *begin(uint64_t limit, char *dir, size_t len)
{
	struct nprof_inspect_config *cfg;

	cfg = cfg_new("out", NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_SESSION);
	cfg_cores(cfg, 2, 2);
	CHECK_INT(nprof_inspect_config_set_capture_max_size(cfg, limit), 0);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK(nprof_inspect_session_dir(dir, len) > 0);
	return cfg;
}

/* What one run of the big model left: its file's entries, lost and size. */
struct big_run {
	uint64_t entries, lost;
	long long size;
};

/*
 * One execution of ITERATIONS on core 2 in a SESSION capture under @limit
 * (0: none), on the paced fake device, the log's messages counted in seen;
 * what its file holds into @out.
 */
static void run_big(uint64_t limit, struct big_run *out)
{
	struct nprof_sim_program p = fakex_prog(ITERATIONS, false);
	struct nprof_sim_result res = { .size = sizeof(res) };
	struct nprof_inspect_config *cfg;
	char dir[PATH_MAX], path[2 * PATH_MAX];
	struct nprof_model *m;
	struct scratch s;
	struct fakex x;
	struct stat sb;
	int queues;

	memset(out, 0, sizeof(*out));
	CHECK(!scratch_enter(&s));
	CHECK_INT(setup(&x), 0);
	memset(&seen, 0, sizeof(seen));
	nprof_log_set_handler(count_log, NULL, NPROF_LOG_WARN);
	cfg = begin(limit, dir, sizeof(dir));
	m = nprof_model_load("big", 5, 2);
	CHECK(m != NULL);
	CHECK_INT(m ? nprof_model_sim_execute(m, &p, &res) : -1, 0);
	CHECK_INT(nprof_inspect_stop(), 0);
	nprof_log_set_handler(NULL, NULL, NPROF_LOG_WARN);
	snprintf(path, sizeof(path), "%s/profile_nc_2_session_0.ntff", dir);
	CHECK_INT(sum_file(path, &out->entries, &out->lost, &queues), 0);
	CHECK(!stat(path, &sb));
	out->size = (long long)sb.st_size;
	printf("#   %llu entries written, %llu lost, file %lld bytes\n",
	       (unsigned long long)out->entries, (unsigned long long)out->lost, out->size);
	nprof_model_unload(m);
	nprof_inspect_close();
	nprof_inspect_config_free(cfg);
	fakex_teardown(&x);
	scratch_leave(&s);
}

TEST(session_stops_writing_at_the_limit)
{
	struct big_run r;

	run_big(LIMIT, &r);
	/* Numbers stay true: what was not written is counted as lost. */
	CHECK_INT(r.entries + r.lost, (uint64_t)QUEUES * ITERATIONS);
	CHECK(r.lost > 0);
	CHECK(r.entries > 0);
	/* Entries up to the limit less the reserve, the file within the limit. */
	CHECK(r.entries * 64 <= LIMIT - (512u << 10));
	CHECK((uint64_t)r.size <= LIMIT);
	/* Once for the session, not once per queue; and once at the stop. */
	CHECK_INT(seen.stops, 1);
	CHECK_INT(seen.per_queue, 0);
	CHECK_INT(seen.summary, 1);
}

/* The same run without a limit: every entry is written, nothing said. */
TEST(session_without_limit_writes_everything)
{
	struct big_run r;

	run_big(0, &r);
	CHECK_INT(r.entries, (uint64_t)QUEUES * ITERATIONS);
	CHECK_INT(r.lost, 0);
	CHECK_INT(seen.stops, 0);
	CHECK_INT(seen.summary, 0);
}

/*
 * A write that fails (EFBIG under RLIMIT_FSIZE, as ENOSPC on a full disk):
 * one message for the session, none per queue, and no file left half
 * written under its name. In a child: the limit is the process's.
 */
TEST(failed_write_stops_output_once)
{
	struct nprof_sim_program p = fakex_prog(ITERATIONS, false);
	struct nprof_sim_result res = { .size = sizeof(res) };
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		struct rlimit rl = { .rlim_cur = 256 << 10, .rlim_max = 256 << 10 };
		struct nprof_inspect_config *cfg;
		struct nprof_model *m;
		char dir[PATH_MAX], path[2 * PATH_MAX];
		struct scratch s;
		struct fakex x;
		int ok;

		signal(SIGXFSZ, SIG_IGN);
		if (scratch_enter(&s) || setup(&x))
			_exit(2);
		memset(&seen, 0, sizeof(seen));
		nprof_log_set_handler(count_log, NULL, NPROF_LOG_WARN);
		cfg = begin(0, dir, sizeof(dir));
		m = nprof_model_load("big", 5, 2);
		if (!m || setrlimit(RLIMIT_FSIZE, &rl))
			_exit(3);
		if (nprof_model_sim_execute(m, &p, &res))
			_exit(4);
		/* The session's one file could not be completed: stop says so. */
		ok = nprof_inspect_stop() != 0;
		snprintf(path, sizeof(path), "%s/profile_nc_2_session_0.ntff", dir);
		ok &= access(path, F_OK) != 0;
		printf("#   child: %d stop message(s), %d per queue, %d summary\n", seen.stops,
		       seen.per_queue, seen.summary);
		ok &= seen.stops == 1 && seen.per_queue == 0 && seen.summary == 1;
		nprof_inspect_close();
		nprof_inspect_config_free(cfg);
		fflush(stdout);
		_exit(ok ? 0 : 1);
	}
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 0);
}

/* Entries per queue of a capture of @it iterations on a fake trn2 core: 24 queues. */
#define ENTRIES(it)	(24L * (it))

/* Executions 1 to 9, execution e of e iterations; switches before 4 and 8. */
static void switch_before_4_and_8(struct fx_session *f, uint32_t e)
{
	if (e == 4 || e == 8)
		__atomic_add_fetch(&f->page->switch_seq, 1, __ATOMIC_RELEASE);
}

TEST(switch_seq_rotates_the_files)
{
	struct fx_session f;
	struct nprof_model *m;

	if (!fxs_open_controlled(&f, NPROF_DEVICE_PROFILE_SESSION, 1))
		return;
	m = fxs_run_model(&f, "rotated", 1, 1, 9, 0, switch_before_4_and_8);
	check_execs(f.dir, "profile_nc_1_session_0.ntff", ENTRIES(1 + 2 + 3), 1, 3);
	check_execs(f.dir, "profile_nc_1_session_1.ntff", ENTRIES(4 + 5 + 6 + 7), 4, 7);
	check_execs(f.dir, "profile_nc_1_session_2.ntff", ENTRIES(8 + 9), 8, 9);
	nprof_model_unload(m);
	fxs_close(&f);
}

HARNESS_MAIN
