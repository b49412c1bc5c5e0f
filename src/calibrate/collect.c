// SPDX-License-Identifier: GPL-2.0-only
/*
 * collect.c - `foliolab calibrate --collect DIR`: a calibration bundle of
 * this machine, for `foliolab validate DIR` here or anywhere else.
 *
 * DIR (made here, so nothing else can have planted a file in it) gets:
 *   calibrate.costs, calibrate.log  this machine's calibration (with its
 *                                   clearing-bandwidth curve)
 *   calibrate.measured              what it measured: calibrate --fit's input
 *   machine.txt                     uname, CPU, memory, THP knobs, cmdline
 *   records/lru-SIZE-T.json         lru-microbench on the host kernel, 100
 *                                   loops of 16 MiB a thread, 4K and 16K,
 *                                   T = 1, 2, 4, ... and every CPU
 *   records/lru-locks-SIZE-N.json   the same at every CPU, 20 loops, with
 *                                   perf lock's table (where perf works)
 *   manifest.txt                    what each file is and the command
 *
 * Conventions in this file: files are created with O_EXCL inside the
 * folder this run made; a failed run leaves what it finished, and the
 * manifest says what is missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <foliolab/foliolab.h>
#include "../platform/platform.h"
#include "../target/host.h"
#include "../record/outfile.h"

#define COLLECT_LOOPS "100"
#define COLLECT_LOCK_LOOPS "20"

static FILE *create_in(const char *dir, const char *name, char *path, size_t len)
{
	int fd;
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

static int close_file(FILE *f)
{
	int bad = ferror(f);

	return fclose(f) || bad ? -EIO : 0;
}

/* the first line of @path, or "" */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void write_machine(FILE *f)
{
	static const char *const knobs[] = { "enabled", "defrag", "use_zero_page",
					     "shrink_underused", "shmem_enabled" };
	struct utsname u;
	char buf[512], path[256], cpu[96];
	unsigned int kb;
	size_t i;

	uname(&u);
	fprintf(f, "uname: %s %s %s %s\n", u.sysname, u.release, u.version, u.machine);
	if (fl__host_cpuinfo("model name", cpu, sizeof(cpu)))
		snprintf(cpu, sizeof(cpu), "unknown");
	fprintf(f, "cpu: %s\ncpus online: %d\n", cpu, fl__host_nr_cpus_online());
	first_line("/proc/meminfo", buf, sizeof(buf));
	fprintf(f, "%s\n", buf);
	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/%s", knobs[i]);
		first_line(path, buf, sizeof(buf));
		fprintf(f, "transparent_hugepage/%s: %s\n", knobs[i], buf);
	}
	for (kb = 16; kb <= 2048; kb *= 2) {
		snprintf(path, sizeof(path),
			 "/sys/kernel/mm/transparent_hugepage/hugepages-%ukB/enabled", kb);
		first_line(path, buf, sizeof(buf));
		if (buf[0])
			fprintf(f, "transparent_hugepage/hugepages-%ukB/enabled: %s\n", kb, buf);
	}
	first_line("/proc/cmdline", buf, sizeof(buf));
	fprintf(f, "cmdline: %s\n", buf);
	fprintf(f, "cgroup2 only: %s\n",
		access("/sys/fs/cgroup/cgroup.controllers", F_OK) ? "no" : "yes");
}

/* one host run of lru-microbench, its record in DIR/records/NAME */
static int record_run(const char *dir, const char *name, const char *mthp, int threads,
		      const char *loops, bool locks, FILE *manifest, FILE *log, char *err,
		      size_t len)
{
	struct fl_config cfg;
	struct fl_result res;
	char path[4200], num[16], knob[96], sub[4200];
	FILE *f;
	int ret;

	fl_config_init(&cfg, "lru-microbench");
	snprintf(cfg.target, sizeof(cfg.target), "host");
	snprintf(num, sizeof(num), "%d", threads);
	fl_config_set_param(&cfg, "threads", num);
	fl_config_set_param(&cfg, "loops", loops);
	fl_config_set_param(&cfg, "size", "16M");
	if (mthp) {
		snprintf(knob, sizeof(knob), "transparent_hugepage/hugepages-%s/enabled", mthp);
		fl_config_set_knob(&cfg, knob, "always");
	}
	cfg.locks = locks;
	fprintf(log,
		"  %s: lru-microbench --target host --threads %d --loops %s --size 16M%s%s%s\n",
		name, threads, loops, mthp ? " --mthp " : "", mthp ? mthp : "",
		locks ? " --locks" : "");
	fflush(log);
	ret = fl_run(&cfg, &res, sub, sizeof(sub));
	if (ret) {
		snprintf(err, len, "calibrate --collect: %s: %s", name, sub);
		return ret;
	}
	snprintf(sub, sizeof(sub), "records/%s", name);
	f = create_in(dir, sub, path, sizeof(path));
	ret = !f ? -errno : 0;
	if (f) {
		fl_result_write_json(f, &res, 1);
		ret = close_file(f);
	}
	if (ret)
		snprintf(err, len, "calibrate --collect: cannot write %s: %s", path,
			 strerror(-ret));
	else
		fprintf(manifest,
			"records/%s: lru-microbench on the host, %d thread%s, %s loops of "
			"16M, %s%s%s\n",
			name, threads, threads == 1 ? "" : "s", loops, mthp ? mthp : "4kB",
			locks ? ", perf lock's table" : "",
			res.status ? " (the run reported a failure: see its error)" : "");
	if (!ret && locks && !res.locks.nr)
		fprintf(manifest, "  (no lock table: %s)\n", res.locks_note);
	fl_result_free(&res);
	return ret;
}

FL_API int fl_calibrate_collect_check(const char *dir, char *err, size_t len)
{
	struct stat st;

	if (!dir[0]) {
		snprintf(err, len, "calibrate --collect: an empty name; give a new folder");
		return -EINVAL;
	}
	if (!lstat(dir, &st)) {
		snprintf(err, len,
			 "calibrate --collect %s: it exists; give a new folder (the bundle is "
			 "made whole in a folder of its own)",
			 dir);
		return -EINVAL;
	}
	{
		char parent[4096], *slash;

		snprintf(parent, sizeof(parent), "%s", dir);
		slash = strrchr(parent, '/');
		if (slash == parent)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		else
			snprintf(parent, sizeof(parent), ".");
		if (access(parent, W_OK | X_OK)) {
			snprintf(err, len, "calibrate --collect %s: cannot create it in %s: %s",
				 dir, parent, strerror(errno));
			return -EINVAL;
		}
	}
	return 0;
}

FL_API int fl_calibrate_collect(const char *dir, const char *command, FILE *log, int *check_failed,
				char *err, size_t len)
{
	static const char *const sizes[] = { NULL, "16kB" };
	char path[4200], lpath[4200], mpath[4200], sub[64];
	FILE *f, *manifest, *clog, *meas;
	int threads[40], nt = 0, i;
	time_t now = time(NULL);
	struct tm tm;
	int cpus = fl__host_nr_cpus_online(), ret, s, t;

	if (mkdir(dir, 0755)) {
		snprintf(err, len, "calibrate --collect %s: %s", dir, strerror(errno));
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/records", dir);
	if (mkdir(path, 0755)) {
		snprintf(err, len, "calibrate --collect: %s: %s", path, strerror(errno));
		return -EIO;
	}
	manifest = create_in(dir, "manifest.txt", path, sizeof(path));
	if (!manifest) {
		snprintf(err, len, "calibrate --collect: %s: %s", path, strerror(errno));
		return -EIO;
	}
	gmtime_r(&now, &tm);
	strftime(sub, sizeof(sub), "%Y-%m-%dT%H:%MZ", &tm);
	fprintf(manifest, "# foliolab calibration bundle, %s, foliolab %s\n# %s\n", sub,
		fl_version(), command);
	fprintf(manifest, "# check it against sim: foliolab validate DIR [--costs "
			  "DIR/calibrate.costs]\n");

	f = create_in(dir, "machine.txt", path, sizeof(path));
	if (f) {
		write_machine(f);
		close_file(f);
		fprintf(manifest,
			"machine.txt: uname, CPU, memory, THP knobs, kernel command line\n");
	}

	fprintf(log, "1. calibrate (about two minutes; its log: %s/calibrate.log)\n", dir);
	fflush(log);
	f = create_in(dir, "calibrate.costs", path, sizeof(path));
	clog = f ? create_in(dir, "calibrate.log", lpath, sizeof(lpath)) : NULL;
	meas = clog ? create_in(dir, "calibrate.measured", mpath, sizeof(mpath)) : NULL;
	if (!meas) {
		ret = -EIO;
		snprintf(err, len,
			 "calibrate --collect: cannot create the cost file, its log or its "
			 "measurements in %s",
			 dir);
		if (f)
			fclose(f);
		if (clog)
			fclose(clog);
		goto out;
	}
	ret = fl_calibrate(f, path, command, meas, clog, check_failed, err, len);
	close_file(clog);
	if (close_file(meas) && !ret)
		ret = -EIO;
	if (close_file(f) && !ret)
		ret = -EIO;
	if (ret)
		goto out;
	fprintf(manifest,
		"calibrate.costs, calibrate.log: this machine's calibration "
		"(probes, bandwidth curve, perf shares, phase times; %d check rows "
		"outside 15%%)\n"
		"calibrate.measured: what it measured, the input of "
		"'foliolab calibrate --fit DIR' on any machine\n",
		*check_failed);

	fprintf(log, "2. host runs at 1 .. %d threads, 4K and 16K\n", cpus);
	for (t = 1; t < cpus && nt < 39; t *= 2)
		threads[nt++] = t;
	threads[nt++] = cpus;
	for (s = 0; s < 2 && !ret; s++)
		for (i = 0; i < nt && !ret; i++) {
			snprintf(sub, sizeof(sub), "lru-%s-%d.json", sizes[s] ? "16K" : "4K",
				 threads[i]);
			ret = record_run(dir, sub, sizes[s], threads[i], COLLECT_LOOPS, false,
					 manifest, log, err, len);
		}
	fprintf(log, "3. perf lock's table at %d threads\n", cpus);
	for (s = 0; s < 2 && !ret; s++) {
		snprintf(sub, sizeof(sub), "lru-locks-%s-%d.json", sizes[s] ? "16K" : "4K", cpus);
		ret = record_run(dir, sub, sizes[s], cpus, COLLECT_LOCK_LOOPS, true, manifest, log,
				 err, len);
	}
out:
	if (ret)
		fprintf(manifest, "# incomplete: %s\n", err);
	close_file(manifest);
	return ret;
}
