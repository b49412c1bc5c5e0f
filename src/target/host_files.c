// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_files.c - the target API's files on the host kernel: a tmpfs of the
 * run's own, mounted in the run folder (recorded in the restore file
 * first, unmounted at the end, on signals and by `foliolab host
 * restore`), files in it through open/fallocate/ftruncate/pwrite/pread,
 * and debugfs's split_huge_pages and shrinker count/scan files (a kernel in
 * lockdown refuses the writes).
 *
 * A page's tag is the first 8 bytes of the page, as in a mapping.
 *
 * Conventions in this file: "m" is a mount, "f" a file; errors are
 * -errno; debugfs is mounted at /sys/kernel/debug only while a split or a
 * shrinker request needs it, and a refused write is remembered for the
 * rest of the run.
 */
#include <dirent.h>
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
#define SHRINKER_DIR DEBUGFS "/shrinker"

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

int fl__host_file_fd(const struct fl_file *f)
{
	return f->fd;
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

/* A refusal of a debugfs write, once seen, is the kernel's answer for the run. */
static char debugfs_refusal[256];

/*
 * Open a file under debugfs, mounting debugfs (recorded first) if it is
 * not; debugfs_done() unmounts what this mounted. A kernel in lockdown
 * refuses writes to debugfs but lets read-only files (mode 0444 or less)
 * be read.
 */
static int debugfs_open(const char *path, int flags, char *err, size_t len)
{
	struct fl__host_change c = { .kind = HOST_UNDO_MOUNT, .path = DEBUGFS };
	bool writing = (flags & O_ACCMODE) != O_RDONLY;
	int fd, ret;

	if (writing && debugfs_refusal[0]) {
		snprintf(err, len, "%s", debugfs_refusal);
		return -EPERM;
	}
	if (geteuid() != 0) {
		snprintf(err, len, "%s needs root", path);
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
	}
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, len, "refused by the kernel: %s (%s%s)", path, strerror(errno),
			 errno == EPERM ? "; the kernel is locked down, which restricts debugfs"
					: "");
		if (writing && errno == EPERM)
			snprintf(debugfs_refusal, sizeof(debugfs_refusal), "%s", err);
		return ret;
	}
	return fd;
}

/* Unmount debugfs if debugfs_open() mounted it. */
static void debugfs_done(void)
{
	if (fl__host_undo_pending(HOST_UNDO_MOUNT, DEBUGFS))
		fl__host_undo(HOST_UNDO_MOUNT, DEBUGFS);
}

/* Write @input to split_huge_pages; the kernel's refusal goes to @err. */
static int split_huge_pages_write(const char *input, char *err, size_t len)
{
	size_t n = strlen(input);
	int fd, ret = 0;

	fd = debugfs_open(SPLIT_FILE, O_WRONLY, err, len);
	if (fd >= 0) {
		if (write(fd, input, n) != (ssize_t)n) {
			ret = -errno;
			snprintf(err, len, "%s refused '%s' (%s)", SPLIT_FILE, input,
				 strerror(errno));
		}
		close(fd);
	} else {
		ret = fd;
	}
	debugfs_done();
	return ret;
}

int fl__host_split_huge_pages_file(struct fl_thread *th, struct fl_file *f, uint64_t first,
				   uint64_t end, int new_order, long in_folio_offset, char *err,
				   size_t len)
{
	char input[HOST_PATH_MAX + 160];

	(void)th;
	if (in_folio_offset >= 0)
		snprintf(input, sizeof(input), "%s,0x%llx,0x%llx,%d,%ld", f->path,
			 (unsigned long long)first, (unsigned long long)end, new_order,
			 in_folio_offset);
	else
		snprintf(input, sizeof(input), "%s,0x%llx,0x%llx,%d", f->path,
			 (unsigned long long)first, (unsigned long long)end, new_order);
	return split_huge_pages_write(input, err, len);
}

int fl__host_split_huge_pages_range(struct fl_thread *th, uint64_t addr, uint64_t len,
				    int new_order, long in_folio_offset, char *err, size_t errlen)
{
	char input[160];

	(void)th;
	if (!len)
		snprintf(input, sizeof(input), "1");
	else if (in_folio_offset >= 0)
		snprintf(input, sizeof(input), "%d,0x%llx,0x%llx,%d,%ld", (int)getpid(),
			 (unsigned long long)addr, (unsigned long long)(addr + len), new_order,
			 in_folio_offset);
	else
		snprintf(input, sizeof(input), "%d,0x%llx,0x%llx,%d", (int)getpid(),
			 (unsigned long long)addr, (unsigned long long)(addr + len), new_order);
	return split_huge_pages_write(input, err, errlen);
}

/*
 * debugfs's shrinker/<name>-<id>/ folder for @name, in @dir; -ENOENT with
 * the reason when the kernel has no such shrinker.
 */
static int shrinker_dir(const char *name, char *dir, size_t dirlen, char *err, size_t len)
{
	size_t nl = strlen(name);
	struct dirent *de;
	DIR *d;
	int fd, ret = -ENOENT;

	/* mounts debugfs if need be; the folder itself is world-readable */
	fd = debugfs_open(DEBUGFS, O_RDONLY | O_DIRECTORY, err, len);
	if (fd < 0)
		return fd;
	close(fd);
	d = opendir(SHRINKER_DIR);
	if (!d) {
		ret = -errno;
		snprintf(err, len, "cannot read %s (%s%s)", SHRINKER_DIR, strerror(errno),
			 errno == ENOENT ? "; the kernel is built without CONFIG_SHRINKER_DEBUG"
					 : "");
		return ret;
	}
	while ((de = readdir(d))) {
		/* <name>-<id>, the id all digits */
		if (strncmp(de->d_name, name, nl) || de->d_name[nl] != '-' ||
		    strspn(de->d_name + nl + 1, "0123456789") != strlen(de->d_name + nl + 1) ||
		    !de->d_name[nl + 1])
			continue;
		snprintf(dir, dirlen, "%s/%s", SHRINKER_DIR, de->d_name);
		ret = 0;
		break;
	}
	closedir(d);
	if (ret)
		snprintf(err, len, "the kernel has no shrinker %s in %s", name, SHRINKER_DIR);
	return ret;
}

/*
 * Read shrinker/<name>-<id>/count: one line per memcg with objects, "<memcg
 * inode> <count on node 0> <count on node 1> ...". Sum all counts into
 * @count and keep up to @max memcg inodes in @inos.
 */
static int shrinker_read_count(const char *name, uint64_t *count, unsigned long *inos, int max,
			       int *nr_inos, char *err, size_t len)
{
	char dir[HOST_PATH_MAX], path[HOST_PATH_MAX + 16], buf[8192];
	size_t used = 0;
	ssize_t n;
	char *line, *save;
	int fd, ret;

	ret = shrinker_dir(name, dir, sizeof(dir), err, len);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/count", dir);
	fd = debugfs_open(path, O_RDONLY, err, len);
	if (fd < 0)
		return fd;
	while (used < sizeof(buf) - 1 && (n = read(fd, buf + used, sizeof(buf) - 1 - used)) > 0)
		used += (size_t)n;
	close(fd);
	buf[used] = 0;
	*count = 0;
	*nr_inos = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = line, *q;
		unsigned long ino = strtoul(p, &q, 10);

		if (q == p)
			continue;
		if (*nr_inos < max)
			inos[(*nr_inos)++] = ino;
		for (p = q;; p = q) {
			unsigned long long v = strtoull(p, &q, 10);

			if (q == p)
				break;
			*count += v;
		}
	}
	return 0;
}

int fl__host_shrinker_count(struct fl_thread *th, const char *name, uint64_t *count, char *err,
			    size_t len)
{
	unsigned long inos[1];
	int nr, ret;

	(void)th;
	ret = shrinker_read_count(name, count, inos, 1, &nr, err, len);
	debugfs_done();
	return ret;
}

/* Scan @nr objects on node @nid in every memcg the count lists. */
int fl__host_shrinker_scan(struct fl_thread *th, const char *name, int nid, uint64_t nr, char *err,
			   size_t len)
{
	char dir[HOST_PATH_MAX], path[HOST_PATH_MAX + 16], input[96];
	unsigned long inos[64];
	uint64_t count;
	int fd, i, n, ret;

	(void)th;
	ret = shrinker_read_count(name, &count, inos, 64, &n, err, len);
	if (!ret)
		ret = shrinker_dir(name, dir, sizeof(dir), err, len);
	if (ret)
		goto out;
	snprintf(path, sizeof(path), "%s/scan", dir);
	for (i = 0; i < n && !ret; i++) {
		int m;

		fd = debugfs_open(path, O_WRONLY, err, len);
		if (fd < 0) {
			ret = fd;
			break;
		}
		m = snprintf(input, sizeof(input), "%lu %d %llu", inos[i], nid,
			     (unsigned long long)nr);
		if (write(fd, input, (size_t)m) != m) {
			ret = -errno;
			snprintf(err, len, "%s refused '%s' (%s)", path, input, strerror(errno));
		}
		close(fd);
	}
out:
	debugfs_done();
	return ret;
}

/* "2" to /proc/sys/vm/drop_caches: every shrinker to the end (root). */
int fl__host_drop_slab(struct fl_thread *th, char *err, size_t len)
{
	static const char path[] = "/proc/sys/vm/drop_caches";
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	(void)th;
	if (fd < 0) {
		ret = -errno;
		snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	if (write(fd, "2", 1) != 1) {
		ret = -errno;
		snprintf(err, len, "%s refused '2' (%s)", path, strerror(errno));
	}
	close(fd);
	return ret;
}
