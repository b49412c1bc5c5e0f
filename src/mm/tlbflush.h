/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tlbflush.h - TLB shootdown for the model's "hardware" accesses
 * (arch/x86/include/asm/tlbflush.h and arch/x86/mm/tlb.c in the kernel).
 *
 * A CPU's page walker reads the tables without locks (memory.c), so after a
 * zap has cleared a PTE or unlinked a PTE table, another CPU may still be
 * using a translation it read before. The kernel flushes the TLBs, an IPI
 * every CPU of the mm acknowledges, before it frees those pages and tables.
 * The model's equivalent: each CPU counts the accesses it begins (the count
 * is odd while one is in flight) and notes the mm it is accessing, and
 * flush_tlb_mm() waits until every CPU that was inside an access to that
 * mm when the flush began has left it. CPUs in other mms are not waited
 * for, as the kernel sends its IPI only to the CPUs in mm_cpumask(mm).
 * Without the wait, a freed PTE table taken from the pool for another
 * address, or a freed page allocated again, could receive a walker's late
 * load or store.
 *
 * The pairing is asymmetric, as with the IPI: the walker orders its count
 * against its walk with a compiler barrier only, and the flusher makes
 * every running thread execute a full barrier (fl__membarrier()). While
 * one thread runs the model (fl_uniproc()) there is nobody to wait for.
 *
 * Conventions in this file: an "access" is one hw_translate() and the load
 * or store of the tag it allows; an unbound thread uses the spare slot at
 * index nr_cpu_ids.
 */
#ifndef FL_MM_TLBFLUSH_H
#define FL_MM_TLBFLUSH_H

#include "../platform/platform.h"
#include "../platform/atomic.h"
#include "mm_types.h"

struct mm_struct;

struct hw_access_seq {
	unsigned long seq;    /* written by its CPU only; odd inside an access */
	struct mm_struct *mm; /* the mm of its current or last access */
} __cacheline_aligned;

extern struct hw_access_seq fl__hw_access_seq[FL_NR_CPUS_MAX + 1];

/* The calling thread's slot: its CPU's, or the spare one while unbound. */
static __always_inline int hw_access_slot(void)
{
	return fl__cpu >= 0 ? fl__cpu : fl__nr_cpu_ids;
}

static __always_inline struct hw_access_seq *hw_access_begin(struct mm_struct *mm)
{
	struct hw_access_seq *s;

	if (fl_uniproc())
		return NULL; /* no other thread can free what this one reads */
	s = &fl__hw_access_seq[hw_access_slot()];
	WRITE_ONCE(s->mm, mm);
	/* release: a flusher that sees the odd count sees the mm with it */
	smp_store_release(&s->seq, READ_ONCE(s->seq) + 1);
	/* pairs with flush_tlb_mm(): it sees us inside, or we see its clears */
	fl_membarrier_pair();
	return s;
}

static __always_inline void hw_access_end(struct hw_access_seq *s)
{
	/* release: the access is complete before a flusher frees what it used */
	if (s)
		smp_store_release(&s->seq, READ_ONCE(s->seq) + 1);
}

/**
 * flush_tlb_mm() - return once no CPU can still use a translation of @mm
 * that was cleared before the call. CPUs accessing other mms go on.
 * Context: the PTEs (and table links) are already cleared; nothing that
 * they mapped has been freed yet. Counts fl_tlb_shootdown_wait when a CPU
 * had to be waited for.
 */
void flush_tlb_mm(struct mm_struct *mm);

/*
 * flush_tlb_range() - the flush after PTEs of @mm over [@start, @end) were
 * cleared outside an mmu_gather (pmdp_collapse_flush(), try_to_unmap's
 * flush): counted (fl_tlb_flush), the TLBs' entries taken out by
 * flush_tlb_mm_range()'s rule, and no CPU left using them (flush_tlb_mm()).
 * flush_pmd_tlb_range(): the same for the one huge PMD at @haddr
 * (pmdp_huge_clear_flush()). The kernel's take the VMA; the model's the mm.
 */
void flush_tlb_range(struct mm_struct *mm, unsigned long start, unsigned long end);
void flush_pmd_tlb_range(struct mm_struct *mm, unsigned long haddr);

/* tlb.c: each CPU's data TLB (what an access costs, and when it sets A and D) */
extern bool fl__dtlb_on;
/* the knob foliolab/tlb: off models no TLB (every access walks, as before) */
extern bool fl__tlb_model;
/*
 * A set: each way's entry (the page number + 1, 0 for none; the mm's
 * generation when it was loaded, shifted left by one over the dirty bit)
 * and an 8-bit hint of both, so that a lookup compares the set's hints
 * eight at a time (a miss, the common case of a sweep, reads no entry).
 */
#define TLB_WAYS_MAX 16
struct tlb_set {
	uint64_t hint[TLB_WAYS_MAX / 8]; /* 8 bits a way; 0: none */
	unsigned int next;		 /* the way to replace next (round-robin) */
	unsigned long vpn1[TLB_WAYS_MAX];
	unsigned long gen2[TLB_WAYS_MAX];
};

struct dtlb {
	struct tlb_set *set[2]; /* [k][set index] */
};

#define LANES 0x0101010101010101ull
extern struct dtlb *fl__dtlbs[FL_NR_CPUS_MAX + 1];
extern unsigned int fl__dtlb_sets_mask[2];
struct dtlb *fl__dtlb_make(void);
bool fl__dtlb_miss(struct tlb_set *set, unsigned long vpn, int k, bool write, bool dirty,
		   unsigned long gen, uint64_t hint, int w);

static __always_inline uint64_t tlb_hint(unsigned long vpn, unsigned long gen)
{
	uint64_t h = (vpn ^ (gen * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;

	return (h >> 56) | 1; /* never 0: that is an empty way */
}

/*
 * The way of @set holding @vpn under @gen, or -1. Both hint words are
 * looked at (a constant count the compiler unrolls): ways past the set's
 * have hint 0, which no lookup's hint is.
 */
static __always_inline int set_find(const struct tlb_set *set, unsigned long vpn, unsigned long gen,
				    uint64_t hint)
{
	uint64_t pat = hint * LANES;
	unsigned int i;

	for (i = 0; i < TLB_WAYS_MAX / 8; i++) {
		uint64_t x = __atomic_load_n(&set->hint[i], __ATOMIC_RELAXED) ^ pat;
		/* the lanes where x is 0 (and some false ones, checked below) */
		uint64_t m = (x - LANES) & ~x & (LANES << 7);

		while (unlikely(m)) {
			unsigned int w = i * 8 + (unsigned int)(__builtin_ctzll(m) >> 3);

			if (__atomic_load_n(&set->vpn1[w], __ATOMIC_RELAXED) == vpn + 1 &&
			    __atomic_load_n(&set->gen2[w], __ATOMIC_RELAXED) >> 1 == gen)
				return (int)w;
			m &= m - 1;
		}
	}
	return -1;
}

/*
 * fl__dtlb_access() - an access to @addr (a 2 MiB translation if @huge)
 * on this CPU: true when its TLB holds the translation (for a store: with
 * the dirty state), so that the access sets no bit and walks nothing;
 * false after it walked (charged, counted, the entry loaded with @dirty:
 * the PTE's dirty bit), when the caller sets the bits the access needs.
 */
static __always_inline bool fl__dtlb_access(struct mm_struct *mm, unsigned long addr, bool huge,
					    bool write, bool dirty)
{
	struct dtlb *t = smp_load_acquire(&fl__dtlbs[hw_access_slot()]);
	unsigned long vpn = addr >> (huge ? 21 : 12);
	unsigned long gen = __atomic_load_n(&mm->tlb_gen, __ATOMIC_RELAXED);
	uint64_t hint = tlb_hint(vpn, gen);
	struct tlb_set *set;
	int w;

	if (unlikely(!t) && !(t = fl__dtlb_make()))
		return false;
	set = &t->set[huge][vpn & fl__dtlb_sets_mask[huge]];
	w = set_find(set, vpn, gen, hint);
	if (likely(w >= 0) && (!write || (__atomic_load_n(&set->gen2[w], __ATOMIC_RELAXED) & 1)))
		return true;
	return fl__dtlb_miss(set, vpn, huge, write, dirty, gen, hint, w);
}

/* the TLBs of the geometry in force (fl__tlb_geo), empty; at a run's start */
void fl__dtlb_setup(void);
void fl__dtlb_mm_init(struct mm_struct *mm);
/* flush_tlb_mm_range(): up to 33 pages one by one, more the whole mm */
void fl__dtlb_flush_range(struct mm_struct *mm, unsigned long start, unsigned long end);
void fl__dtlb_flush_mm(struct mm_struct *mm);
/* flush_pmd_tlb_range(): the one 2 MiB entry at @haddr (a stride of PMD_SHIFT) */
void fl__dtlb_flush_pmd(struct mm_struct *mm, unsigned long haddr);

/*
 * For tests (FL_DEBUG >= 2): called inside an access, @where 0 after the PMD
 * entry is read, 2 when the entry lacks the accessed or dirty bit the
 * access needs and is about to get it, 1 once the translation is complete.
 */
#if FL_DEBUG >= 2
extern void (*fl__hw_access_hook)(int where);
#define hw_access_hook(where)                                                                      \
	do {                                                                                       \
		if (unlikely(fl__hw_access_hook))                                                  \
			fl__hw_access_hook(where);                                                 \
	} while (0)
#else
#define hw_access_hook(where)                                                                      \
	do {                                                                                       \
	} while (0)
#endif

#endif /* FL_MM_TLBFLUSH_H */
