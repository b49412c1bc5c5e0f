// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_files.c - the target API's files on the host kernel: a tmpfs of the
 * run's own, mounted in the run folder (recorded in the restore file
 * first, unmounted at the end, on signals and by `foliolab host
 * restore`), files in it through open/fallocate/ftruncate/pwrite/pread,
 * and debugfs's split_huge_pages, which a kernel in lockdown refuses.
 *
 * A page's tag is the first 8 bytes of the page, as in a mapping.
 *
 * Conventions in this file: "m" is a mount, "f" a file; errors are
 * -errno; debugfs is mounted at /sys/kernel/debug only while a split
 * request needs it, and the refusal is remembered for the rest of the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host.h"

#define DEBUGFS "/sys/kernel/debug"
#define SPLIT_FILE DEBUGFS "/split_huge_pages"

struct fl_tmpfs {
	char path[HOST_PATH_MAX];
};

struct fl_file {
	int fd;
	char path[HOST_PATH_MAX + 80];
};

int fl__host_tmpfs_mount(struct fl_thread *th, const char *options, struct fl_tmpfs **out,
			 char *err, size_t len)
{
	static int next;
	struct fl__host_change c = { .kind = HOST_UNDO_MOUNT };
	struct fl_tmpfs *m;
	int ret;

	(void)th;
	if (geteuid() != 0) {
		snprintf(err, len, "mounting a tmpfs needs root");
		return -EPERM;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	snprintf(m->path, sizeof(m->path), "%s/tmpfs%d", fl__host_rundir(),
		 __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED));
	if (mkdir(m->path, 0700)) {
		ret = -errno;
		snprintf(err, len, "cannot make %s (%s)", m->path, strerror(errno));
		free(m);
		return ret;
	}
	c.path = m->path;
	ret = fl__host_undo_record(&c, 1, err, len);
	if (ret) {
		rmdir(m->path);
		free(m);
		return ret;
	}
	if (mount("tmpfs", m->path, "tmpfs", MS_NOSUID | MS_NODEV, options)) {
		ret = -errno;
		snprintf(err, len, "mount -t tmpfs -o %s: %s", options, strerror(errno));
		fl__host_undo(HOST_UNDO_MOUNT, m->path);
		free(m);
		return ret;
	}
	*out = m;
	return 0;
}

int fl__host_tmpfs_umount(struct fl_thread *th, struct fl_tmpfs *m)
{
	int ret;

	(void)th;
	ret = fl__host_undo(HOST_UNDO_MOUNT, m->path);
	if (!ret)
		free(m);
	return ret;
}

int fl__host_file_create(struct fl_thread *th, struct fl_tmpfs *m, const char *name,
			 struct fl_file **out)
{
	struct fl_file *f;

	(void)th;
	if (!name || !*name || strchr(name, '/'))
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	snprintf(f->path, sizeof(f->path), "%s/%s", m->path, name);
	f->fd = open(f->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (f->fd < 0) {
		int ret = -errno;

		free(f);
		return ret;
	}
	*out = f;
	return 0;
}

int fl__host_file_unlink(struct fl_thread *th, struct fl_file *f)
{
	(void)th;
	return unlink(f->path) ? -errno : 0;
}

int fl__host_file_close(struct fl_thread *th, struct fl_file *f)
{
	int ret;

	(void)th;
	ret = close(f->fd) ? -errno : 0;
	free(f);
	return ret;
}

int fl__host_fallocate(struct fl_thread *th, struct fl_file *f, int mode, uint64_t off,
		       uint64_t len)
{
	(void)th;
	return fallocate(f->fd, mode, (off_t)off, (off_t)len) ? -errno : 0;
}

int fl__host_ftruncate(struct fl_thread *th, struct fl_file *f, uint64_t size)
{
	(void)th;
	return ftruncate(f->fd, (off_t)size) ? -errno : 0;
}

int fl__host_pwrite_tags(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
			 uint64_t tag, uint64_t tag_step)
{
	uint64_t i;

	(void)th;
	if (off % 4096 || len % 4096)
		return -EINVAL;
	for (i = 0; i < len / 4096; i++) {
		uint64_t t = tag + i * tag_step;

		if (pwrite(f->fd, &t, sizeof(t), (off_t)(off + i * 4096)) != (ssize_t)sizeof(t))
			return -errno ? -errno : -EIO;
	}
	return 0;
}

int fl__host_pread_tags(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
			uint64_t *tags, uint64_t *sum)
{
	uint64_t i, s = 0;

	(void)th;
	if (off % 4096 || len % 4096)
		return -EINVAL;
	for (i = 0; i < len / 4096; i++) {
		uint64_t t = 0;
		ssize_t n = pread(f->fd, &t, sizeof(t), (off_t)(off + i * 4096));

		if (n < 0)
			return -errno;
		if (n == 0)
			break; /* end of file */
		if (tags)
			tags[i] = t;
		s += t;
	}
	if (sum)
		*sum = s;
	return (int)i;
}

/* A refusal of debugfs, once seen, is the kernel's answer for the whole run. */
static char debugfs_refusal[256];

/* Open split_huge_pages for writing, mounting debugfs (recorded) if it is not. */
static int open_split_file(char *err, size_t len)
{
	struct fl__host_change c = { .kind = HOST_UNDO_MOUNT, .path = DEBUGFS };
	bool mounted = false;
	int fd, ret;

	if (debugfs_refusal[0]) {
		snprintf(err, len, "%s", debugfs_refusal);
		return -EPERM;
	}
	if (geteuid() != 0) {
		snprintf(err, len, "writing %s needs root", SPLIT_FILE);
		return -EPERM;
	}
	if (!fl__host_is_mount(DEBUGFS, "debugfs")) {
		ret = fl__host_undo_record(&c, 1, err, len);
		if (ret)
			return ret;
		if (mount("debugfs", DEBUGFS, "debugfs", 0, NULL)) {
			ret = -errno;
			snprintf(err, len, "cannot mount debugfs at %s (%s)", DEBUGFS,
				 strerror(errno));
			fl__host_undo(HOST_UNDO_MOUNT, DEBUGFS);
			return ret;
		}
		mounted = true;
	}
	fd = open(SPLIT_FILE, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(debugfs_refusal, sizeof(debugfs_refusal),
			 "refused by the kernel: %s (%s%s)", SPLIT_FILE, strerror(errno),
			 errno == EPERM ? "; the kernel is locked down, which restricts debugfs"
					: "");
		snprintf(err, len, "%s", debugfs_refusal);
		if (mounted)
			fl__host_undo(HOST_UNDO_MOUNT, DEBUGFS);
		return ret;
	}
	return fd;
}

int fl__host_split_huge_pages_file(struct fl_thread *th, struct fl_file *f, uint64_t first,
				   uint64_t end, int new_order, long in_folio_offset, char *err,
				   size_t len)
{
	char input[HOST_PATH_MAX + 160];
	int fd, n, ret = 0;

	(void)th;
	fd = open_split_file(err, len);
	if (fd < 0)
		return fd;
	if (in_folio_offset >= 0)
		n = snprintf(input, sizeof(input), "%s,0x%llx,0x%llx,%d,%ld", f->path,
			     (unsigned long long)first, (unsigned long long)end, new_order,
			     in_folio_offset);
	else
		n = snprintf(input, sizeof(input), "%s,0x%llx,0x%llx,%d", f->path,
			     (unsigned long long)first, (unsigned long long)end, new_order);
	if (write(fd, input, (size_t)n) != n) {
		ret = -errno;
		snprintf(err, len, "%s refused '%s' (%s)", SPLIT_FILE, input, strerror(errno));
	}
	close(fd);
	if (fl__host_undo_pending(HOST_UNDO_MOUNT, DEBUGFS))
		fl__host_undo(HOST_UNDO_MOUNT, DEBUGFS);
	return ret;
}
