// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-targets.c - the target API on both back ends, driven the way a
 * workload drives it: a process and its main thread, mmap, MADV_HUGEPAGE,
 * stores and loads of content tags, munmap, and the /proc/meminfo
 * inventory. The model's AnonHugePages must follow the one PMD folio the
 * rule gives exactly; the host's, being system-wide, by at least that
 * much. The host case changes no knob and needs no root.
 *
 * Conventions in this file: "block" is the 2 MiB-aligned 2 MiB range the
 * cases advise; sizes are in kB as /proc/meminfo gives them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"
#include "target/target.h"
#include "target/host.h"
#include "lib/util.h"
#include "platform/platform.h"
#include "workloads/workload.h"

#define MAP_LEN (4ull << 20)
#define BLOCK (2ull << 20)

static const char *knob_value(const struct fl_knobs *k, const char *name)
{
	int i;

	for (i = 0; i < k->nr; i++)
		if (!strcmp(k->v[i].name, name))
			return k->v[i].value;
	return "";
}

/* MADV_HUGEPAGE gets a PMD folio under these knobs (top level and 2048kB) */
static bool pmd_thp_on_madvise(const struct fl_knobs *k)
{
	const char *top = knob_value(k, "transparent_hugepage/enabled");
	const char *pmd = knob_value(k, "transparent_hugepage/hugepages-2048kB/enabled");

	if (!strcmp(pmd, "always") || !strcmp(pmd, "madvise"))
		return true;
	return !strcmp(pmd, "inherit") && (!strcmp(top, "always") || !strcmp(top, "madvise"));
}

static int64_t meminfo(struct fl_target *t, const char *name)
{
	struct fl_counters c = { 0 };
	int64_t v = -1;

	if (!t->ops->meminfo(t, &c))
		v = fl_counters_get(&c, name);
	fl_counters_free(&c);
	return v;
}

/* MemTotal as /proc/meminfo says, read here independently of the target */
static int64_t proc_memtotal(void)
{
	long long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (f) {
		if (fscanf(f, "MemTotal: %lld kB", &kb) != 1)
			kb = -1;
		fclose(f);
	}
	return kb;
}

/*
 * Map 4 MiB, advise the 2 MiB block inside it, store a tag in every page,
 * load them back, unmap. @exact: the model, whose AnonHugePages is this
 * run's alone.
 */
static bool exercise(const struct fl_target_ops *ops, const struct fl_target_config *cfg,
		     bool exact)
{
	struct fl_knobs k = { 0 };
	struct fl_target *t;
	struct fl_proc *p;
	struct fl_thread *th;
	char err[256];
	uint64_t addr, block, sum = 0, n = MAP_LEN / 4096;
	uint64_t want = n * 1000 + 7 * (n * (n - 1) / 2);
	int64_t before, during, after;

	ASSERT_EQ(ops->open(cfg, &t, err, sizeof(err)), 0);
	ASSERT_EQ(t->ops->knobs(t, &k), 0);
	if (!pmd_thp_on_madvise(&k))
		printf("# %s: MADV_HUGEPAGE gets no PMD folio under this host's knobs: "
		       "AnonHugePages must not rise by a block\n",
		       ops->name);
	ASSERT_EQ(t->ops->proc_create(t, &p), 0);
	th = t->ops->proc_main(p);
	ASSERT_TRUE(th != NULL);
	before = meminfo(t, "AnonHugePages");
	ASSERT_GE(before, 0);
	ASSERT_EQ(fl_mmap(th, MAP_LEN, FL_PROT_READ | FL_PROT_WRITE, 0, &addr), 0);
	block = (addr + BLOCK - 1) & ~(BLOCK - 1);
	ASSERT_EQ(fl_madvise(th, block, BLOCK, FL_MADV_HUGEPAGE), 0);
	ASSERT_EQ(fl_write(th, addr, MAP_LEN, 4096, 1000, 7), 0);
	during = meminfo(t, "AnonHugePages");
	ASSERT_EQ(fl_read(th, addr, MAP_LEN, 4096, NULL, &sum), 0);
	ASSERT_EQ(sum, want);
	/* a load outside every mapping is a fault, not a crash */
	ASSERT_EQ(fl_read(th, addr + MAP_LEN + (64ull << 20), 4096, 4096, NULL, &sum), -EFAULT);
	ASSERT_EQ(fl_munmap(th, addr, MAP_LEN), 0);
	after = meminfo(t, "AnonHugePages");
	if (!pmd_thp_on_madvise(&k)) {
		/* no PMD folio for us; other processes' THPs may come and go */
		ASSERT_TRUE(exact ? during == before : during - before < (int64_t)(BLOCK / 1024));
	} else if (exact) {
		ASSERT_EQ(during - before, (int64_t)(BLOCK / 1024));
		ASSERT_EQ(after, before);
	} else {
		ASSERT_GE(during - before, (int64_t)(BLOCK / 1024));
		ASSERT_LT(after, during);
	}
	ASSERT_GT(meminfo(t, "MemTotal"), 0);
	ASSERT_EQ(t->ops->proc_exit(p), 0);
	ASSERT_EQ(t->ops->close(t), 0);
	return true;
}

/*
 * fl_mmap_apart() on @ops: two windows of 4 MiB, each 2 MiB-aligned, with
 * an unmapped page right below and right above (so neither can merge with
 * a neighbour), usable in full; then munmap of a middle part leaves the
 * two ends usable and the middle unmapped.
 */
static bool apart(const struct fl_target_ops *ops, const struct fl_target_config *cfg)
{
	struct fl_target *t;
	struct fl_proc *p;
	struct fl_thread *th;
	char err[256];
	uint64_t a[2], sum, n = MAP_LEN / 4096;
	int i;

	ASSERT_EQ(ops->open(cfg, &t, err, sizeof(err)), 0);
	ASSERT_EQ(t->ops->proc_create(t, &p), 0);
	th = t->ops->proc_main(p);
	ASSERT_TRUE(th != NULL);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(fl_mmap_apart(th, MAP_LEN, &a[i]), 0);
		ASSERT_EQ(a[i] % BLOCK, 0);
	}
	ASSERT_TRUE(a[0] + MAP_LEN < a[1] || a[1] + MAP_LEN < a[0]);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(fl_write(th, a[i], MAP_LEN, 4096, 1, 1), 0);
		ASSERT_EQ(fl_read(th, a[i], MAP_LEN, 4096, NULL, &sum), 0);
		ASSERT_EQ(sum, n * (n + 1) / 2);
		ASSERT_EQ(fl_read(th, a[i] - 4096, 4096, 4096, NULL, &sum), -EFAULT);
		ASSERT_EQ(fl_read(th, a[i] + MAP_LEN, 4096, 4096, NULL, &sum), -EFAULT);
	}
	/* a middle part: the head and the tail stay, with their contents */
	ASSERT_EQ(fl_munmap(th, a[0] + BLOCK, 4096), 0);
	ASSERT_EQ(fl_read(th, a[0] + BLOCK, 4096, 4096, NULL, &sum), -EFAULT);
	ASSERT_EQ(fl_read(th, a[0], 4096, 4096, NULL, &sum), 0);
	ASSERT_EQ(sum, 1);
	ASSERT_EQ(fl_read(th, a[0] + BLOCK + 4096, 4096, 4096, NULL, &sum), 0);
	ASSERT_EQ(sum, BLOCK / 4096 + 2);
	ASSERT_EQ(fl_munmap(th, a[0], BLOCK), 0);
	ASSERT_EQ(fl_munmap(th, a[0] + BLOCK + 4096, MAP_LEN - BLOCK - 4096), 0);
	ASSERT_EQ(fl_munmap(th, a[1], MAP_LEN), 0);
	ASSERT_EQ(fl_read(th, a[1], 4096, 4096, NULL, &sum), -EFAULT);
	ASSERT_EQ(t->ops->proc_exit(p), 0);
	ASSERT_EQ(t->ops->close(t), 0);
	return true;
}

static bool test_mmap_apart(void)
{
	struct fl_target_config mc = { .mem_bytes = 256ull << 20, .nodes = 1, .cpus = 1 };
	struct fl_target_config hc = { .no_knobs = true };

	return apart(&fl__model_target_ops, &mc) && apart(&fl__host_target_ops, &hc);
}

static bool test_model_target(void)
{
	struct fl_target_config cfg = { .mem_bytes = 256ull << 20, .nodes = 1, .cpus = 1 };

	return exercise(&fl__model_target_ops, &cfg, true);
}

static bool test_host_target(void)
{
	struct fl_target_config cfg = { .no_knobs = true };
	struct fl_target *t;
	char err[256];

	if (!exercise(&fl__host_target_ops, &cfg, false))
		return false;
	/* the host's MemTotal is /proc/meminfo's */
	ASSERT_EQ(fl__host_target_ops.open(&cfg, &t, err, sizeof(err)), 0);
	ASSERT_EQ(meminfo(t, "MemTotal"), proc_memtotal());
	ASSERT_GT(meminfo(t, "MemTotal"), 0);
	ASSERT_EQ(t->ops->close(t), 0);
	return true;
}

/*
 * fl__host_cpuinfo(), which describe() and the bench use: a key matches
 * its own line only (a prefix of "model name" is no key), the value comes without
 * the separator or the newline, and a missing key gives -ENOENT and "".
 */
static bool test_host_cpuinfo(void)
{
	char name[128], part[128] = "x", none[8] = "x";

#if defined(__x86_64__) || defined(__i386__)
	/* x86's /proc/cpuinfo names the model on every CPU's record */
	ASSERT_EQ(fl__host_cpuinfo("model name", name, sizeof(name)), 0);
#else
	if (fl__host_cpuinfo("model name", name, sizeof(name)))
		snprintf(name, sizeof(name), "(none)");
#endif
	ASSERT_TRUE(name[0] != '\0' && name[0] != ' ' && name[0] != '\t');
	ASSERT_TRUE(!strchr(name, '\n'));
	ASSERT_EQ(fl__host_cpuinfo("model nam", part, sizeof(part)), -ENOENT);
	ASSERT_STREQ(part, "");
	ASSERT_EQ(fl__host_cpuinfo("no such key", none, sizeof(none)), -ENOENT);
	ASSERT_STREQ(none, "");
	return true;
}

/*
 * /proc/stat's cpu line is user nice system idle iowait irq softirq steal
 * ...: busy is fields 1, 2, 3, 6 and 7, steal field 8; the steal share is
 * steal over busy plus steal, of the difference between two readings.
 */
static bool test_cpu_ticks(void)
{
	struct fl_cpu_ticks t, a = { 100, 10 }, b = { 190, 40 }, now, later;

	ASSERT_EQ(fl__parse_cpu_ticks("cpu  10 20 30 40 50 60 70 80 90 100\n", &t), 0);
	ASSERT_EQ(t.busy, 190ull);
	ASSERT_EQ(t.steal, 80ull);
	ASSERT_EQ(fl__parse_cpu_ticks("cpu0 1 2 3 4 5 6 7 8\n", &t), -EINVAL);
	ASSERT_EQ(fl__parse_cpu_ticks("cpu  1 2 3\n", &t), -EINVAL);
	ASSERT_EQ(t.busy + t.steal, 0ull);
	ASSERT_TRUE(fl__steal_pct(&a, &b) > 24.999 && fl__steal_pct(&a, &b) < 25.001);
	ASSERT_TRUE(fl__steal_pct(&a, &a) < 0); /* no tick elapsed: unknown */
	ASSERT_TRUE(fl__steal_pct(&b, &a) < 0); /* a counter went backwards */
	ASSERT_EQ(fl__host_cpu_ticks(&now), 0); /* Linux has /proc/stat */
	ASSERT_GT(now.busy, 0ull);
	ASSERT_EQ(fl__host_cpu_ticks(&later), 0);
	ASSERT_GE(later.busy, now.busy);
	ASSERT_GE(later.steal, now.steal);
	return true;
}

/*
 * A run's record carries the /proc/stat ticks behind its steal share: the
 * share is steal over busy plus steal of exactly those ticks, and a run
 * of a tenth of a second or more (at least ten 100 Hz ticks of it on
 * the CPU) has them.
 */
static bool test_run_ticks(void)
{
	struct fl_config cfg;
	struct fl_result res;
	char err[256], loops[16];
	double pct;
	int n;

	/* as many loops as a tenth of a second of CPU takes on this machine */
	for (n = 500;; n *= 4) {
		fl_config_init(&cfg, "lru-microbench");
		fl_config_set_param(&cfg, "threads", "1");
		snprintf(loops, sizeof(loops), "%d", n);
		fl_config_set_param(&cfg, "loops", loops);
		ASSERT_EQ(fl_run(&cfg, &res, err, sizeof(err)), 0);
		ASSERT_EQ(res.status, 0);
		if (res.user_s + res.sys_s >= 0.1)
			break;
		fl_result_free(&res);
		ASSERT_LT(n, 500 * 64); /* a machine this fast would be news */
	}
	ASSERT_TRUE(res.steal_pct >= 0);
	ASSERT_GT(res.machine_busy_ticks, 0ull);
	pct = 100.0 * (double)res.machine_steal_ticks /
	      (double)(res.machine_busy_ticks + res.machine_steal_ticks);
	ASSERT_TRUE(res.steal_pct > pct - 1e-9 && res.steal_pct < pct + 1e-9);
	fl_result_free(&res);
	return true;
}

/*
 * A task's CPU time from /proc/PID/stat (proc(5)): utime and stime are the
 * 14th and 15th fields, counted from the name's closing parenthesis, which
 * the name itself may contain. khugepaged's is read from the live host.
 */
static bool test_proc_stat_cpu_ticks(void)
{
	long long t = -1;
	int64_t ns = -1;

	ASSERT_EQ(fl__proc_stat_cpu_ticks("73 (khugepaged) S 2 0 0 0 -1 2097216 0 0 0 0 "
					  "1234 567 0 0 39 19 1 0 30 0 0",
					  &t),
		  0);
	ASSERT_EQ(t, 1234 + 567);
	ASSERT_EQ(fl__proc_stat_cpu_ticks("9 (a) b (c)) R 1 9 9 0 -1 0 1 2 3 4 5 6 7 8", &t), 0);
	ASSERT_EQ(t, 5 + 6);
	ASSERT_EQ(fl__proc_stat_cpu_ticks("9 (short) R 1 2 3", &t), -EINVAL);
	ASSERT_EQ(fl__proc_stat_cpu_ticks("no parenthesis", &t), -EINVAL);
	/* a THP kernel has the thread; its time only grows */
	if (fl__host_khugepaged_ns(&ns) == 0)
		ASSERT_GE(ns, 0);
	return true;
}

/*
 * khugepaged's scan results as the tracepoint's format names them (the
 * shape of /sys/kernel/tracing/events/huge_memory/mm_khugepaged_scan_pmd/format:
 * __print_symbolic() with { value, "string" } pairs).
 */
static bool test_scan_symbols(void)
{
	static const char fmt[] =
		"name: mm_khugepaged_scan_pmd\nID: 512\nformat:\n\tfield:int status;\n\n"
		"print fmt: \"mm=%p, scan_pfn=0x%lx, writable=%d, referenced=%d, "
		"none_or_zero=%d, status=%s, unmapped=%d\", REC->mm, REC->pfn, REC->writable, "
		"REC->referenced, REC->none_or_zero, __print_symbolic(REC->status, { 0, "
		"\"failed\" }, { 1, \"succeeded\" }, { 11, \"lack_referenced_page\" }, { 30, "
		"\"page_filled\" }), REC->unmapped\n";
	struct fl_scan_symbols s;

	ASSERT_EQ(fl__scan_symbols_parse(fmt, &s), 0);
	ASSERT_EQ(s.nr, 4);
	ASSERT_EQ(s.val[2], 11);
	ASSERT_TRUE(!strcmp(s.name[2], "lack_referenced_page"));
	ASSERT_EQ(s.val[3], 30);
	ASSERT_TRUE(!strcmp(s.name[3], "page_filled"));
	ASSERT_EQ(fl__scan_symbols_parse("print fmt: \"%d\", REC->x\n", &s), -EINVAL);
	return true;
}

/*
 * fl_read_text() reads to the end: a file of exactly @max bytes comes
 * whole, one more byte is EFBIG; a pseudo file whose size reads as 0
 * (/proc/self/stat) comes with its text.
 */
static bool test_read_text(void)
{
	char path[] = "/tmp/fl-read-text-XXXXXX", *text;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int i;

	ASSERT_TRUE(f != NULL);
	for (i = 0; i < 5000; i++)
		fputc('a' + i % 26, f);
	fclose(f);
	text = fl_read_text(path, 5000);
	ASSERT_TRUE(text != NULL);
	ASSERT_EQ(strlen(text), 5000ul);
	ASSERT_EQ(text[4999], 'a' + 4999 % 26);
	free(text);
	errno = 0;
	ASSERT_TRUE(fl_read_text(path, 4999) == NULL);
	ASSERT_EQ(errno, EFBIG);
	unlink(path);
	errno = 0;
	ASSERT_TRUE(fl_read_text(path, 5000) == NULL);
	ASSERT_EQ(errno, ENOENT);
	text = fl_read_text("/proc/self/stat", 1 << 16);
	ASSERT_TRUE(text != NULL && strchr(text, ')') != NULL);
	free(text);
	return true;
}

/*
 * fl__run_procs() against a stand-in target: it makes the processes asked
 * (task i in process i while i < nprocs, in the first after), runs the
 * tasks once, exits every process it made, and returns the first error:
 * a creation's (after exiting those made), the run's, else an exit's.
 */
static struct fake {
	struct fl_proc procs[4];
	int made, exited, fail_create_at, run_err, exit_err, runs, distinct;
} fk;

static int fake_create(struct fl_target *t, struct fl_proc **out)
{
	if (fk.made == fk.fail_create_at)
		return -EAGAIN;
	fk.procs[fk.made].target = t;
	*out = &fk.procs[fk.made++];
	return 0;
}

static int fake_exit(struct fl_proc *p)
{
	(void)p;
	fk.exited++;
	return fk.exit_err;
}

static int fake_run(struct fl_target *t, struct fl_proc **procs, int n,
		    void (*fn)(struct fl_thread *th, void *arg), void *arg)
{
	int i, j;

	(void)t, (void)fn, (void)arg;
	fk.runs++;
	fk.distinct = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && procs[j] != procs[i]; j++)
			;
		fk.distinct += j == i;
		if (procs[i] !=
		    &fk.procs[i < fk.made ? i : 0]) /* task i in process i, or the first */
			return -EFAULT;
	}
	return fk.run_err;
}

static void no_task(struct fl_thread *th, void *arg)
{
	(void)th, (void)arg;
}

static int fake_procs(int tasks, int nprocs, int fail_at, int run_err, int exit_err)
{
	static const struct fl_target_ops ops = { .proc_create = fake_create,
						  .proc_exit = fake_exit,
						  .run_tasks = fake_run };
	struct fl_target t = { .ops = &ops };
	struct fl_wl_ctx ctx = { .target = &t };

	memset(&fk, 0, sizeof(fk));
	fk.fail_create_at = fail_at;
	fk.run_err = run_err;
	fk.exit_err = exit_err;
	return fl__run_procs(&ctx, tasks, nprocs, no_task, NULL);
}

static bool test_run_procs(void)
{
	/* 4 tasks in 3 processes: the 4th in the first; all made, run, exited */
	ASSERT_EQ(fake_procs(4, 3, -1, 0, 0), 0);
	ASSERT_TRUE(fk.made == 3 && fk.runs == 1 && fk.distinct == 3 && fk.exited == 3);
	/* threads of one process */
	ASSERT_EQ(fake_procs(4, 1, -1, 0, 0), 0);
	ASSERT_TRUE(fk.made == 1 && fk.distinct == 1 && fk.exited == 1);
	/* the second creation fails: the first exits, nothing runs */
	ASSERT_EQ(fake_procs(4, 3, 1, 0, 0), -EAGAIN);
	ASSERT_TRUE(fk.made == 1 && fk.runs == 0 && fk.exited == 1);
	/* the run's error before an exit's; an exit's alone is returned */
	ASSERT_EQ(fake_procs(2, 2, -1, -EIO, -EBUSY), -EIO);
	ASSERT_EQ(fk.exited, 2);
	ASSERT_EQ(fake_procs(2, 2, -1, 0, -EBUSY), -EBUSY);
	ASSERT_EQ(fk.exited, 2);
	/* more processes than tasks, or none: refused */
	ASSERT_EQ(fake_procs(1, 2, -1, 0, 0), -EINVAL);
	ASSERT_EQ(fake_procs(1, 0, -1, 0, 0), -EINVAL);
	ASSERT_EQ(fk.made, 0);
	return true;
}

TEST_MAIN(TEST(test_model_target), TEST(test_host_target), TEST(test_host_cpuinfo),
	  TEST(test_cpu_ticks), TEST(test_run_ticks), TEST(test_mmap_apart),
	  TEST(test_proc_stat_cpu_ticks), TEST(test_scan_symbols), TEST(test_read_text),
	  TEST(test_run_procs))
