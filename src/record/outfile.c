// SPDX-License-Identifier: GPL-2.0-only
/*
 * outfile.c - the files foliolab writes (--json, calibrate --out, and the
 * temporaries of a calibration), decided before any work and written whole.
 *
 * An output path is one of:
 * - "-": the process's standard output;
 * - a character device or a FIFO, or a path that leads to one through
 *   symbolic links, or a path through /proc/PID/fd (/dev/stdout): written
 *   through (opened for appending when the results are written), never
 *   replaced;
 * - a regular file (a symbolic link to one: the file it leads to) or a name
 *   that does not exist yet in an existing folder: replaced whole. The
 *   results go to a temporary in the same folder, created at once (so a
 *   folder that cannot take it is refused before any work) and renamed over
 *   the name when they are complete.
 * Anything else (a folder, a socket, a block device, a link to nothing) is
 * refused with one line.
 *
 * Temporaries are created with O_CREAT | O_EXCL | O_NOFOLLOW (a folder with
 * mkdir(2)), so a symbolic link or file planted at a temporary's name is
 * never written through: that name is skipped for the next. Every
 * temporary this process made is on a list that the exit path, the
 * handlers of SIGINT, SIGTERM, SIGHUP, SIGQUIT and of crashes installed
 * here, and the host run's own handlers (host_rundir.c) remove.
 *
 * Conventions in this file: @o is an output file; "tmp" is the list of
 * temporaries to remove; everything a handler touches is async-signal-safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <foliolab/foliolab.h>
#include "outfile.h"

enum { OUT_STDOUT = 1, OUT_THROUGH, OUT_REPLACE };

#define NR_TMP 16
#define TMP_TRIES 64 /* names tried before giving up on a folder */

static struct {
	pid_t owner; /* the process that made them: a forked child removes none */
	bool handlers;
	struct tmp_entry {
		volatile sig_atomic_t used;
		bool dir;
		char path[PATH_MAX];
	} v[NR_TMP];
} tmp;

static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV,
				       SIGBUS, SIGFPE,	SIGILL, SIGABRT };

/* async-signal-safe: files first (newest first), then folders */
void fl__tmp_cleanup(void)
{
	int pass, i;

	if (tmp.owner != getpid())
		return;
	for (pass = 0; pass < 2; pass++)
		for (i = NR_TMP - 1; i >= 0; i--) {
			if (!tmp.v[i].used || tmp.v[i].dir != (pass == 1))
				continue;
			if (tmp.v[i].dir)
				rmdir(tmp.v[i].path);
			else
				unlink(tmp.v[i].path);
			tmp.v[i].used = 0;
		}
}

static void cleanup_handler(int sig)
{
	int saved = errno;

	fl__tmp_cleanup();
	errno = saved;
	/* SA_RESETHAND put the default action back: die of the same signal */
	raise(sig);
}

static void cleanup_at_exit(void)
{
	fl__tmp_cleanup();
}

static void install_handlers(void)
{
	struct sigaction sa, old;
	size_t i;

	if (tmp.handlers)
		return;
	atexit(cleanup_at_exit);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cleanup_handler;
	sa.sa_flags = (int)SA_RESETHAND;
	sigfillset(&sa.sa_mask);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++) {
		/* a signal the caller ignores stays ignored */
		if (!sigaction(cleanup_signals[i], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(cleanup_signals[i], &sa, NULL);
	}
	tmp.handlers = true;
}

/* Put @path on the list. Return: its slot, or -ENOSPC. */
static int tmp_add(const char *path, bool dir)
{
	int i;

	if (tmp.owner != getpid()) {
		memset(&tmp.v, 0, sizeof(tmp.v));
		tmp.owner = getpid();
	}
	install_handlers();
	for (i = 0; i < NR_TMP; i++)
		if (!tmp.v[i].used) {
			snprintf(tmp.v[i].path, sizeof(tmp.v[i].path), "%s", path);
			tmp.v[i].dir = dir;
			tmp.v[i].used = 1;
			return i;
		}
	return -ENOSPC;
}

/* Take @path off the list (it was renamed into place, or removed). */
static void tmp_forget(const char *path)
{
	int i;

	for (i = 0; i < NR_TMP; i++)
		if (tmp.v[i].used && !strcmp(tmp.v[i].path, path))
			tmp.v[i].used = 0;
}

/**
 * fl__tmp_create() - create a new file or folder under @dir, named
 * @prefix.PID.N (N the first free of 0..63), on the list of temporaries.
 * @path: out, the name made.
 * Return: an open fd (a file) or 0 (a folder), or -errno.
 */
int fl__tmp_create(const char *dir, const char *prefix, bool folder, char *path, size_t len)
{
	int n, fd = -EEXIST;

	for (n = 0; n < TMP_TRIES && fd == -EEXIST; n++) {
		if ((size_t)snprintf(path, len, "%s/%s.%ld.%d", dir, prefix, (long)getpid(), n) >=
		    len)
			return -ENAMETOOLONG;
		if (folder)
			fd = mkdir(path, 0700) ? -errno : 0;
		else
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 && !folder)
			fd = -errno;
	}
	if (fd < 0)
		return fd;
	if (tmp_add(path, folder) < 0) {
		if (folder)
			rmdir(path);
		else {
			close(fd);
			unlink(path);
		}
		return -ENOSPC;
	}
	return fd;
}

/**
 * fl__tmp_track() - put @path, which another program will create (inside a
 * private folder of fl__tmp_create()'s), on the list of temporaries.
 * Return: 0 or -ENOSPC.
 */
int fl__tmp_track(const char *path, bool folder)
{
	return tmp_add(path, folder) < 0 ? -ENOSPC : 0;
}

/** fl__tmp_remove() - remove a temporary and take it off the list. */
void fl__tmp_remove(const char *path, bool folder)
{
	if (folder)
		rmdir(path);
	else
		unlink(path);
	tmp_forget(path);
}

/* Does @path lead through /proc (a /proc/PID/fd link, such as /dev/stdout)? */
static bool through_proc(const char *path)
{
	char cur[PATH_MAX], next[PATH_MAX];
	int hops;

	snprintf(cur, sizeof(cur), "%s", path);
	for (hops = 0; hops < 16; hops++) {
		ssize_t n;

		if (!strncmp(cur, "/proc/", 6))
			return true;
		n = readlink(cur, next, sizeof(next) - 1);
		if (n < 0)
			return false;
		next[n] = '\0';
		if (next[0] != '/') {
			char *slash = strrchr(cur, '/');

			if (slash && (size_t)(slash - cur) + 1 + (size_t)n < sizeof(cur)) {
				memmove(slash + 1, next, (size_t)n + 1);
				continue;
			}
			snprintf(cur, sizeof(cur), "%s", next);
			continue;
		}
		snprintf(cur, sizeof(cur), "%s", next);
	}
	return false;
}

static int refuse(char *err, size_t len, const char *opt, const char *path, const char *why)
{
	snprintf(err, len,
		 "%s %s: %s; accepted a regular file or a new name in an existing folder "
		 "(written whole), -, a character device or a FIFO",
		 opt, path, why);
	return -EINVAL;
}

FL_API int fl_outfile_open(struct fl_outfile *o, const char *opt, const char *path, char *err,
			   size_t len)
{
	char dir[PATH_MAX], base[NAME_MAX + 1], prefix[NAME_MAX + 1];
	struct stat st, lst;
	const char *slash;
	int fd;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!*path)
		return refuse(err, len, opt, "\"\"", "an empty name");
	if (!strcmp(path, "-")) {
		o->kind = OUT_STDOUT;
		snprintf(o->path, sizeof(o->path), "-");
		return 0;
	}
	if (strlen(path) >= sizeof(o->path))
		return refuse(err, len, opt, "(...)", "too long a name");
	if (!stat(path, &st)) {
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ||
		    (S_ISREG(st.st_mode) && through_proc(path))) {
			if (access(path, W_OK))
				return refuse(err, len, opt, path, strerror(errno));
			o->kind = OUT_THROUGH;
			snprintf(o->path, sizeof(o->path), "%s", path);
			return 0;
		}
		if (S_ISDIR(st.st_mode))
			return refuse(err, len, opt, path, "a folder");
		if (!S_ISREG(st.st_mode))
			return refuse(err, len, opt, path, "neither a regular file nor a stream");
		/* a link to a regular file: replace the file it leads to */
		if (!realpath(path, o->path))
			return refuse(err, len, opt, path, strerror(errno));
	} else if (errno != ENOENT) {
		return refuse(err, len, opt, path, strerror(errno));
	} else if (!lstat(path, &lst)) {
		return refuse(err, len, opt, path, "a symbolic link to nothing");
	} else {
		snprintf(o->path, sizeof(o->path), "%s", path);
	}
	o->kind = OUT_REPLACE;
	slash = strrchr(o->path, '/');
	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
		snprintf(base, sizeof(base), "%.255s", o->path);
	} else {
		snprintf(dir, sizeof(dir), "%.*s", slash == o->path ? 1 : (int)(slash - o->path),
			 o->path);
		snprintf(base, sizeof(base), "%.255s", slash + 1);
	}
	if (!base[0])
		return refuse(err, len, opt, path, "no file name");
	if (stat(dir, &lst) || !S_ISDIR(lst.st_mode))
		return refuse(err, len, opt, path, "its folder does not exist");
	snprintf(prefix, sizeof(prefix), ".%.200s.tmp", base);
	fd = fl__tmp_create(dir, prefix, false, o->tmp, sizeof(o->tmp));
	if (fd < 0) {
		char why[400];

		snprintf(why, sizeof(why), "cannot create a file in %.200s (%s)", dir,
			 fd == -EEXIST ? "every temporary name is taken" : strerror(-fd));
		o->kind = 0;
		return refuse(err, len, opt, path, why);
	}
	/* a file replaced keeps its permissions */
	if (!stat(o->path, &st))
		fchmod(fd, st.st_mode & 07777);
	o->fd = fd;
	return 0;
}

FL_API FILE *fl_outfile_stream(struct fl_outfile *o)
{
	int fd;

	if (o->f)
		return o->f;
	switch (o->kind) {
	case OUT_STDOUT:
		o->f = stdout;
		break;
	case OUT_THROUGH:
		/* what else the process printed goes first */
		fflush(stdout);
		fd = open(o->path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
		o->f = fd < 0 ? NULL : fdopen(fd, "a");
		if (fd >= 0 && !o->f)
			close(fd);
		break;
	case OUT_REPLACE:
		o->f = fdopen(o->fd, "w");
		if (o->f)
			o->fd = -1;
		break;
	}
	return o->f;
}

FL_API int fl_outfile_commit(struct fl_outfile *o, char *err, size_t len)
{
	int ret = 0;

	if (!o->kind)
		return 0;
	if (!o->f && !fl_outfile_stream(o))
		ret = -errno;
	if (o->f == stdout) {
		if (fflush(stdout))
			ret = -errno;
	} else if (o->f) {
		if (fflush(o->f) || (o->kind == OUT_REPLACE && fsync(fileno(o->f))))
			ret = ret ? ret : -errno;
		if (fclose(o->f) && !ret)
			ret = -errno;
	}
	o->f = NULL;
	if (o->kind == OUT_REPLACE) {
		if (!ret && rename(o->tmp, o->path))
			ret = -errno;
		if (ret)
			unlink(o->tmp);
		tmp_forget(o->tmp);
	}
	if (ret)
		snprintf(err, len, "%s: %s", o->path, strerror(-ret ? -ret : EIO));
	o->kind = 0;
	return ret;
}

FL_API void fl_outfile_abort(struct fl_outfile *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	else if (o->fd >= 0)
		close(o->fd);
	o->f = NULL;
	o->fd = -1;
	if (o->kind == OUT_REPLACE)
		fl__tmp_remove(o->tmp, false);
	o->kind = 0;
}
