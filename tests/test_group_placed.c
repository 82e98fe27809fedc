/* SPDX-License-Identifier: MIT */
/*
 * test_group_placed.c - a per-CPU group in memory the caller provides
 * (sc_pcgroup_init_placed, sc_pcgroup_attach, sc_group_new_placed,
 * sc_group_attach): the parent makes a group in a MAP_SHARED file in a
 * temporary directory and execs children (this program again, with
 * --child), which map the file, attach (the inlined group and the handle)
 * and count from two threads each while the parent counts too; the parent
 * then reads exact totals. Also: attach refuses a buffer without a group,
 * of another version, shorter than the group, and a process whose per-CPU
 * path differs (a child run with SCOUNTERS_PERCPU=lock); each group names
 * its own per-CPU path (sc_pcgroup_path, describe's path=), cpu_id or lock,
 * never the process's mm_cid. Deterministic: exact totals, no timing.
 */
#include <scounters/scounters.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#define NCOUNTERS 3
#define CHILDREN 2
#define THREADS 2
#define PER 200000u

/* The file mapped whole, shared; NULL on failure. */
static void *map_file(const char *path, size_t *size)
{
	int fd = open(path, O_RDWR);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*size = (size_t)st.st_size;
	void *p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static sc_pcgroup child_group;
static sc_group *child_handle;

/* PER increments of counter 0 (inlined), PER x 3 to counter 1, PER to 2 (handle). */
static void *count(void *arg)
{
	(void)arg;
	for (unsigned k = 0; k < PER; k++) {
		sc_pcgroup_inc(&child_group, 0);
		sc_pcgroup_add(&child_group, 1, 3);
		if (sc_group_inc(child_handle, 2) != 0)
			abort();
	}
	return NULL;
}

/* The exec'd child: 0 when it counted; 2 when attach failed; 3 when it refused as told. */
static int child(const char *path, const char *mode)
{
	size_t size;
	sc_err err;
	void *buf = map_file(path, &size);
	if (!buf)
		return 2;
	int a = sc_pcgroup_attach(&child_group, buf, size, &err);
	if (strcmp(mode, "refuse") == 0)
		return a != 0 && strstr(err.msg, "path") ? 3 : 2;
	if (a != 0 || !(child_handle = sc_group_attach(buf, size, &err))) {
		fprintf(stderr, "child: %s\n", err.msg);
		return 2;
	}
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, count, NULL) != 0)
			return 2;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	sc_group_free(child_handle);
	sc_pcgroup_destroy(&child_group);
	return 0;
}

/*
 * Exec this program as a child in mode (env: an extra "NAME=value" or NULL);
 * its pid. Where the tests run under an emulator that the kernel cannot start
 * a foreign executable without (qemu-user with no binfmt_misc), the
 * environment names it in SC_TEST_EMULATOR and the child is exec'd through it.
 */
static pid_t spawn(const char *self, const char *path, const char *mode, char *env)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		const char *emu = getenv("SC_TEST_EMULATOR");
		if (env)
			putenv(env);
		if (emu && *emu)
			execlp(emu, emu, self, "--child", path, mode, (char *)NULL);
		else
			execl(self, self, "--child", path, mode, (char *)NULL);
		fprintf(stderr, "exec %s: %s\n", emu && *emu ? emu : self, strerror(errno));
		_exit(127);
	}
	return pid;
}

/* A child's exit status, or -1 if it did not exit. */
static int reap(pid_t pid)
{
	int st;
	if (pid <= 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* attach's refusals, on a private copy of the group's buffer. */
static void refusals(const void *buf, size_t size)
{
	sc_pcgroup g;
	sc_err err;
	unsigned char *copy = aligned_alloc(SC_LINE_SIZE, size);
	memcpy(copy, buf, size);
	tap_ok(sc_pcgroup_attach(&g, copy, size, &err) == 0, "attach: a copy of the group");
	tap_ok(sc_pcgroup_attach(&g, copy, size - 1, &err) != 0 && strstr(err.msg, "fit"),
	       "attach: refuses a buffer shorter than the group (%s)", err.msg);
	copy[8] ^= 0x40; /* the version word */
	tap_ok(sc_pcgroup_attach(&g, copy, size, &err) != 0 && strstr(err.msg, "version"),
	       "attach: refuses another version (%s)", err.msg);
	memset(copy, 0, size);
	tap_ok(sc_pcgroup_attach(&g, copy, size, &err) != 0 && strstr(err.msg, "magic"),
	       "attach: refuses a buffer with no group (%s)", err.msg);
	tap_ok(sc_pcgroup_attach(&g, copy + 8, size - 8, &err) != 0,
	       "attach: refuses a misaligned buffer");
	tap_ok(sc_pcgroup_init_placed(&g, copy, size - 1, NCOUNTERS, 0, &err) != 0 &&
	               copy[0] == 0,
	       "init_placed: refuses a short buffer, untouched (%s)", err.msg);
	tap_ok(sc_pcgroup_placed_bytes(0, 0) == 0 &&
	               sc_pcgroup_placed_bytes(SC_GROUP_MAX_COUNTERS + 1, 0) == 0 &&
	               sc_pcgroup_placed_bytes(1, SC_GROUP_MAX_SLOTS + 1) == 0,
	       "placed_bytes: 0 for counts out of range");
	free(copy);
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--child") == 0)
		return child(argv[2], argv[3]);
	tap_plan_lazy();
	const char *tmpdir = getenv("TMPDIR");
	char dir[4096], path[4200];
	snprintf(dir, sizeof dir, "%s/test_group_placed.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir))
		return tap_ok(false, "mkdtemp"), tap_done();
	snprintf(path, sizeof path, "%s/group", dir);
	size_t size = sc_pcgroup_placed_bytes(NCOUNTERS, 0);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	void *buf = NULL;
	if (fd >= 0 && ftruncate(fd, (off_t)size) == 0)
		buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	if (!buf || buf == MAP_FAILED)
		return tap_ok(false, "a shared file mapping of %zu bytes", size), tap_done();

	sc_pcgroup g;
	sc_err err;
	tap_ok(sc_pcgroup_init_placed(&g, buf, size, NCOUNTERS, 0, &err) == 0, "init_placed");
	const char *gp = sc_pcgroup_path(&g);
	tap_ok(strcmp(gp, "rseq-cpu_id") == 0 || strcmp(gp, "lock") == 0,
	       "the group's path is cpu_id or lock: %s (the process's: %s)", gp, sc_percpu_path());
	char desc[256], want[64];
	sc_pcgroup_describe(&g, desc, sizeof desc);
	snprintf(want, sizeof want, "path=%s;", gp);
	tap_ok(strncmp(desc, want, strlen(want)) == 0, "describe names the group's path: %s", desc);

	pid_t pid[CHILDREN];
	for (int c = 0; c < CHILDREN; c++)
		pid[c] = spawn(argv[0], path, "count", NULL);
	for (unsigned k = 0; k < PER; k++)
		sc_pcgroup_inc(&g, 0);
	int bad = 0, st[CHILDREN];
	for (int c = 0; c < CHILDREN; c++)
		bad += (st[c] = reap(pid[c])) != 0;
	tap_ok(bad == 0, "%d exec'd children attached and counted (exit statuses %d %d)", CHILDREN,
	       st[0], st[1]);
	uint64_t n0 = (uint64_t)(CHILDREN * THREADS + 1) * PER, n2 = (uint64_t)CHILDREN * THREADS * PER;
	uint64_t out[NCOUNTERS];
	tap_ok(sc_pcgroup_get(&g, 0) == n0 && sc_pcgroup_get(&g, 1) == 3 * n2 &&
	               sc_pcgroup_get(&g, 2) == n2,
	       "exact totals: %llu %llu %llu", (unsigned long long)sc_pcgroup_get(&g, 0),
	       (unsigned long long)sc_pcgroup_get(&g, 1), (unsigned long long)sc_pcgroup_get(&g, 2));
	tap_ok(sc_pcgroup_read_and_reset(&g, out, NCOUNTERS, NULL) == 0 && out[0] == n0 &&
	               sc_pcgroup_get(&g, 0) == 0,
	       "read_and_reset of the placed group");

	if (strcmp(gp, "rseq-cpu_id") == 0) {
		char env[] = "SCOUNTERS_PERCPU=lock";
		tap_ok(reap(spawn(argv[0], path, "refuse", env)) == 3,
		       "attach refuses a process on another per-CPU path (SCOUNTERS_PERCPU=lock)");
	} else {
		tap_ok(true, "attach refuses another path # SKIP this process takes the lock already");
	}
	refusals(buf, size);

	/* destroy leaves the buffer (and its counts) to the other views. */
	sc_pcgroup_inc(&g, 1);
	sc_pcgroup_destroy(&g);
	sc_group *h = sc_group_attach(buf, size, &err);
	tap_ok(h && sc_group_get(h, 1) == 1 && strcmp(sc_group_path(h), gp) == 0,
	       "destroy frees nothing: a handle attaches and reads the count after it");
	sc_group_free(h);
	h = sc_group_new_placed(buf, size, NCOUNTERS, 0, &err);
	tap_ok(h && sc_group_get(h, 1) == 0 && sc_group_add(h, 1, 5) == 0 && sc_group_get(h, 1) == 5,
	       "sc_group_new_placed makes a new group in the buffer");
	sc_group_free(h);
	tap_ok(!sc_group_new_placed(buf, size, NCOUNTERS + 64, 0, &err),
	       "sc_group_new_placed refuses a buffer too small (%s)", err.msg);

	munmap(buf, size);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
