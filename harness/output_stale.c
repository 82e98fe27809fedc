/* SPDX-License-Identifier: MIT */
/*
 * output_stale.c - the temporaries of an output that a killed scbench left
 * (PATH.tmp.XXXXXX: out_open), found and removed by the next run that
 * writes the same output.
 *
 * A writer holds an exclusive flock(2) on its temporary from just after
 * making it until it is renamed or removed (out_open); the kernel drops
 * the lock when the writer dies, however it dies, SIGKILL included. So a
 * temporary of the same output that nobody has locked, last written
 * STALE_AGE seconds ago or more (a writer locks its temporary microseconds
 * after making it), that is a regular file with one link and is the
 * caller's, was left by a writer that is gone: the lock keeps a live
 * writer's file, whichever program wrote it, and the owner check another
 * user's. Where flock fails (a file system without locks) nothing is
 * removed.
 */
#include "output.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STALE_AGE 10 /* seconds */

/* Is name BASE.tmp. followed by six letters or digits (mkstemp's)? */
static bool temp_of(const char *name, const char *base)
{
	static const char tag[] = ".tmp.";
	size_t b = strlen(base);
	if (strncmp(name, base, b) != 0 || strncmp(name + b, tag, sizeof tag - 1) != 0)
		return false;
	const char *x = name + b + sizeof tag - 1;
	if (strlen(x) != 6)
		return false;
	for (; *x; x++)
		if (!isalnum((unsigned char)*x))
			return false;
	return true;
}

/* Remove name (in the directory dfd) if it is a dead writer's temporary. */
static bool remove_if_stale(int dfd, const char *name, time_t now)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	bool gone = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	            st.st_uid == geteuid() && now - st.st_mtime >= STALE_AGE &&
	            flock(fd, LOCK_EX | LOCK_NB) == 0 && unlinkat(dfd, name, 0) == 0;
	close(fd); /* drops the lock */
	return gone;
}

unsigned out_remove_stale(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char dir[4096];
	if (!slash) {
		strcpy(dir, ".");
	} else {
		size_t n = slash == path ? 1 : (size_t)(slash - path);
		if (n >= sizeof dir)
			return 0;
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	if (!*base)
		return 0;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	unsigned removed = 0;
	time_t now = time(NULL);
	for (struct dirent *e; (e = readdir(d));)
		if (temp_of(e->d_name, base) && remove_if_stale(dfd, e->d_name, now))
			removed++;
	closedir(d); /* closes dfd */
	return removed;
}
