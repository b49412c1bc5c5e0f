// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlb.c - each CPU's data TLB, as x86 has it: what a workload's load or
 * store costs beyond the access itself, and when the accessed and dirty
 * bits of a PTE get set.
 *
 * The model's "hardware" always walks the page tables to translate (so a
 * translation is never stale, whatever the flushes); the TLB beside it
 * says what the walk costs and what it writes. An access whose
 * translation the CPU's TLB holds costs nothing more and sets nothing: x86
 * sets the accessed bit only when a page walk loads the translation, so
 * after ptep_clear_flush_young(), which on x86 clears the bit without a
 * flush, a page the TLB still holds stays "old" however often it is used
 * (what reclaim and khugepaged read). A store through an entry loaded by a
 * read walks again to set the dirty bit. A miss walks (walk_pte to a 4 KiB
 * translation, walk_pmd to a 2 MiB one), sets the bits, loads the entry
 * and counts dTLB-load-misses or dTLB-store-misses, perf's names for a
 * walk that completes. A fault is a miss too: the access it retries walks.
 *
 * Geometry: the cost file's tlb.4k and tlb.2m (entries and ways of the
 * last-level TLB, the one whose misses walk: CPUID leaf 0x18 on Intel,
 * 0x80000006 on AMD); none given, no TLB (every access walks, as before).
 * Set-associative, each set replaced round-robin.
 *
 * Flushes (flush_tlb_mm_range()'s rule, arch/x86/mm/tlb.c): a range of up
 * to 33 pages (tlb_single_page_flush_ceiling) takes its entries out of
 * every CPU's TLB; a larger one, or the whole mm, flushes the mm: its
 * generation moves on and every entry loaded under the old one is dead
 * (x86's mm->context.tlb_gen). Generations come from one counter, so an
 * entry of a freed mm never matches a new one at the same address.
 *
 * Conventions in this file: @k is 0 for 4 KiB entries, 1 for 2 MiB; a
 * "vpn" is the address >> 12 or >> 21. Entries are read and written with
 * relaxed atomics: on the native platform another CPU's flush writes them.
 */
#include "internal.h"
#include "tlbflush.h"

bool fl__dtlb_on;
bool fl__tlb_model = true;
struct dtlb *fl__dtlbs[FL_NR_CPUS_MAX + 1];
unsigned int fl__dtlb_sets_mask[2];
static unsigned int dtlb_ways[2];
static unsigned long gen_next = 1;

#define TLB_SINGLE_PAGE_FLUSH_CEILING 33

static void dtlb_free(struct dtlb *t)
{
	if (!t)
		return;
	fl_free(t->set[0]);
	fl_free(t->set[1]);
	fl_free(t);
}

void fl__dtlb_setup(void)
{
	const struct fl_tlb_geometry *g = &fl__tlb_geo;
	int cpu, k;

	for (cpu = 0; cpu <= FL_NR_CPUS_MAX; cpu++) {
		dtlb_free(fl__dtlbs[cpu]);
		fl__dtlbs[cpu] = NULL;
	}
	fl__dtlb_on = READ_ONCE(fl__tlb_model) && g->entries[0] && g->entries[1];
	for (k = 0; fl__dtlb_on && k < 2; k++) {
		unsigned int ways = g->ways[k] < TLB_WAYS_MAX ? g->ways[k] : TLB_WAYS_MAX;
		unsigned int sets = g->entries[k] / ways, p = 1;

		/* at most 16 ways (more: as many entries in more sets), sets a power of 2 */
		while (p * 2 <= sets)
			p *= 2;
		dtlb_ways[k] = ways;
		fl__dtlb_sets_mask[k] = p - 1;
	}
}

/* this CPU's TLB, made at its first use; NULL without memory (then: no TLB) */
struct dtlb *fl__dtlb_make(void)
{
	int slot = hw_access_slot(), k;
	struct dtlb *t = smp_load_acquire(&fl__dtlbs[slot]);

	if (likely(t))
		return t;
	t = fl_calloc(1, sizeof(*t));
	for (k = 0; t && k < 2; k++) {
		t->set[k] = fl_calloc((size_t)fl__dtlb_sets_mask[k] + 1, sizeof(*t->set[k]));
		if (!t->set[k]) {
			dtlb_free(t);
			return NULL;
		}
	}
	/* release: its sets are zeroed before another CPU's flush reads them */
	smp_store_release(&fl__dtlbs[slot], t);
	return t;
}

void fl__dtlb_mm_init(struct mm_struct *mm)
{
	mm->tlb_gen = fl_atomic_fetch_add(&gen_next, 1, __ATOMIC_RELAXED);
}

static __always_inline void set_hint(struct tlb_set *set, unsigned int w, uint64_t hint)
{
	uint64_t *word = &set->hint[w / 8], shift = (w % 8) * 8, v;

	v = __atomic_load_n(word, __ATOMIC_RELAXED);
	v = (v & ~(0xffull << shift)) | (hint << shift);
	__atomic_store_n(word, v, __ATOMIC_RELAXED);
}

/* fl__dtlb_access()'s miss (@w < 0) or store through a clean entry (@w, its way) */
bool fl__dtlb_miss(struct tlb_set *set, unsigned long vpn, int k, bool write, bool dirty,
		   unsigned long gen, uint64_t hint, int w)
{
	fl_cost(k ? FL_COST_WALK_PMD : FL_COST_WALK_PTE);
	if (w >= 0) {
		/* the walk again, for the dirty bit */
		__atomic_store_n(&set->gen2[w], gen << 1 | 1, __ATOMIC_RELAXED);
		return false;
	}
	count_fl_stat(write ? FL_DTLB_STORE_MISSES : FL_DTLB_LOAD_MISSES, 1);
	w = (int)set->next;
	set->next = set->next + 1 == dtlb_ways[k] ? 0 : set->next + 1;
	__atomic_store_n(&set->vpn1[w], vpn + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&set->gen2[w], gen << 1 | (unsigned long)(write || dirty),
			 __ATOMIC_RELAXED);
	set_hint(set, (unsigned int)w, hint);
	return false;
}

/* Take @vpn's entries of @mm (size @k) out of every CPU's TLB. */
static void dtlb_invalidate(const struct mm_struct *mm, int k, unsigned long vpn)
{
	unsigned long gen = __atomic_load_n(&mm->tlb_gen, __ATOMIC_RELAXED);
	uint64_t hint = tlb_hint(vpn, gen);
	int cpu, w;

	for (cpu = 0; cpu <= FL_NR_CPUS_MAX; cpu++) {
		struct dtlb *t = smp_load_acquire(&fl__dtlbs[cpu]);
		struct tlb_set *set;

		if (!t)
			continue;
		set = &t->set[k][vpn & fl__dtlb_sets_mask[k]];
		while ((w = set_find(set, vpn, gen, hint)) >= 0) {
			__atomic_store_n(&set->vpn1[w], 0ul, __ATOMIC_RELAXED);
			set_hint(set, (unsigned int)w, 0);
		}
	}
}

void fl__dtlb_flush_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	unsigned long a;

	if (!fl__dtlb_on)
		return;
	if (end <= start)
		return;
	if ((end - start) >> PAGE_SHIFT > TLB_SINGLE_PAGE_FLUSH_CEILING) {
		fl__dtlb_flush_mm(mm);
		return;
	}
	for (a = start & PAGE_MASK; a < end; a += PAGE_SIZE)
		dtlb_invalidate(mm, 0, a >> PAGE_SHIFT);
	for (a = start & PMD_MASK; a < end; a += PMD_SIZE)
		dtlb_invalidate(mm, 1, a >> PMD_SHIFT);
}

void fl__dtlb_flush_pmd(struct mm_struct *mm, unsigned long haddr)
{
	if (fl__dtlb_on)
		dtlb_invalidate(mm, 1, haddr >> PMD_SHIFT);
}

void fl__dtlb_flush_mm(struct mm_struct *mm)
{
	if (fl__dtlb_on)
		__atomic_store_n(&mm->tlb_gen, fl_atomic_fetch_add(&gen_next, 1, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
}
