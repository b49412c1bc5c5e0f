// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-mt-conservation.c - multi-threaded runs end with every frame free,
 * empty and consistent LRU lists and no live folio: the workloads through
 * the public API on one and two nodes with several folio sizes, and a
 * mixed mm-level churn (mmap, write, DONTNEED, FREE, COLD, munmap, one mm
 * shared by all threads) whose LRU counts are checked at a quiescent
 * point before teardown and whose stores are read back, and threads that
 * store, load and zap the same pages at once.
 *
 * Usage: test-mt-conservation [CASE] [--seed N]
 *
 * Conventions in this file: the end-of-run check inside fl_run() (and
 * mm_down()) is what proves conservation; a run must report status 0.
 */
#include <pthread.h>
#include "mm_harness.h"

static unsigned long seed = 7;

static bool run_workload(const char *wl, const char *threads, const char *size_kb,
			 const char *nodes, const char *extra_name, const char *extra)
{
	struct fl_config cfg;
	struct fl_result res;
	char err[256], k[96];

	fl_config_init(&cfg, wl);
	cfg.sim = false; /* host threads: real concurrency */
	fl_config_set_param(&cfg, "threads", threads);
	if (extra_name)
		fl_config_set_param(&cfg, extra_name, extra);
	cfg.nodes = atoi(nodes);
	if (size_kb) {
		snprintf(k, sizeof(k), "transparent_hugepage/hugepages-%skB/enabled", size_kb);
		fl_config_set_knob(&cfg, k, "always");
	}
	ASSERT_EQ(fl_run(&cfg, &res, err, sizeof(err)), 0);
	if (res.status)
		printf("# %s: %s\n", wl, res.error);
	ASSERT_EQ(res.status, 0);
	ASSERT_EQ(fl_counters_get(&res.counters, "fl_live_folios"), 0);
	ASSERT_EQ(fl_counters_get(&res.counters, "nr_anon_pages"), 0);
	ASSERT_GT(fl_counters_get(&res.counters, "pgfault"), 0);
	fl_result_free(&res);
	return true;
}

static bool test_workloads_conserve_frames(void)
{
	return run_workload("lru-microbench", "4", NULL, "1", "loops", "20") &&
	       run_workload("lru-microbench", "4", "16", "2", "loops", "20") &&
	       run_workload("lru-microbench", "3", "64", "2", "loops", "20") &&
	       run_workload("lru-microbench", "2", "2048", "1", "loops", "5") &&
	       run_workload("page-fault1", "3", "16", "2", "iterations", "3") &&
	       run_workload("page-fault1", "2", NULL, "1", "iterations", "2");
}

struct churn {
	struct mm_struct *mm;
	int cpu;
	unsigned long rng;
	bool ok;
};

static pthread_barrier_t barrier;

static unsigned long next(struct churn *c)
{
	c->rng = c->rng * 6364136223846793005ul + 1442695040888963407ul;
	return c->rng >> 33;
}

static void *churn_main(void *p)
{
	struct churn *c = p;
	unsigned long a[4] = { 0 }, len = 4ul << 20;
	int round, i;

	c->ok = fl_cpu_bind(c->cpu) == 0;
	for (round = 0; round < 2 && c->ok; round++) {
		for (i = 0; i < 4 && c->ok; i++)
			c->ok = do_mmap(c->mm, len, VM_READ | VM_WRITE, &a[i]) == 0;
		for (i = 0; i < 400 && c->ok; i++) {
			unsigned long v = a[next(c) % 4],
				      off = (next(c) % (len / PAGE_SIZE)) * PAGE_SIZE;
			unsigned long n = (next(c) % 64 + 1) * PAGE_SIZE;
			unsigned long k;

			if (off + n > len)
				n = len - off;
			switch (next(c) % 5) {
			case 0:
			case 1:
				for (k = 0; k < n && c->ok; k += PAGE_SIZE)
					c->ok = touch(c->mm, v + off + k, v + off + k) == 0;
				/*
				 * every thread stores a page's own address: a page
				 * reads that, or 0 if another thread's zap came
				 * between, never another page's address
				 */
				for (k = 0; k < n && c->ok; k += PAGE_SIZE) {
					uint64_t t = peek(c->mm, v + off + k);

					c->ok = t == v + off + k || t == 0;
					if (!c->ok)
						printf("# page %#lx read back %#llx\n", v + off + k,
						       (unsigned long long)t);
				}
				break;
			case 2:
				c->ok = do_madvise(c->mm, v + off, n, MADV_DONTNEED) == 0;
				break;
			case 3:
				c->ok = do_madvise(c->mm, v + off, n, MADV_FREE) == 0;
				break;
			case 4:
				c->ok = do_madvise(c->mm, v + off, n, MADV_COLD) == 0;
				break;
			}
		}
		/* every thread stops here: the main thread checks the LRU */
		fl_cpu_unbind();
		pthread_barrier_wait(&barrier);
		pthread_barrier_wait(&barrier);
		fl_cpu_bind(c->cpu);
		for (i = 0; i < 4 && c->ok; i++)
			c->ok = do_munmap(c->mm, a[i], len) == 0;
	}
	fl_cpu_unbind();
	return NULL;
}

/* The pages of @f some mapping maps: all under a PMD, else those with a mapcount. */
static unsigned long mapped_pages_of(struct folio *f)
{
	unsigned long i, n = 0;

	if (!folio_test_large(f))
		return folio_mapcount(f) > 0;
	if (folio_entire_mapcount(f))
		return folio_nr_pages(f);
	for (i = 0; i < folio_nr_pages(f); i++)
		n += folio_page(f, i)->_mapcount > 0;
	return n;
}

static bool test_mixed_churn_shared_mm(void)
{
	enum { N = 3 };
	struct churn c[N];
	pthread_t tid[N];
	int i, round, nid;

	ASSERT_TRUE(mm_up(512, 2, N + 1));
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-16kB/enabled", "always"));
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-64kB/enabled", "always"));
	pthread_barrier_init(&barrier, NULL, N + 1);
	c[0].mm = mm_alloc(1);
	ASSERT_TRUE(c[0].mm != NULL);
	for (i = 0; i < N; i++) {
		c[i].mm = c[0].mm;
		c[i].cpu = i + 1;
		c[i].rng = seed * 31 + (unsigned long)i;
		ASSERT_EQ(pthread_create(&tid[i], NULL, churn_main, &c[i]), 0);
	}
	for (round = 0; round < 2; round++) {
		unsigned long lru_pages = 0, mapped_pages = 0;

		pthread_barrier_wait(&barrier);
		/* quiescent: drain, then every LRU page belongs to a mapped folio */
		lru_add_drain_all();
		for_each_online_node (nid) {
			struct lruvec *lv = &NODE_DATA(nid)->__lruvec;
			char msg[200];
			int l;

			if (!fl__lruvec_validate(lv, msg, sizeof(msg))) {
				printf("# %s\n", msg);
				return false;
			}
			for (l = 0; l < NR_LRU_LISTS; l++) {
				struct folio *f;

				lru_pages += lv->nr_pages[l];
				list_for_each_entry(f, &lv->lists[l], lru)
					mapped_pages += mapped_pages_of(f);
			}
		}
		/*
		 * nr_anon_pages counts the pages a PTE or PMD maps
		 * (CONFIG_PAGE_MAPCOUNT): every page of a folio but those a
		 * partial unmap left unmapped
		 */
		ASSERT_EQ((int64_t)mapped_pages, counter("nr_anon_pages"));
		ASSERT_TRUE(mapped_pages <= lru_pages);
		pthread_barrier_wait(&barrier);
	}
	for (i = 0; i < N; i++) {
		pthread_join(tid[i], NULL);
		ASSERT_TRUE(c[i].ok);
	}
	mmput(c[0].mm);
	pthread_barrier_destroy(&barrier);
	return mm_down();
}

struct same_page {
	struct mm_struct *mm;
	unsigned long base;
	int cpu;
	unsigned long rng;
	int rounds;
	bool ok;
};

/*
 * Every thread on the same 8 pages at once: stores of the page's address,
 * loads that must give it back (or 0 after another thread's zap), and
 * DONTNEED, FREE and COLD on them, so accesses, faults and zaps of one
 * page meet on different CPUs all the time.
 */
static void *same_page_main(void *p)
{
	static const int advice[] = { MADV_DONTNEED, MADV_FREE, MADV_COLD };
	struct same_page *c = p;
	int r;

	c->ok = fl_cpu_bind(c->cpu) == 0;
	for (r = 0; r < c->rounds && c->ok; r++) {
		unsigned long a;

		c->rng = c->rng * 6364136223846793005ul + 1442695040888963407ul;
		a = c->base + ((c->rng >> 33) % 8) * PAGE_SIZE;
		if ((c->rng >> 40) % 3) {
			uint64_t t;

			c->ok = touch(c->mm, a, a) == 0;
			t = peek(c->mm, a);
			c->ok = c->ok && (t == a || t == 0);
		} else {
			c->ok = do_madvise(c->mm, c->base, 8 * PAGE_SIZE,
					   advice[(c->rng >> 45) % 3]) == 0;
		}
	}
	fl_cpu_unbind();
	return NULL;
}

static bool test_same_pages_concurrently(void)
{
	enum { N = 3 };
	struct same_page c[N];
	pthread_t tid[N];
	unsigned long base = 0;
	struct mm_struct *m;
	int i;

	ASSERT_TRUE(mm_up(256, 1, N + 1));
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-16kB/enabled", "always"));
	m = mm_alloc(1);
	ASSERT_TRUE(m != NULL);
	ASSERT_EQ(do_mmap(m, 2ul << 20, VM_READ | VM_WRITE, &base), 0);
	for (i = 0; i < N; i++) {
		c[i] = (struct same_page){ .mm = m,
					   .base = base,
					   .cpu = i + 1,
					   .rng = seed * 131 + (unsigned long)i,
					   .rounds = 20000 };
		ASSERT_EQ(pthread_create(&tid[i], NULL, same_page_main, &c[i]), 0);
	}
	for (i = 0; i < N; i++) {
		pthread_join(tid[i], NULL);
		ASSERT_TRUE(c[i].ok);
	}
	ASSERT_EQ(do_munmap(m, base, 2ul << 20), 0);
	mmput(m);
	return mm_down();
}

/*
 * page-fault1's processes each have an mm that only their own CPU runs, so
 * no zap's TLB flush has another CPU of its mm to wait for, however the
 * processes' accesses interleave.
 */
static bool test_processes_flush_alone(void)
{
	struct fl_config cfg;
	struct fl_result res;
	char err[256];

	fl_config_init(&cfg, "page-fault1");
	cfg.sim = false;
	fl_config_set_param(&cfg, "mode", "processes");
	fl_config_set_param(&cfg, "threads", "3");
	fl_config_set_param(&cfg, "iterations", "20");
	cfg.nodes = 2;
	ASSERT_EQ(fl_run(&cfg, &res, err, sizeof(err)), 0);
	ASSERT_EQ(res.status, 0);
	ASSERT_EQ(fl_counters_get(&res.counters, "fl_tlb_shootdown_wait"), 0);
	fl_result_free(&res);
	return true;
}

int main(int argc, char **argv)
{
	static const struct fl_test tests[] = {
		TEST(test_workloads_conserve_frames),
		TEST(test_mixed_churn_shared_mm),
		TEST(test_processes_flush_alone),
		TEST(test_same_pages_concurrently),
	};
	char *args[2] = { argv[0], NULL };
	int i, n = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoul(argv[++i], NULL, 0);
		else
			args[n++ - 1 + 1] = argv[i];
	}
	printf("# seed %lu\n", seed);
	return fl_test_main(n, args, tests, (int)ARRAY_SIZE(tests));
}
