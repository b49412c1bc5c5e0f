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
