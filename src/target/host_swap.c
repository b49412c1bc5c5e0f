// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_swap.c - `--swap zram:SIZE` on the host: /dev/zram0 sized to SIZE,
 * given a swap header and enabled as the host's swap, what `echo SIZE >
 * /sys/block/zram0/disksize; mkswap /dev/zram0; swapon /dev/zram0` does,
 * without those programs. The change is recorded for undo first
 * (host_rundir.c): swapoff, then `echo 1 > /sys/block/zram0/reset`, at the
 * run's end, from its signal handlers, and by `foliolab host restore`.
 *
 * The run refuses, changing nothing, when the kernel has no zram0, when
 * zram0 is in use (a disk size set, or swap on it), or when the host
 * swaps elsewhere too: the run's swap counters must be zram0's alone.
 *
 * The swap header (mkswap's, version 1): the signature "SWAPSPACE2" in the
 * last 10 bytes of page 0; at byte 1024 the version (1), the last usable
 * page and the number of bad pages (0), little-endian 32-bit words.
 *
 * Conventions in this file: sizes are bytes; paths honour
 * $FOLIOLAB_HOST_ZRAM (a folder standing for /sys/block/zram0, for tests)
 * and $FOLIOLAB_HOST_SWAPS (for /proc/swaps).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>
#include "host.h"

#define ZRAM_DEV "/dev/zram0"
#define SWAP_PAGE 4096

static const char *zram_sysfs(void)
{
	const char *r = getenv("FOLIOLAB_HOST_ZRAM");

	return r && *r ? r : "/sys/block/zram0";
}

static const char *proc_swaps(void)
{
	const char *r = getenv("FOLIOLAB_HOST_SWAPS");

	return r && *r ? r : "/proc/swaps";
}

/* The first swap area /proc/swaps lists, in @name; false if none. */
static bool host_has_swap(char *name, size_t len)
{
	char line[512];
	bool any = false;
	FILE *f = fopen(proc_swaps(), "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Filename", 8))
			continue;
		if (sscanf(line, "%255s", name) == 1 && len > 0) {
			any = true;
			break;
		}
	}
	fclose(f);
	return any;
}

int fl__host_swap_check(uint64_t bytes, char *err, size_t len)
{
	char path[HOST_PATH_MAX], other[256];
	int64_t disksize = 0;

	snprintf(path, sizeof(path), "%s/disksize", zram_sysfs());
	if (fl__host_read_counter(path, &disksize)) {
		snprintf(err, len,
			 "--swap zram:...: this kernel has no %s (CONFIG_ZRAM, or modprobe zram); "
			 "nothing was changed",
			 path);
		return -ENODEV;
	}
	if (disksize) {
		snprintf(err, len,
			 "--swap zram:...: zram0 is in use (disksize %llu); reset it or run "
			 "without --swap; nothing was changed",
			 (unsigned long long)disksize);
		return -EBUSY;
	}
	if (host_has_swap(other, sizeof(other))) {
		snprintf(err, len,
			 "--swap zram:...: the host swaps to %s already; the run's swap counters "
			 "must be zram0's alone (swapoff it first); nothing was changed",
			 other);
		return -EBUSY;
	}
	if (bytes / SWAP_PAGE < 10 || bytes / SWAP_PAGE > 0xffffffffull) {
		snprintf(err, len, "--swap zram:%llu: accepted 40K..16T",
			 (unsigned long long)bytes);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/reset", zram_sysfs());
	if (access(path, W_OK)) {
		snprintf(err, len, "--swap needs root (%s: %s); nothing was changed", path,
			 strerror(errno));
		return -EPERM;
	}
	return 0;
}

/* Page 0 of a swap area of @pages pages, as mkswap writes it. */
static void swap_header(unsigned char *page, uint64_t pages)
{
	uint32_t words[3] = { 1, (uint32_t)(pages - 1), 0 };
	int i, b;

	memset(page, 0, SWAP_PAGE);
	for (i = 0; i < 3; i++)
		for (b = 0; b < 4; b++)
			page[1024 + 4 * i + b] = (unsigned char)(words[i] >> (8 * b));
	memcpy(page + SWAP_PAGE - 10, "SWAPSPACE2", 10);
}

int fl__host_swap_setup(uint64_t bytes, char *err, size_t len)
{
	static char reset[HOST_PATH_MAX];
	unsigned char page[SWAP_PAGE];
	char path[HOST_PATH_MAX], val[32];
	struct fl__host_change ch;
	int fd, ret;

	ret = fl__host_swap_check(bytes, err, len);
	if (ret)
		return ret;
	snprintf(reset, sizeof(reset), "%s/reset", zram_sysfs());
	ch = (struct fl__host_change){ HOST_UNDO_SWAP, ZRAM_DEV, reset };
	fl__host_swap_register(); /* how the undo log swaps it off again */
	ret = fl__host_undo_record(&ch, 1, err, len);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/disksize", zram_sysfs());
	snprintf(val, sizeof(val), "%llu", (unsigned long long)bytes);
	ret = fl__host_write_file(path, val);
	if (ret) {
		snprintf(err, len, "--swap: cannot size zram0 (%s): %s", path, strerror(-ret));
		goto undo;
	}
	swap_header(page, bytes / SWAP_PAGE);
	fd = open(ZRAM_DEV, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || pwrite(fd, page, SWAP_PAGE, 0) != SWAP_PAGE || fsync(fd)) {
		ret = -errno;
		snprintf(err, len, "--swap: cannot write the swap header to %s: %s", ZRAM_DEV,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		goto undo;
	}
	close(fd);
	if (swapon(ZRAM_DEV, 0)) {
		ret = -errno;
		snprintf(err, len, "--swap: swapon %s: %s", ZRAM_DEV, strerror(errno));
		goto undo;
	}
	return 0;
undo:
	fl__host_undo(HOST_UNDO_SWAP, ZRAM_DEV);
	return ret;
}

/*
 * zram0's mm_stat as counters: zram_orig_data_size, zram_compr_data_size,
 * zram_mem_used_total (bytes), zram_same_pages, zram_huge_pages.
 */
int fl__host_zram_counters(struct fl_counters *out)
{
	unsigned long long v[9];
	char path[HOST_PATH_MAX];
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/mm_stat", zram_sysfs());
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5], &v[6], &v[7]) == 8) {
		ret |= fl_counters_set_scoped(out, "zram_orig_data_size", (int64_t)v[0],
					      FL_SCOPE_SYSTEM);
		ret |= fl_counters_set_scoped(out, "zram_compr_data_size", (int64_t)v[1],
					      FL_SCOPE_SYSTEM);
		ret |= fl_counters_set_scoped(out, "zram_mem_used_total", (int64_t)v[2],
					      FL_SCOPE_SYSTEM);
		ret |= fl_counters_set_scoped(out, "zram_same_pages", (int64_t)v[5],
					      FL_SCOPE_SYSTEM);
		ret |= fl_counters_set_scoped(out, "zram_huge_pages", (int64_t)v[7],
					      FL_SCOPE_SYSTEM);
	}
	fclose(f);
	return ret;
}

/* async-signal-safe: swap off @dev, then reset its zram disk through @reset. */
static int swap_undo(const char *dev, const char *reset)
{
	int ret = 0;

	/* EINVAL: not swap (any more); ENOENT: no such device */
	if (swapoff(dev) && errno != EINVAL && errno != ENOENT)
		ret = -errno;
	if (!ret && fl__host_write_file(reset, "1"))
		ret = -EIO;
	return ret;
}

/* a killed run's "swap" line: only a zram disk, and only through its own reset file */
static int swap_restore(const char *dev, const char *reset, const char *pidname, FILE *out)
{
	char want[HOST_PATH_MAX];
	unsigned int n;

	if (!reset || sscanf(dev, "/dev/zram%u", &n) != 1 || strstr(dev, "..") ||
	    strstr(reset, "..") || strncmp(reset, "/sys/block/zram", 15) != 0) {
		fprintf(out, "skipped %s: not a zram swap a run set up\n", dev);
		return -1;
	}
	snprintf(want, sizeof(want), "/sys/block/zram%u/reset", n);
	if (strcmp(reset, want) && !getenv("FOLIOLAB_HOST_ZRAM")) {
		fprintf(out, "skipped %s: %s is not its reset file\n", dev, reset);
		return -1;
	}
	if (swap_undo(dev, reset)) {
		fprintf(out, "could not swap off and reset %s: %s\n", dev, strerror(errno));
		return -1;
	}
	fprintf(out, "swapped off and reset %s (run %s)\n", dev, pidname);
	return 0;
}

void fl__host_swap_register(void)
{
	static const struct fl__host_undo_ops ops = { .tag = "swap",
						      .undo = swap_undo,
						      .restore = swap_restore };

	fl__host_undo_register(HOST_UNDO_SWAP, &ops);
}
