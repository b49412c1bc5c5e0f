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
	return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

static inline void entry_store(pteval_t *slot, pteval_t v)
{
	__atomic_store_n(slot, v, __ATOMIC_RELEASE);
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

static inline bool pmd_trans_huge(pteval_t v)
{
	return (v & (_PAGE_PRESENT | _PAGE_PSE)) == (_PAGE_PRESENT | _PAGE_PSE);
}

static inline unsigned long pte_pfn(pteval_t v)
{
	return (unsigned long)((v & PTE_PFN_MASK) >> PAGE_SHIFT);
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
