/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pgtable.h - page-table entry helpers shared by memory.c and
 * huge_memory.c (include/linux/pgtable.h and the x86 pgtable headers).
 *
 * Conventions in this file: entries are read with acquire and written with
 * release, so a walker that sees a table entry sees the table initialised.
 */
#ifndef FL_MM_PGTABLE_H
#define FL_MM_PGTABLE_H

#include "mm_types.h"

static inline int pte_index(unsigned long addr)
{
	return (int)((addr >> PAGE_SHIFT) & (PTRS_PER_TABLE - 1));
}

static inline int pmd_index(unsigned long addr)
{
	return (int)((addr >> PMD_SHIFT) & (PTRS_PER_TABLE - 1));
}

static inline int pud_index(unsigned long addr)
{
	return (int)((addr >> PUD_SHIFT) & (PTRS_PER_TABLE - 1));
}

static inline int pgd_index(unsigned long addr)
{
	return (int)((addr >> PGDIR_SHIFT) & (PTRS_PER_TABLE - 1));
}

static inline pteval_t entry_load(pteval_t *slot)
{
	return fl_atomic_load(slot, __ATOMIC_ACQUIRE);
}

static inline void entry_store(pteval_t *slot, pteval_t v)
{
	fl_atomic_store(slot, v, __ATOMIC_RELEASE);
}

/*
 * ptep_get_and_clear() - take an entry and leave it none in one atomic
 * exchange, as x86 does on SMP: "hardware" may be setting the entry's
 * accessed or dirty bit at the same moment (with a compare-and-exchange
 * that then fails and walks again), and a read followed by a store would
 * lose that race and leave the bits behind in a none entry.
 */
static inline pteval_t ptep_get_and_clear(pteval_t *slot)
{
	/* acq_rel: like the kernel's xchg, a full barrier around the clear */
	return fl_atomic_xchg(slot, 0, __ATOMIC_ACQ_REL);
}

/*
 * ptep_clear_bits() - clear @bits of an entry without a window in which
 * "hardware" could set one that the store then drops: take the entry (it
 * reads as none meanwhile, so an access faults and waits on the page-table
 * lock the caller holds), then store it back without them, as the
 * kernel's generic clear_young_dirty_ptes() and pmdp_invalidate() do.
 * Context: the entry's page-table lock is held.
 * Return: the entry as it was, with any bit hardware set before the take.
 */
static inline pteval_t ptep_clear_bits(pteval_t *slot, pteval_t bits)
{
	pteval_t old = ptep_get_and_clear(slot);

	entry_store(slot, old & ~bits);
	return old;
}

static inline bool entry_is_table(pteval_t v)
{
	return (v & (_PAGE_PRESENT | _PAGE_TABLE)) == (_PAGE_PRESENT | _PAGE_TABLE);
}

static inline struct pgtable *entry_table(pteval_t v)
{
	return (struct pgtable *)(uintptr_t)(v & PTE_PFN_MASK);
}

static inline pteval_t table_entry(struct pgtable *t)
{
	return (pteval_t)(uintptr_t)t | _PAGE_PRESENT | _PAGE_TABLE;
}

/*
 * Lock the PTE table @pmdt[@idx] points to and check it still does (a
 * racing PT reclaim may have freed it). Return: the locked table or NULL.
 */
static __always_inline struct pgtable *pte_offset_map_lock(struct pgtable *pmdt, int idx,
							   struct fl_lock_site *site)
{
	pteval_t v = entry_load(&pmdt->e[idx]);
	struct pgtable *ptet;

	if (!entry_is_table(v))
		return NULL;
	ptet = entry_table(v);
	fl_spin_lock_at(&ptet->ptl, site);
	if (entry_load(&pmdt->e[idx]) != v) {
		spin_unlock(&ptet->ptl);
		return NULL;
	}
	return ptet;
}

/*
 * A huge PMD, present or invalidated by its lock holder for a change
 * (pmdp_invalidate()): software that sees one takes the PMD lock and looks
 * again, as the kernel's pmd_trans_huge() callers do.
 */
static inline bool pmd_trans_huge(pteval_t v)
{
	return v & _PAGE_PSE;
}

/* A huge PMD hardware may use: present. */
static inline bool pmd_huge_present(pteval_t v)
{
	return (v & (_PAGE_PRESENT | _PAGE_PSE)) == (_PAGE_PRESENT | _PAGE_PSE);
}

/*
 * pmdp_invalidate() - make the huge PMD at @slot not present to hardware
 * while its lock holder changes it; software still sees it as huge.
 * Context: the PMD table's lock is held.
 * Return: the entry as it was, with any bit hardware set before the exchange.
 */
static inline pteval_t pmdp_invalidate(pteval_t *slot)
{
	return fl_atomic_xchg(slot, entry_load(slot) & ~_PAGE_PRESENT, __ATOMIC_ACQ_REL);
}

static inline unsigned long pte_pfn(pteval_t v)
{
	return (unsigned long)((v & PTE_PFN_MASK) >> PAGE_SHIFT);
}

extern unsigned long huge_zero_pfn; /* huge_memory.c */

/* A huge PMD that maps the huge zero folio (read-only, special, no rmap). */
static inline bool is_huge_zero_pmd(pteval_t v)
{
	return pmd_huge_present(v) && pte_pfn(v) == READ_ONCE(huge_zero_pfn);
}

static inline pteval_t pfn_pte(unsigned long pfn, pteval_t prot)
{
	return ((pteval_t)pfn << PAGE_SHIFT) | prot;
}

/* Walk to the PMD table for @addr without allocating; NULL if absent. */
static __always_inline struct pgtable *walk_pmd_table(struct mm_struct *mm, unsigned long addr)
{
	pteval_t v = entry_load(&mm->pgd->e[pgd_index(addr)]);
	struct pgtable *pudt;

	if (!entry_is_table(v))
		return NULL;
	pudt = entry_table(v);
	v = entry_load(&pudt->e[pud_index(addr)]);
	if (!entry_is_table(v))
		return NULL;
	return entry_table(v);
}

#endif /* FL_MM_PGTABLE_H */
