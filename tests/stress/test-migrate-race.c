// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-migrate-race.c - folios migrated while other CPUs fault, read and
 * zap them.
 *
 * One process maps 4 MiB: region A (the first 2 MiB) and region B (the
 * second). PMD THPs are allowed, and 64K folios where a PMD cannot be had.
 *   CPU 1, the writer: writes a fresh tag to every page of A and reads it
 *     back; a page may read 0 (the zapper emptied it in between), never
 *     another tag. Its faults meet migration entries and wait.
 *   CPU 2, the zapper: MADV_DONTNEED of a random 64K or 4K piece of A, so
 *     A keeps getting new folios, and migration entries get zapped.
 *   CPU 3, the reader: reads every page of B, written once before the
 *     run: it must read its own tag every time, whatever was migrated.
 *   CPU 0, the migrator: as move_pages() does (MR_SYSCALL), under
 *     mmap_lock for reading it finds the folio each page maps under its
 *     page-table lock, takes a reference and isolates it from the LRU;
 *     then, without the lock, migrate_pages() in a random mode, and
 *     putback_movable_pages() for what failed. Now and then a destination
 *     order fails (fl__fail_page_alloc_orders), so that large folios are
 *     split to be migrated.
 * The run must migrate pages (pgmigrate_success), see no tag out of
 * place, and mm_down()'s teardown check (every frame free, every counter
 * back, nr_isolated_* 0) must hold. Run under TSan by make SAN=thread
 * check-stress.
 *
 * Usage: test-migrate-race [CASE] [--seed N] [--seconds S]
 *
 * Conventions in this file: page numbers count from the mapping's start;
 * A's tags are (round << 16 | page) | 1 << 62, B's BASE_B + page.
 */
#include <pthread.h>
#include <stdio.h>
#include "../src/mm/pgtable.h"
#include "mm_harness.h"
#include "../src/mm/internal.h"
#include "../src/mm/migrate.h"

#define SZ_2M (2ul << 20)
#define THP "transparent_hugepage/"
#define PAGES_A 512ul
#define BASE_B 0x7000000000ull

static unsigned long seed = 1;
static double seconds = 2.0;

static unsigned long base;
static int stop; /* atomic */
static int bad;	 /* atomic: a page read a tag it must not hold */
static uint64_t writes, reads, zaps;

static unsigned long next_rand(unsigned long *r)
{
	*r = *r * 6364136223846793005ul + 1442695040888963407ul;
	return *r >> 33;
}

static void note_bad(const char *who, unsigned long page, uint64_t got)
{
	if (!__atomic_exchange_n(&bad, 1, __ATOMIC_ACQ_REL))
		printf("# %s: page %lu read %#llx\n", who, page, (unsigned long long)got);
}

static void *writer(void *arg)
{
	unsigned long round, i;

	(void)arg;
	if (fl_cpu_bind(1))
		return NULL;
	for (round = 1; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); round++)
		for (i = 0; i < PAGES_A; i++) {
			uint64_t t = (round << 16 | i) | 1ull << 62, got;

			if (touch(mm, base + i * PAGE_SIZE, t)) {
				note_bad("writer (fault failed)", i, 0);
				continue;
			}
			got = peek(mm, base + i * PAGE_SIZE);
			if (got != t && got != 0)
				note_bad("writer", i, got);
			writes++;
		}
	fl_cpu_unbind();
	return NULL;
}

static void *zapper(void *arg)
{
	unsigned long r = seed ^ 0x5a5a;

	(void)arg;
	if (fl_cpu_bind(2))
		return NULL;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		unsigned long page = next_rand(&r) % PAGES_A;
		unsigned long len = next_rand(&r) % 2 ? 16 : 1;

		page &= ~(len - 1);
		if (do_madvise(mm, base + page * PAGE_SIZE, len * PAGE_SIZE, MADV_DONTNEED))
			note_bad("zapper (madvise failed)", page, 0);
		zaps++;
	}
	fl_cpu_unbind();
	return NULL;
}

static void *reader(void *arg)
{
	unsigned long i;

	(void)arg;
	if (fl_cpu_bind(3))
		return NULL;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		for (i = PAGES_A; i < 2 * PAGES_A; i++) {
			uint64_t got = peek(mm, base + i * PAGE_SIZE);

			if (got != BASE_B + i)
				note_bad("reader", i, got);
			reads++;
		}
	fl_cpu_unbind();
	return NULL;
}

/*
 * The folio mapped at @addr (a PTE or a huge PMD), with a reference, or
 * NULL: looked up under the entry's page-table lock, which keeps it
 * mapped while the reference is taken (move_pages()' folio_walk).
 */
static struct folio *get_mapped_folio(unsigned long addr)
{
	FL_LOCK_SITE(site);
	struct pgtable *pmdt = walk_pmd_table(mm, addr), *ptet;
	struct folio *folio = NULL;
	pteval_t *pmdslot, v;

	if (!pmdt)
		return NULL;
	pmdslot = &pmdt->e[pmd_index(addr)];
	v = entry_load(pmdslot);
	if (pmd_trans_huge(v)) {
		fl_spin_lock_at(&pmdt->ptl, &site);
		v = entry_load(pmdslot);
		if (pmd_trans_huge(v) && !is_huge_zero_pmd(v)) {
			folio = pfn_folio(pte_pfn(v));
			folio_get(folio);
		}
		spin_unlock(&pmdt->ptl);
		return folio;
	}
	if (!entry_is_table(v))
		return NULL;
	ptet = entry_table(v);
	fl_spin_lock_at(&ptet->ptl, &site);
	if (entry_load(pmdslot) == v) {
		pteval_t pte = READ_ONCE(ptet->e[pte_index(addr)]);

		if ((pte & _PAGE_PRESENT) && !(pte & _PAGE_SPECIAL)) {
			folio = pfn_folio(pte_pfn(pte));
			folio_get(folio);
		}
	}
	spin_unlock(&ptet->ptl);
	return folio;
}

static struct folio *new_folio(struct folio *src, unsigned long private)
{
	(void)private;
	return folio_alloc(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN, folio_order(src));
}

/* Isolate the folios mapped in [@first, @first + @n) of the mapping onto @list. */
static unsigned long isolate_range(unsigned long first, unsigned long n, struct list_head *list)
{
	unsigned long i, isolated = 0;

	down_read(&mm->mmap_lock);
	for (i = first; i < first + n; i++) {
		struct folio *folio = get_mapped_folio(base + i * PAGE_SIZE);

		if (!folio)
			continue;
		if (folio_isolate_lru(folio)) {
			mod_node_page_state(folio_pgdat(folio), folio_isolated_item(folio),
					    (long)folio_nr_pages(folio));
			list_add_tail(&folio->lru, list);
			isolated++;
		}
		folio_put(folio);
	}
	up_read(&mm->mmap_lock);
	return isolated;
}

static bool fill_b(void)
{
	unsigned long i;

	for (i = PAGES_A; i < 2 * PAGES_A; i++)
		ASSERT_EQ(touch(mm, base + i * PAGE_SIZE, BASE_B + i), 0);
	return true;
}

static bool test_migrate_while_faulting_reading_zapping(void)
{
	static const enum migrate_mode modes[] = { MIGRATE_ASYNC, MIGRATE_SYNC_LIGHT,
						   MIGRATE_SYNC };
	unsigned long r = seed, rounds = 0, isolated = 0, left = 0, nomem = 0;
	pthread_t t[3];
	uint64_t t0;
	int i;

	ASSERT_TRUE(mm_up(256, 1, 4));
	ASSERT_TRUE(knob(THP "enabled", "always"));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	base = map(2 * SZ_2M);
	ASSERT_NE(base, 0ul);
	ASSERT_EQ(base % SZ_2M, 0ul);
	ASSERT_TRUE(fill_b());
	ASSERT_EQ(counter("thp_fault_alloc"), 1); /* B is one PMD THP */
	lru_add_drain();
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&bad, 0, __ATOMIC_RELAXED);
	ASSERT_EQ(pthread_create(&t[0], NULL, writer, NULL), 0);
	ASSERT_EQ(pthread_create(&t[1], NULL, zapper, NULL), 0);
	ASSERT_EQ(pthread_create(&t[2], NULL, reader, NULL), 0);
	t0 = fl_clock_ns();
	while ((double)(fl_clock_ns() - t0) < seconds * 1e9 &&
	       !__atomic_load_n(&bad, __ATOMIC_ACQUIRE)) {
		unsigned long first = next_rand(&r) % (2 * PAGES_A), n = 1 + next_rand(&r) % 64;
		enum migrate_mode mode = modes[next_rand(&r) % 3];
		LIST_HEAD(l);
		int ret;

		if (first + n > 2 * PAGES_A)
			n = 2 * PAGES_A - first;
		/* every fourth round no large destination: large folios are split */
		if (rounds % 4 == 3)
			WRITE_ONCE(fl__fail_page_alloc_orders, (1ul << PMD_ORDER) | (1ul << 4));
		lru_add_drain(); /* this CPU's new folios onto the LRU, to be isolated */
		isolated += isolate_range(first, n, &l);
		ret = migrate_pages(&l, new_folio, NULL, 0, mode, MR_SYSCALL, NULL);
		WRITE_ONCE(fl__fail_page_alloc_orders, 0ul);
		/*
		 * -ENOMEM: a destination was missing for a folio that could not
		 * be split (someone held it); the rest stays on the list
		 */
		if (ret < 0 && ret != -ENOMEM) {
			note_bad("migrator (migrate_pages)", first, (uint64_t)ret);
			break;
		}
		if (ret == -ENOMEM)
			nomem++;
		else
			left += (unsigned long)ret;
		putback_movable_pages(&l);
		rounds++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("# %lu rounds (%lu -ENOMEM), %lu folios isolated, %lu not migrated; %llu writes, "
	       "%llu reads, "
	       "%llu zaps in %.1f s; pgmigrate_success %lld, pgmigrate_fail %lld, "
	       "thp_migration_success %lld, thp_migration_split %lld, migration waits %lld\n",
	       rounds, nomem, isolated, left, (unsigned long long)writes, (unsigned long long)reads,
	       (unsigned long long)zaps, (double)(fl_clock_ns() - t0) / 1e9,
	       (long long)counter("pgmigrate_success"), (long long)counter("pgmigrate_fail"),
	       (long long)counter("thp_migration_success"),
	       (long long)counter("thp_migration_split"),
	       (long long)counter("fl_migration_entry_wait"));
	ASSERT_EQ(__atomic_load_n(&bad, __ATOMIC_ACQUIRE), 0);
	ASSERT_GT(counter("pgmigrate_success"), 0);
	ASSERT_EQ(counter("nr_isolated_anon"), 0);
	/* quiet now: B reads back exactly */
	for (i = 0; i < (int)PAGES_A; i++)
		ASSERT_EQ(peek(mm, base + (PAGES_A + (unsigned long)i) * PAGE_SIZE),
			  BASE_B + PAGES_A + (unsigned long)i);
	mmput(mm);
	return mm_down();
}

int main(int argc, char **argv)
{
	static const struct fl_test tests[] = {
		TEST(test_migrate_while_faulting_reading_zapping),
	};
	char *args[2] = { argv[0], NULL };
	int i, n = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = strtod(argv[++i], NULL);
		else if (n < 2)
			args[n++] = argv[i];
	}
	printf("# seed %lu\n", seed);
	return fl_test_main(n, args, tests, (int)ARRAY_SIZE(tests));
}
