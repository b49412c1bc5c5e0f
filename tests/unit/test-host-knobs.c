// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-host-knobs.c - the host target's knob handling and perf parsing on
 * a fake sysfs tree ($FOLIOLAB_HOST_SYSFS), a fake /proc/sys/vm
 * ($FOLIOLAB_HOST_PROCSYS_VM) and a private run folder
 * ($FOLIOLAB_RUNDIR), so it needs no root and never touches the machine:
 * value parsing, refusal before any change, the restore file written
 * before the first change, restore at the end, on SIGTERM, after SIGKILL
 * by fl_host_restore(), other runs' folders, and perf lock contention
 * lines folded into lock rows.
 *
 * Conventions in this file: "root" is the fake transparent_hugepage folder.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"
#include "target/host.h"
#include "record/outfile.h"

static char root[256], rundir[256], vmroot[256];

static void put(const char *rel, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void get(const char *rel, char *buf, size_t len)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (fl__host_knob_read(path, buf, len))
		snprintf(buf, len, "(unreadable)");
}

/* A fresh tree laid out like the host's, with the host's default values. */
static void make_tree(void)
{
	char cmd[2048]; /* four paths of up to 256 bytes and the commands */

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s'", root, rundir, vmroot);
	if (system(cmd))
		return;
	mkdir(root, 0700);
	mkdir(vmroot, 0700);
	snprintf(cmd, sizeof(cmd),
		 "echo 60 > '%s/swappiness'; echo 67584 > '%s/min_free_kbytes'; "
		 "echo 10 > '%s/watermark_scale_factor'; echo 3 > '%s/page-cluster'",
		 vmroot, vmroot, vmroot, vmroot);
	if (system(cmd))
		return;
	snprintf(cmd, sizeof(cmd), "%s/hugepages-16kB", root);
	mkdir(cmd, 0700);
	snprintf(cmd, sizeof(cmd), "%s/hugepages-2048kB", root);
	mkdir(cmd, 0700);
	snprintf(cmd, sizeof(cmd), "%s/khugepaged", root);
	mkdir(cmd, 0700);
	put("enabled", "always [madvise] never\n");
	put("defrag", "always defer defer+madvise [madvise] never\n");
	put("hugepages-16kB/enabled", "always inherit madvise [never]\n");
	put("hugepages-2048kB/enabled", "always [inherit] madvise never\n");
	put("khugepaged/scan_sleep_millisecs", "10000\n");
}

static struct fl_knobs knobs(const char *n1, const char *v1, const char *n2, const char *v2)
{
	struct fl_knobs k = { .nr = 0 };

	fl_knobs_set(&k, n1, v1);
	if (n2)
		fl_knobs_set(&k, n2, v2);
	return k;
}

static bool restore_file_exists(pid_t pid)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%ld/restore", rundir, (long)pid);
	return access(path, F_OK) == 0;
}

static bool test_knob_read(void)
{
	char v[48];

	make_tree();
	get("enabled", v, sizeof(v));
	ASSERT_STREQ(v, "madvise");
	get("hugepages-2048kB/enabled", v, sizeof(v));
	ASSERT_STREQ(v, "inherit");
	get("khugepaged/scan_sleep_millisecs", v, sizeof(v));
	ASSERT_STREQ(v, "10000");
	return true;
}

static bool test_check_refuses_bad_input(void)
{
	struct fl_knobs k;
	char err[256];

	make_tree();
	/* a size this kernel lacks */
	k = knobs("transparent_hugepage/hugepages-64kB/enabled", "always", NULL, NULL);
	ASSERT_EQ(fl__host_knobs_check(&k, err, sizeof(err)), -EINVAL);
	ASSERT_TRUE(strstr(err, "this kernel has no") != NULL);
	/* a word the file does not offer: the message lists the ones it does */
	k = knobs("transparent_hugepage/enabled", "sometimes", NULL, NULL);
	ASSERT_EQ(fl__host_knobs_check(&k, err, sizeof(err)), -EINVAL);
	ASSERT_TRUE(strstr(err, "accepted: always, madvise, never") != NULL);
	/* numbers only for a numeric knob */
	k = knobs("transparent_hugepage/khugepaged/scan_sleep_millisecs", "fast", NULL, NULL);
	ASSERT_EQ(fl__host_knobs_check(&k, err, sizeof(err)), -EINVAL);
	/* the model's policies are not host knobs */
	k = knobs("foliolab/lru_cache", "pages31", NULL, NULL);
	ASSERT_EQ(fl__host_knobs_check(&k, err, sizeof(err)), -EINVAL);
	ASSERT_TRUE(strstr(err, "model policy") != NULL);
	/* no escaping the tree */
	k = knobs("transparent_hugepage/../../etc/passwd", "x", NULL, NULL);
	ASSERT_EQ(fl__host_knobs_check(&k, err, sizeof(err)), -EINVAL);
	return true;
}

static bool test_bad_knob_changes_nothing(void)
{
	struct fl_knobs k;
	char err[256], v[48];

	make_tree();
	ASSERT_EQ(fl__host_rundir_create(err, sizeof(err)), 0);
	/* the first knob is fine, the second is not: neither may be written */
	k = knobs("transparent_hugepage/hugepages-16kB/enabled", "always",
		  "transparent_hugepage/enabled", "bogus");
	ASSERT_EQ(fl__host_knobs_apply(&k, err, sizeof(err)), -EINVAL);
	get("hugepages-16kB/enabled", v, sizeof(v));
	ASSERT_STREQ(v, "never");
	ASSERT_TRUE(!restore_file_exists(getpid()));
	fl__host_rundir_remove();
	ASSERT_TRUE(access(rundir, F_OK) != 0);
	return true;
}

static bool test_apply_then_restore(void)
{
	struct fl_knobs k, now = { .nr = 0 };
	char err[256], v[48], path[600], line[700];
	bool found = false;
	FILE *f;

	make_tree();
	ASSERT_EQ(fl__host_rundir_create(err, sizeof(err)), 0);
	k = knobs("transparent_hugepage/hugepages-16kB/enabled", "always",
		  "transparent_hugepage/khugepaged/scan_sleep_millisecs", "500");
	ASSERT_EQ(fl__host_knobs_apply(&k, err, sizeof(err)), 0);
	/* the knobs changed, and the restore file holds the old values */
	put("hugepages-16kB/enabled", "[always] inherit madvise never\n"); /* as sysfs shows it */
	get("hugepages-16kB/enabled", v, sizeof(v));
	ASSERT_STREQ(v, "always");
	get("khugepaged/scan_sleep_millisecs", v, sizeof(v));
	ASSERT_STREQ(v, "500");
	ASSERT_TRUE(restore_file_exists(getpid()));
	snprintf(path, sizeof(path), "%s/%ld/restore", rundir, (long)getpid());
	f = fopen(path, "r");
	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, "hugepages-16kB/enabled\tnever") != NULL;
	fclose(f);
	ASSERT_TRUE(found);
	/* the knob list reads the values in force */
	fl__host_knobs_read(&now);
	ASSERT_GE(now.nr, 4);
	fl__host_rundir_remove();
	get("hugepages-16kB/enabled", v, sizeof(v));
	ASSERT_STREQ(v, "never");
	get("khugepaged/scan_sleep_millisecs", v, sizeof(v));
	ASSERT_STREQ(v, "10000");
	ASSERT_TRUE(access(rundir, F_OK) != 0);
	return true;
}

/*
 * The vm sysctls (vm/<name>: /proc/sys/vm/<name>): only the three the
 * model has, in the kernel's ranges, refused before anything changes;
 * set, read among the knobs, and put back at the end.
 */
static bool test_vm_knobs(void)
{
	struct fl_knobs k, now = { .nr = 0 };
	char err[256], path[600], v[48];
	int i;
	bool seen = false;

	make_tree();
	k = knobs("vm/dirty_ratio", "5", NULL, NULL);
	ASSERT_EQ(fl__host_knobs_check(&k, err, sizeof(err)), -EINVAL);
	ASSERT_TRUE(strstr(err, "vm/swappiness, vm/min_free_kbytes") != NULL);
	k = knobs("vm/swappiness", "201", NULL, NULL);
	ASSERT_EQ(fl__host_knobs_check(&k, err, sizeof(err)), -EINVAL);
	ASSERT_TRUE(strstr(err, "0..200") != NULL);
	k = knobs("vm/watermark_scale_factor", "0", NULL, NULL);
	ASSERT_EQ(fl__host_knobs_check(&k, err, sizeof(err)), -EINVAL);
	ASSERT_EQ(fl__host_rundir_create(err, sizeof(err)), 0);
	k = knobs("vm/swappiness", "100", "vm/watermark_scale_factor", "200");
	ASSERT_EQ(fl__host_knobs_apply(&k, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/swappiness", vmroot);
	ASSERT_EQ(fl__host_knob_read(path, v, sizeof(v)), 0);
	ASSERT_STREQ(v, "100");
	fl__host_knobs_read(&now);
	for (i = 0; i < now.nr; i++)
		seen |= !strcmp(now.v[i].name, "vm/watermark_scale_factor") &&
			!strcmp(now.v[i].value, "200");
	ASSERT_TRUE(seen);
	fl__host_rundir_remove();
	ASSERT_EQ(fl__host_knob_read(path, v, sizeof(v)), 0);
	ASSERT_STREQ(v, "60");
	snprintf(path, sizeof(path), "%s/watermark_scale_factor", vmroot);
	ASSERT_EQ(fl__host_knob_read(path, v, sizeof(v)), 0);
	ASSERT_STREQ(v, "10");
	return true;
}

/* A child sets knob @name to @value and dies of @sig; returns its pid, or -1. */
static pid_t child_dies(int sig, const char *name, const char *value)
{
	struct fl_knobs k = knobs(name, value, NULL, NULL);
	char err[256];
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (fl__host_rundir_create(err, sizeof(err)) || fl__host_knobs_apply(&k, err, 256))
			_exit(3);
		raise(sig);
		_exit(4);
	}
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == sig ? pid : -1;
}

/* A vm sysctl left changed by a killed run: `host restore` puts it back too. */
static bool test_vm_knob_after_sigkill(void)
{
	char err[256], v[48], path[600], out[4096] = "";
	FILE *rep;
	pid_t pid;

	make_tree();
	pid = child_dies(SIGKILL, "vm/swappiness", "100");
	ASSERT_GT(pid, 0);
	snprintf(path, sizeof(path), "%s/swappiness", vmroot);
	ASSERT_EQ(fl__host_knob_read(path, v, sizeof(v)), 0);
	ASSERT_STREQ(v, "100");
	rep = fmemopen(out, sizeof(out) - 1, "w");
	ASSERT_EQ(fl_host_restore(rep, err, sizeof(err)), 0);
	fclose(rep);
	ASSERT_EQ(fl__host_knob_read(path, v, sizeof(v)), 0);
	ASSERT_STREQ(v, "60");
	ASSERT_TRUE(!restore_file_exists(pid));
	return true;
}

static bool test_sigterm_restores(void)
{
	char v[48];
	pid_t pid;

	make_tree();
	pid = child_dies(SIGTERM, "transparent_hugepage/hugepages-16kB/enabled", "always");
	ASSERT_GT(pid, 0);
	get("hugepages-16kB/enabled", v, sizeof(v));
	ASSERT_STREQ(v, "never");
	ASSERT_TRUE(!restore_file_exists(pid));
	return true;
}

/*
 * A signal the caller ignores stays ignored (nohup's SIGHUP): the run goes
 * on, its knob still set, and puts it back at its end; one it does not
 * ignore ends it with the knob put back, its output's temporary removed.
 */
static bool test_ignored_signal_left_ignored(void)
{
	struct fl_knobs k = knobs("transparent_hugepage/hugepages-16kB/enabled", "always", NULL,
				  NULL);
	char err[256], v[48], tmp[600];
	int status, sig;

	for (sig = 0; sig < 2; sig++) {
		pid_t pid;

		make_tree();
		pid = fork();
		if (pid == 0) {
			int fd;

			if (sig == 0)
				signal(SIGHUP, SIG_IGN);
			mkdir(rundir, 0700);
			fd = fl__tmp_create(rundir, "out", false, tmp, sizeof(tmp));
			if (fd < 0 || fl__host_rundir_create(err, sizeof(err)) ||
			    fl__host_knobs_apply(&k, err, 256))
				_exit(3);
			close(fd);
			raise(SIGHUP);
			/* still running: the knob is the run's, the temporary there */
			get("hugepages-16kB/enabled", v, sizeof(v));
			if (strcmp(v, "always") || access(tmp, F_OK))
				_exit(5);
			fl__host_rundir_remove();
			fl__tmp_remove(tmp, false);
			_exit(0);
		}
		waitpid(pid, &status, 0);
		if (sig == 0)
			ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		else
			ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP);
		get("hugepages-16kB/enabled", v, sizeof(v));
		ASSERT_STREQ(v, "never");
		ASSERT_TRUE(!restore_file_exists(pid));
		snprintf(tmp, sizeof(tmp), "%s/out.%ld.0", rundir, (long)pid);
		ASSERT_TRUE(access(tmp, F_OK) != 0);
	}
	return true;
}

static bool test_sigkill_then_host_restore(void)
{
	struct fl_knobs k = knobs("transparent_hugepage/enabled", "always", NULL, NULL);
	char err[256], v[48], out[4096] = "";
	FILE *rep;
	pid_t pid;

	make_tree();
	pid = child_dies(SIGKILL, "transparent_hugepage/hugepages-16kB/enabled", "always");
	ASSERT_GT(pid, 0);
	/* SIGKILL cannot be caught: the knob stays changed, the file stays */
	get("hugepages-16kB/enabled", v, sizeof(v));
	ASSERT_STREQ(v, "always");
	ASSERT_TRUE(restore_file_exists(pid));
	/* a new run refuses to start until the old one is undone */
	ASSERT_EQ(fl__host_knobs_check(&k, err, sizeof(err)), -EBUSY);
	ASSERT_TRUE(strstr(err, "foliolab host restore") != NULL);
	rep = fmemopen(out, sizeof(out) - 1, "w");
	ASSERT_EQ(fl_host_restore(rep, err, sizeof(err)), 0);
	fclose(rep);
	ASSERT_TRUE(strstr(out, "restored") != NULL);
	get("hugepages-16kB/enabled", v, sizeof(v));
	ASSERT_STREQ(v, "never");
	ASSERT_TRUE(!restore_file_exists(pid));
	ASSERT_EQ(fl__host_knobs_check(&k, err, sizeof(err)), 0);
	return true;
}

static bool test_live_run_left_alone(void)
{
	struct fl_knobs k = knobs("transparent_hugepage/enabled", "always", NULL, NULL);
	char err[256], path[600], out[2048] = "";
	FILE *rep;

	make_tree();
	/* our parent is alive: its folder must not be touched */
	mkdir(rundir, 0700);
	snprintf(path, sizeof(path), "%s/%ld", rundir, (long)getppid());
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%ld/restore", rundir, (long)getppid());
	fclose(fopen(path, "w"));
	ASSERT_EQ(fl__host_knobs_check(&k, err, sizeof(err)), -EBUSY);
	ASSERT_TRUE(strstr(err, "wait for it") != NULL);
	rep = fmemopen(out, sizeof(out) - 1, "w");
	ASSERT_EQ(fl_host_restore(rep, err, sizeof(err)), 0);
	fclose(rep);
	ASSERT_TRUE(strstr(out, "still going") != NULL);
	ASSERT_EQ(access(path, F_OK), 0);
	return true;
}

static bool test_tampered_restore_file(void)
{
	char err[256], path[600], out[2048] = "";
	FILE *f, *rep;

	make_tree();
	mkdir(rundir, 0700);
	/* pid 1 is never a dead foliolab run, so use a pid that cannot exist */
	snprintf(path, sizeof(path), "%s/999999999", rundir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/999999999/restore", rundir);
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	fprintf(f, "pid 999999999\n/etc/hostname\tpwned\n");
	fclose(f);
	rep = fmemopen(out, sizeof(out) - 1, "w");
	ASSERT_EQ(fl_host_restore(rep, err, sizeof(err)), -EIO);
	fclose(rep);
	ASSERT_TRUE(strstr(out, "skipped /etc/hostname") != NULL);
	return true;
}

static bool test_perf_fold(void)
{
	struct fl_locks l = { 0 };
	const struct fl_lock_stat_row *r;

	/* header and blank lines are not rows */
	ASSERT_EQ(fl__perf_fold_line(" contended   total wait     max wait     min wait     avg "
				     "wait         type   caller\n",
				     &l),
		  0);
	ASSERT_EQ(fl__perf_fold_line("\n", &l), 0);
	ASSERT_EQ(fl__perf_fold_line("      1508      5.07 ms     47.39 us      1.00 us      3.36 "
				     "us     spinlock   folio_batch_move_lru+0x88\n",
				     &l),
		  1);
	/* perf splits a caller by call stack: the same function adds up */
	ASSERT_EQ(fl__perf_fold_line("        97    320.03 us     60.00 us      900 ns      3.30 "
				     "us     spinlock   folio_batch_move_lru+0x88\n",
				     &l),
		  1);
	ASSERT_EQ(fl__perf_fold_line("      1388      1.20 s     25.27 us      1.10 us      3.03 "
				     "us     spinlock   __page_cache_release.part.0+0x58\n",
				     &l),
		  1);
	ASSERT_EQ(fl__perf_fold_line("         2     98.11 us     52.59 us     45.52 us     49.06 "
				     "us      rwsem:R   exc_page_fault+0x1d8\n",
				     &l),
		  1);
	ASSERT_EQ(fl__perf_fold_line("        18    116.28 us     12.79 us      1.00 us      6.46 "
				     "us     spinlock   swake_up_one+0x35\n",
				     &l),
		  1);
	ASSERT_EQ(l.nr, 4);
	r = fl_locks_find(&l, "lruvec->lru_lock", "folio_batch_move_lru");
	ASSERT_TRUE(r != NULL);
	ASSERT_EQ(r->contended, 1508 + 97);
	ASSERT_EQ(r->wait_total_ns, 5070000 + 320030);
	ASSERT_EQ(r->wait_max_ns, 60000);
	ASSERT_EQ(r->wait_min_ns, 900);
	ASSERT_TRUE(r->no_acquired);
	r = fl_locks_find(&l, "lruvec->lru_lock", "__page_cache_release");
	ASSERT_TRUE(r != NULL);
	ASSERT_EQ(r->wait_total_ns, 1200000000);
	ASSERT_TRUE(fl_locks_find(&l, "mm->mmap_lock", "exc_page_fault") != NULL);
	/* an unknown caller keeps perf's type as its class */
	ASSERT_TRUE(fl_locks_find(&l, "spinlock", "swake_up_one") != NULL);
	fl_locks_free(&l);
	return true;
}

static void cleanup(void)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s'", root, rundir, vmroot);
	if (system(cmd))
		fprintf(stderr, "# cleanup failed\n");
}

int main(int argc, char **argv)
{
	static const struct fl_test tests[] = {
		TEST(test_knob_read),
		TEST(test_check_refuses_bad_input),
		TEST(test_bad_knob_changes_nothing),
		TEST(test_apply_then_restore),
		TEST(test_sigterm_restores),
		TEST(test_ignored_signal_left_ignored),
		TEST(test_sigkill_then_host_restore),
		TEST(test_live_run_left_alone),
		TEST(test_tampered_restore_file),
		TEST(test_perf_fold),
		TEST(test_vm_knobs),
		TEST(test_vm_knob_after_sigkill),
	};
	char base[] = "/tmp/fl-host-knobs-XXXXXX";
	int ret;

	if (!mkdtemp(base))
		return 1;
	snprintf(root, sizeof(root), "%s/thp", base);
	snprintf(rundir, sizeof(rundir), "%s/run", base);
	snprintf(vmroot, sizeof(vmroot), "%s/vm", base);
	setenv("FOLIOLAB_HOST_SYSFS", root, 1);
	setenv("FOLIOLAB_HOST_PROCSYS_VM", vmroot, 1);
	setenv("FOLIOLAB_RUNDIR", rundir, 1);
	ret = fl_test_main(argc, argv, tests, (int)(sizeof(tests) / sizeof(tests[0])));
	cleanup();
	rmdir(base);
	return ret;
}
