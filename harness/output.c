/* SPDX-License-Identifier: MIT */
/* output.c - where output files go, and how they are replaced (doc/design.md §8, §10). */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Temporary files still open, removed at exit so that a run that ends by
 * exit() (say, thread creation failed) leaves nothing behind. Three at most
 * (the CSV, the --latency sidecar and the meta.json; scbench.c opens no
 * more), within the four slots. Signals do not come here: they set a flag (run.h) and the
 * main thread aborts the output itself.
 */
static char *pending[4];

static void remove_pending(void)
{
	for (int i = 0; i < 4; i++)
		if (pending[i])
			unlink(pending[i]);
}

static void track(char *tmp, bool add)
{
	static bool installed;
	if (!installed) {
		atexit(remove_pending);
		installed = true;
	}
	for (int i = 0; i < 4; i++) {
		if (add && !pending[i]) {
			pending[i] = tmp;
			return;
		}
		if (!add && pending[i] == tmp) {
			pending[i] = NULL;
			return;
		}
	}
}

/* The directory part of path ("." or "/" where it has none), malloc'd. */
static char *dir_of(const char *path)
{
	char *d = strdup(path);
	if (!d)
		return NULL;
	char *slash = strrchr(d, '/');
	if (!slash) {
		free(d);
		return strdup(".");
	}
	if (slash == d)
		slash[1] = '\0';
	else
		*slash = '\0';
	return d;
}

/*
 * path with every symlink of its last component followed (relative targets
 * are relative to the link's directory), malloc'd; the result is not a
 * symlink, and may not exist (a dangling link names the file to create).
 * NULL with errno set (ELOOP after 40 links, ENOMEM).
 */
static char *follow_links(const char *path)
{
	char *cur = strdup(path);
	for (int hop = 0; cur && hop < 40; hop++) {
		struct stat st;
		char buf[4096];
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return cur;
		ssize_t n = readlink(cur, buf, sizeof buf - 1);
		if (n < 0)
			return cur;
		buf[n] = '\0';
		char *next;
		if (buf[0] == '/') {
			next = strdup(buf);
		} else {
			char *d = dir_of(cur);
			size_t len = (d ? strlen(d) : 0) + strlen(buf) + 2;
			next = d ? malloc(len) : NULL;
			if (next)
				snprintf(next, len, "%s/%s", d, buf);
			free(d);
		}
		free(cur);
		cur = next;
	}
	if (cur) {
		free(cur);
		errno = ELOOP;
	} else {
		errno = ENOMEM;
	}
	return NULL;
}

/* The temporary file's suffix (out_open): PATH.tmp.XXXXXX. */
static const char tmp_suffix[] = ".tmp.XXXXXX";

/*
 * Does the temporary file of target (in directory d) have a name the file
 * system takes? 0, or -1 with why set.
 */
static int temp_name_fits(const char *target, const char *d, char *why, size_t whylen)
{
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	long max = pathconf(d, _PC_NAME_MAX);
	if (max <= 0)
		max = NAME_MAX;
	if (strlen(base) + sizeof tmp_suffix - 1 > (size_t)max) {
		snprintf(why, whylen, "name too long for its temporary file '%s%s' (over %ld bytes)",
		         base, tmp_suffix, max);
		return -1;
	}
	return 0;
}

/*
 * Can target, in directory d, be replaced by a rename? Not when d is sticky
 * (/tmp) and target exists and is another user's in another user's directory:
 * rename fails with EPERM, after every run. Root (CAP_FOWNER) may. 0, or -1
 * with why set.
 */
static int replaceable(const char *target, const char *d, char *why, size_t whylen)
{
	struct stat ds, ts;
	uid_t me = geteuid();
	if (me == 0 || stat(d, &ds) != 0 || !(ds.st_mode & S_ISVTX) || lstat(target, &ts) != 0)
		return 0;
	if (ts.st_uid == me || ds.st_uid == me)
		return 0;
	snprintf(why, whylen, "cannot replace %s: another user's file in the sticky directory '%s'",
	         target, d);
	return -1;
}

int out_check_sidecar(const char *path, const char *ext, char *why, size_t whylen)
{
	out_kind kind;
	if (out_check(path, &kind, why, whylen))
		return -1;
	if (kind != OUT_REPLACE)
		return 0; /* standard output and a device have none; beside a FIFO it is a courtesy */
	char *target = follow_links(path);
	size_t n = target ? strlen(target) + strlen(ext) + 1 : 0;
	char *side = target ? malloc(n) : NULL;
	char *real = NULL;
	int rc = -1;
	if (side) {
		snprintf(side, n, "%s%s", target, ext);
		real = follow_links(side);
	}
	struct stat st;
	char *d = real ? dir_of(real) : NULL;
	if (!d)
		snprintf(why, whylen, "out of memory");
	else if (stat(real, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(why, whylen, "its sidecar %s is a directory", side);
	else if (stat(real, &st) == 0 && !S_ISREG(st.st_mode))
		rc = 0; /* a FIFO or device sidecar is written in place */
	else if (temp_name_fits(real, d, why, whylen) == 0 && replaceable(real, d, why, whylen) == 0)
		rc = 0;
	free(d);
	free(real);
	free(side);
	free(target);
	return rc;
}

int out_check(const char *path, out_kind *kind, char *why, size_t whylen)
{
	struct stat st;
	*kind = OUT_STDOUT;
	if (!path || strcmp(path, "-") == 0)
		return 0;
	if (!*path || path[strlen(path) - 1] == '/') {
		snprintf(why, whylen, "expected a file name, or - for standard output");
		return -1;
	}
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(why, whylen, "is a directory");
			return -1;
		}
		if (S_ISSOCK(st.st_mode)) {
			snprintf(why, whylen, "is a socket; expected a file, a FIFO or a device");
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			if (access(path, W_OK) != 0) {
				snprintf(why, whylen, "cannot write to it: %s", strerror(errno));
				return -1;
			}
			*kind = OUT_DIRECT;
			return 0;
		}
	} else if (errno != ENOENT) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	/* A regular file or a new one: its directory takes the temporary file. */
	char *target = follow_links(path);
	if (!target) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	char *d = dir_of(target);
	int rc = -1;
	if (!d)
		snprintf(why, whylen, "out of memory");
	else if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode))
		snprintf(why, whylen, "directory '%s' does not exist", d);
	else if (access(d, W_OK | X_OK) != 0)
		snprintf(why, whylen, "directory '%s' is not writable", d);
	else if (temp_name_fits(target, d, why, whylen) == 0 && replaceable(target, d, why, whylen) == 0)
		rc = 0;
	free(d);
	free(target);
	*kind = OUT_REPLACE;
	return rc;
}

/* Set err from errno for a failed operation on o (what: "write", "open"). */
static void io_error(const out_file *o, const char *what, int e, sc_err *err)
{
	sc_err_set(err, "cannot %s %s: %s", what, o->shown ? o->shown : "standard output",
	           e ? strerror(e) : "write error");
}

int out_open(out_file *o, const char *path, sc_err *err)
{
	char why[512];
	memset(o, 0, sizeof *o);
	if (out_check(path, &o->kind, why, sizeof why)) {
		sc_err_set(err, "%s: %s", path, why);
		return -1;
	}
	if (o->kind == OUT_STDOUT) {
		o->f = stdout;
		return 0;
	}
	o->shown = strdup(path);
	o->path = o->kind == OUT_REPLACE ? follow_links(path) : strdup(path);
	if (!o->shown || !o->path) {
		sc_err_set(err, "out of memory");
		out_abort(o);
		return -1;
	}
	if (o->kind == OUT_DIRECT) {
		/* No O_CREAT, no O_TRUNC: the file is written as it is, never replaced. */
		int fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			io_error(o, "open", e, err);
			out_abort(o);
			errno = e;
			return -1;
		}
		return 0;
	}
	(void)out_remove_stale(o->path);
	size_t n = strlen(o->path) + 16;
	o->tmp_path = malloc(n);
	if (!o->tmp_path) {
		sc_err_set(err, "out of memory");
		out_abort(o);
		return -1;
	}
	snprintf(o->tmp_path, n, "%s%s", o->path, tmp_suffix);
	int fd = mkstemp(o->tmp_path);
	if (fd < 0) {
		sc_err_set(err, "cannot create %s: %s", o->tmp_path, strerror(errno));
		free(o->tmp_path);
		o->tmp_path = NULL;
		out_abort(o);
		return -1;
	}
	track(o->tmp_path, true);
	/* held until the rename or removal: out_remove_stale leaves a locked temporary */
	(void)flock(fd, LOCK_EX | LOCK_NB);
	/* mkstemp makes 0600: a replaced file keeps its mode, a new one is as any file. */
	struct stat old;
	mode_t mask = umask(0);
	umask(mask);
	if (stat(o->path, &old) == 0 && S_ISREG(old.st_mode))
		(void)fchmod(fd, old.st_mode & 07777);
	else
		(void)fchmod(fd, 0666 & ~mask);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		sc_err_set(err, "cannot open %s: %s", o->tmp_path, strerror(errno));
		close(fd);
		out_abort(o);
		return -1;
	}
	return 0;
}

int out_row_done(out_file *o, sc_err *err)
{
	/* One write per row (rows are one per run): errno is that of the failing write. */
	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f)) {
		io_error(o, "write", errno, err);
		return -1;
	}
	return 0;
}

int out_finish(out_file *o, sc_err *err)
{
	int e = 0;
	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		e = errno ? errno : EIO;
	if (o->kind == OUT_STDOUT) {
		if (e)
			io_error(o, "write", e, err);
		return e ? -1 : 0;
	}
	/* fsync fails with EINVAL on FIFOs and some devices: nothing to sync there. */
	if (!e && o->kind == OUT_REPLACE && fsync(fileno(o->f)) != 0 && errno != EINVAL)
		e = errno;
	if (fclose(o->f) != 0 && !e)
		e = errno;
	o->f = NULL;
	if (e) {
		io_error(o, "write", e, err);
		out_abort(o);
		return -1;
	}
	return 0;
}

int out_publish(out_file *o, sc_err *err)
{
	if (o->kind == OUT_REPLACE && rename(o->tmp_path, o->path) != 0) {
		io_error(o, "write", errno, err);
		out_abort(o);
		return -1;
	}
	if (o->tmp_path)
		track(o->tmp_path, false);
	free(o->tmp_path);
	free(o->path);
	free(o->shown);
	memset(o, 0, sizeof *o);
	return 0;
}

int out_commit(out_file *o, sc_err *err)
{
	if (out_finish(o, err))
		return -1;
	return out_publish(o, err);
}

void out_abort(out_file *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	if (o->tmp_path) {
		unlink(o->tmp_path);
		track(o->tmp_path, false);
	}
	free(o->tmp_path);
	free(o->path);
	free(o->shown);
	memset(o, 0, sizeof *o);
}

char *out_sidecar_path(const out_file *o, const char *ext, char *why, size_t whylen)
{
	why[0] = '\0';
	if (o->kind == OUT_STDOUT || !o->path)
		return NULL;
	char *base = o->kind == OUT_REPLACE ? strdup(o->path) : realpath(o->path, NULL);
	if (!base) {
		snprintf(why, whylen, "cannot resolve %s: %s", o->shown, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (o->kind == OUT_DIRECT && stat(base, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
		/* A device's directory is the system's (/dev/null.meta.json as root): none. */
		snprintf(why, whylen, "%s is a device: no sidecar beside it (use a file)", o->shown);
		free(base);
		return NULL;
	}
	if (o->kind == OUT_DIRECT) {
		char *d = dir_of(base);
		bool ok = d && access(d, W_OK | X_OK) == 0;
		if (!ok)
			snprintf(why, whylen, "directory '%s' of %s is not writable",
			         d ? d : base, o->shown);
		free(d);
		if (!ok) {
			free(base);
			return NULL;
		}
	}
	size_t n = strlen(base) + strlen(ext) + 1;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s%s", base, ext);
	else
		snprintf(why, whylen, "out of memory");
	free(base);
	return p;
}

const char *out_set_text(const cpu_set_t *set, char sep, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		char item[32];
		int n = snprintf(item, sizeof item, e > c ? "%s%d-%d" : "%s%d", at ? (char[]){sep, 0} : "",
		                 c, e);
		if (at + (size_t)n + 4 > size) { /* no room: say the list goes on */
			snprintf(buf + at, size - at, "%s...", at ? (char[]){sep, 0} : "");
			break;
		}
		memcpy(buf + at, item, (size_t)n + 1);
		at += (size_t)n;
		c = e;
	}
	return buf;
}
