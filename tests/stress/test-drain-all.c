// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-drain-all.c - lru_add_drain_all() and lru_cache_disable() while
 * other CPUs keep adding folios to their batches: nothing is lost, nothing
 * is moved twice, every folio ends on the LRU or freed, and after a
 * disable no batch holds anything.
 *
 * Usage: test-drain-all [CASE] [--seed N]; the seed picks the folio orders.
 *
 * Conventions in this file: CPU 0 drains, CPUs 1..N add; each adder keeps
 * every 8th folio (so the LRU lists fill) and drops the rest.
 */
#include <pthread.h>
#include "mm_harness.h"

#define ADDERS 3
#define PER_ADDER 100000

static unsigned long seed = 42;
static int stop; /* atomic */

struct adder {
	int cpu;
	unsigned long rng;
	struct folio **kept;
	int nr_kept;
	bool ok;
};

static void *adder_main(void *p)
{
	struct adder *a = p;
	int i;

	a->ok = fl_cpu_bind(a->cpu) == 0;
	for (i = 0; a->ok && i < PER_ADDER; i++) {
		unsigned int order;
		struct folio *f;

		a->rng = a->rng * 6364136223846793005ul + 1442695040888963407ul;
		order = (unsigned int)((a->rng >> 33) % 4); /* 1, 2, 4 or 8 pages */
		f = folio_alloc(GFP_KERNEL, order);
		if (!f) {
			a->ok = false;
			break;
		}
		folio_add_lru(f);
		if (i % 8 == 0)
			a->kept[a->nr_kept++] = f;
		else
			folio_put(f);
	}
	fl_cpu_unbind();
	return NULL;
}

static bool run(bool disable)
{
	struct adder ad[ADDERS];
	pthread_t tid[ADDERS];
	unsigned long kept_pages = 0, listed = 0;
	struct lruvec *lv;
	int i, j, drains = 0;

	ASSERT_TRUE(mm_up(2048, 1, ADDERS + 1));
	lv = &NODE_DATA(0)->__lruvec;
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	for (i = 0; i < ADDERS; i++) {
		ad[i].cpu = i + 1;
		ad[i].rng = seed + (unsigned long)i * 977;
		ad[i].kept = calloc(PER_ADDER / 8 + 1, sizeof(struct folio *));
		ad[i].nr_kept = 0;
		ASSERT_TRUE(ad[i].kept != NULL);
		ASSERT_EQ(pthread_create(&tid[i], NULL, adder_main, &ad[i]), 0);
	}
	/* drain while they add, until they are done */
	bool joined[ADDERS] = { false };

	for (;;) {
		bool running = false;

		if (disable) {
			lru_cache_disable();
			lru_cache_enable();
		} else {
			lru_add_drain_all();
		}
		drains++;
		for (i = 0; i < ADDERS; i++) {
			if (!joined[i])
				joined[i] = pthread_tryjoin_np(tid[i], NULL) == 0;
			running |= !joined[i];
		}
		if (!running)
			break;
	}
	for (i = 0; i < ADDERS; i++)
		ASSERT_TRUE(ad[i].ok);
	ASSERT_GT(drains, 1);
	if (disable) {
		lru_cache_disable();
		for (i = 0; i <= ADDERS; i++)
			ASSERT_EQ(fl__cpu_batches_count(i), 0);
		lru_cache_enable();
	}
	lru_add_drain_all();
	for (i = 0; i <= ADDERS; i++)
		ASSERT_EQ(fl__cpu_batches_count(i), 0);
	/* exactly the kept folios are on the LRU, each once */
	for (i = 0; i < ADDERS; i++)
		for (j = 0; j < ad[i].nr_kept; j++) {
			ASSERT_TRUE(folio_test_lru(ad[i].kept[j]));
			ASSERT_EQ(folio_ref_count(ad[i].kept[j]), 1);
			kept_pages += folio_nr_pages(ad[i].kept[j]);
		}
	for (i = 0; i < NR_LRU_LISTS; i++)
		listed += lv->nr_pages[i];
	ASSERT_EQ(listed, kept_pages);
	ASSERT_TRUE(fl__lruvec_validate(lv, NULL, 0));
	ASSERT_EQ(counter("fl_lru_add_flush") > 0, 1);
	for (i = 0; i < ADDERS; i++) {
		for (j = 0; j < ad[i].nr_kept; j++)
			folio_put(ad[i].kept[j]);
		free(ad[i].kept);
	}
	return mm_down();
}

static bool test_drain_all_while_adding(void)
{
	return run(false);
}

static bool test_cache_disable_while_adding(void)
{
	return run(true);
}

int main(int argc, char **argv)
{
	static const struct fl_test tests[] = {
		TEST(test_drain_all_while_adding),
		TEST(test_cache_disable_while_adding),
	};
	int i, n = 1;

	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--seed"))
			seed = strtoul(argv[i + 1], NULL, 0);
	if (argc > 1 && strcmp(argv[1], "--seed"))
		n = 2;
	printf("# seed %lu\n", seed);
	return fl_test_main(n == 2 ? 2 : 1, argv, tests, 2);
}
