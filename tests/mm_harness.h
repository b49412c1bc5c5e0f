/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mm_harness.h - boot and tear down a small model kernel for mm-level
 * tests, and read single lock statistics and counters.
 *
 * Conventions in this file: the test thread is model CPU 0; mm_down()
 * returns false (with a diagnostic) when a frame, folio or LRU page was
 * left behind, so every case can end with ASSERT_TRUE(mm_down()).
 */
#ifndef FL_TESTS_MM_HARNESS_H
#define FL_TESTS_MM_HARNESS_H

#include "harness.h"
#include "../src/mm/internal.h"

static bool mm_booted;
/* a zram swap device of this many MiB for the next mm_up() (0: none) */
static unsigned long mm_swap_mb;
/* the next mm_up() gets a CPU more per node for kswapd (fl__kswapd_start()) */
static bool mm_kswapd;

static inline bool mm_up(unsigned long mem_mb, int nodes, int cpus)
{
	struct fl_mm_config mc = {
		.nr_pages = mem_mb << (20 - PAGE_SHIFT),
		.nr_nodes = nodes,
		.nr_cpus = cpus,
		.swap_pages = mm_swap_mb << (20 - PAGE_SHIFT),
	};
	char err[256];

	if (mm_booted) { /* a failed case returned early: clear its machine */
		fl__mm_shutdown();
		fl_cpu_unbind();
		fl__platform_exit();
	}
	mm_booted = true;
	if (fl__platform_init(cpus + (mm_kswapd ? nodes : 0)) || fl_cpu_bind(0) ||
	    fl__mm_boot(&mc, err, sizeof(err))) {
		printf("# boot failed: %s\n", err);
		return false;
	}
	return true;
}

static inline bool mm_down(void)
{
	char msg[256] = "";
	long bad = fl__mm_quiesce_and_check(msg, sizeof(msg));

	mm_booted = false;
	fl__mm_shutdown();
	fl_cpu_unbind();
	fl__platform_exit();
	if (bad) {
		printf("# teardown check: %s\n", msg);
		return false;
	}
	return true;
}

/* Acquisitions (or contentions) of class @cls at @site, summed over CPUs. */
static inline uint64_t lock_stat(const char *cls, const char *site, bool contended)
{
	static struct fl_lock_row rows[FL_LOCK_SITES_MAX];
	int i, n = fl__lock_stats_read(rows);

	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].class_name, cls) && !strcmp(rows[i].site, site))
			return contended ? rows[i].st.contended : rows[i].st.acquired;
	return 0;
}

static inline int64_t counter(const char *name)
{
	struct fl_counters c = { 0 };
	int64_t v;

	fl__vmstat_snapshot(&c);
	v = fl_counters_get(&c, name);
	fl_counters_free(&c);
	return v;
}

static inline int64_t mthp(int kb, const char *item)
{
	char name[FL_NAME_MAX];

	snprintf(name, sizeof(name), "hugepages-%dkB/stats/%s", kb, item);
	return counter(name);
}

static inline bool knob(const char *name, const char *value)
{
	char err[256];

	if (fl__mm_knob_set(name, value, err, sizeof(err))) {
		printf("# knob %s=%s: %s\n", name, value, err);
		return false;
	}
	return true;
}

/* The folio a PTE maps at @addr, or NULL (nothing, or the zero page). */
static inline struct folio *mapped_folio(struct mm_struct *mm, unsigned long addr)
{
	pteval_t *pte = fl__pte_lookup(mm, addr, NULL);

	if (!pte || !(*pte & _PAGE_PRESENT) || (*pte & _PAGE_SPECIAL))
		return NULL;
	return pfn_folio((unsigned long)((*pte & PTE_PFN_MASK) >> PAGE_SHIFT));
}

/* The order of the folio a PTE maps at @addr, or -1. */
static inline int mapped_order(struct mm_struct *mm, unsigned long addr)
{
	struct folio *f = mapped_folio(mm, addr);

	return f ? (int)folio_order(f) : -1;
}

static inline int touch(struct mm_struct *mm, unsigned long addr, uint64_t tag)
{
	return fl__mm_access(mm, addr, true, &tag);
}

static inline uint64_t peek(struct mm_struct *mm, unsigned long addr)
{
	uint64_t tag = ~0ull;

	if (fl__mm_access(mm, addr, false, &tag))
		return ~0ull;
	return tag;
}

/* One process for the case: booted with it, gone with it. */
static struct mm_struct *mm;

static inline bool mm_up_with_mm(unsigned long mem_mb)
{
	if (!mm_up(mem_mb, 1, 1))
		return false;
	mm = mm_alloc(1);
	return mm != NULL;
}

static inline bool mm_down_with_mm(void)
{
	mmput(mm);
	return mm_down();
}

/* an anonymous read-write mapping of @len bytes in mm, or 0 */
static inline unsigned long map(unsigned long len)
{
	unsigned long a = 0;

	return do_mmap(mm, len, VM_READ | VM_WRITE, &a) ? 0 : a;
}

/* write tag + i into the i-th page of [a, a + pages) of mm (tag 0: zeros) */
static inline bool write_tags(unsigned long a, unsigned long pages, uint64_t tag)
{
	unsigned long i;

	for (i = 0; i < pages; i++)
		if (touch(mm, a + i * PAGE_SIZE, tag ? tag + i : 0))
			return false;
	return true;
}

/* pages of [a, a + pages) of mm whose tag is not tag + i (tag 0: all zero) */
static inline unsigned long wrong_tags(unsigned long a, unsigned long pages, uint64_t tag)
{
	unsigned long i, wrong = 0;

	for (i = 0; i < pages; i++)
		wrong += peek(mm, a + i * PAGE_SIZE) != (tag ? tag + i : 0);
	return wrong;
}

#endif /* FL_TESTS_MM_HARNESS_H */
