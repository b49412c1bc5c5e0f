/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * swapops.h - entries that are not present to hardware but not none
 * either: the swap-entry encoding of a PTE, and the migration entries a
 * split leaves in place of the mappings it takes away
 * (include/linux/swapops.h, swap.h and the x86 pgtable_64.h in the kernel).
 *
 * A swap entry is a type and an offset. Types below MAX_SWAPFILES name a
 * swap device (the model has one, type 0), and a swap PTE also keeps
 * whether the page was exclusive to its mm (x86's _PAGE_SWP_EXCLUSIVE, here
 * a bit of the entry); the three migration types sit at the top,
 * and their offset is the pfn of the page the entry stands for. A
 * migration entry also keeps whether the PTE it replaced was young and
 * dirty, so the remap gives the bits back.
 *
 * The PTE encoding (the model's, in x86's spirit): bit 0 (present) clear;
 * the offset in the pfn bits 12..51; young at bit 52, dirty at bit 53; the
 * type in bits 58..62. A none PTE is 0, and every migration type is
 * non-zero, so no migration entry reads as none.
 *
 * Conventions in this file: "entry" is a swp_entry_t; "pte" a pteval_t.
 */
#ifndef FL_MM_SWAPOPS_H
#define FL_MM_SWAPOPS_H

#include "folio.h"

typedef struct {
	unsigned long val;
} swp_entry_t;

#define MAX_SWAPFILES_SHIFT 5
#define SWP_MIGRATION_NUM 3
#define MAX_SWAPFILES ((1 << MAX_SWAPFILES_SHIFT) - SWP_MIGRATION_NUM)
#define SWP_MIGRATION_READ MAX_SWAPFILES
#define SWP_MIGRATION_READ_EXCLUSIVE (MAX_SWAPFILES + 1)
#define SWP_MIGRATION_WRITE (MAX_SWAPFILES + 2)

/* inside the entry value: offset in the low bits, then young, dirty, type */
#define SWP_OFFSET_BITS 40
#define SWP_MIG_YOUNG (1ul << SWP_OFFSET_BITS)
#define SWP_MIG_DIRTY (1ul << (SWP_OFFSET_BITS + 1))
#define SWP_TYPE_SHIFT 46
#define SWP_OFFSET_MASK ((1ul << SWP_OFFSET_BITS) - 1)

/* inside a PTE */
#define SWP_PTE_SHIFT PAGE_SHIFT

static inline swp_entry_t swp_entry(unsigned int type, unsigned long offset)
{
	swp_entry_t e = { ((unsigned long)type << SWP_TYPE_SHIFT) | (offset & SWP_OFFSET_MASK) };

	return e;
}

static inline unsigned int swp_type(swp_entry_t e)
{
	return (unsigned int)(e.val >> SWP_TYPE_SHIFT);
}

static inline unsigned long swp_offset(swp_entry_t e)
{
	return e.val & SWP_OFFSET_MASK;
}

/* is_swap_pte() - not none, not present: a swap or migration entry */
static inline bool is_swap_pte(pteval_t pte)
{
	return pte && !(pte & _PAGE_PRESENT);
}

static inline swp_entry_t pte_to_swp_entry(pteval_t pte)
{
	swp_entry_t e = { (unsigned long)(pte >> SWP_PTE_SHIFT) };

	return e;
}

static inline pteval_t swp_entry_to_pte(swp_entry_t e)
{
	return (pteval_t)e.val << SWP_PTE_SHIFT;
}

static inline bool is_migration_entry(swp_entry_t e)
{
	unsigned int t = swp_type(e);

	return t >= SWP_MIGRATION_READ && t <= SWP_MIGRATION_WRITE;
}

static inline bool is_writable_migration_entry(swp_entry_t e)
{
	return swp_type(e) == SWP_MIGRATION_WRITE;
}

static inline bool is_readable_exclusive_migration_entry(swp_entry_t e)
{
	return swp_type(e) == SWP_MIGRATION_READ_EXCLUSIVE;
}

static inline swp_entry_t make_readable_migration_entry(unsigned long pfn)
{
	return swp_entry(SWP_MIGRATION_READ, pfn);
}

static inline swp_entry_t make_readable_exclusive_migration_entry(unsigned long pfn)
{
	return swp_entry(SWP_MIGRATION_READ_EXCLUSIVE, pfn);
}

static inline swp_entry_t make_writable_migration_entry(unsigned long pfn)
{
	return swp_entry(SWP_MIGRATION_WRITE, pfn);
}

static inline swp_entry_t make_migration_entry_young(swp_entry_t e)
{
	e.val |= SWP_MIG_YOUNG;
	return e;
}

static inline swp_entry_t make_migration_entry_dirty(swp_entry_t e)
{
	e.val |= SWP_MIG_DIRTY;
	return e;
}

static inline bool is_migration_entry_young(swp_entry_t e)
{
	return e.val & SWP_MIG_YOUNG;
}

static inline bool is_migration_entry_dirty(swp_entry_t e)
{
	return e.val & SWP_MIG_DIRTY;
}

/* A swap entry's exclusive bit shares the position of a migration entry's young bit. */
#define SWP_EXCLUSIVE SWP_MIG_YOUNG

static inline swp_entry_t make_swap_entry_exclusive(swp_entry_t e)
{
	e.val |= SWP_EXCLUSIVE;
	return e;
}

static inline bool is_swap_entry_exclusive(swp_entry_t e)
{
	return e.val & SWP_EXCLUSIVE;
}

/* The entry a swap PTE names, without the PTE's own bits (the slot). */
static inline swp_entry_t swp_entry_slot(swp_entry_t e)
{
	return swp_entry(swp_type(e), swp_offset(e));
}

/* The offset is a pfn for migration entries. */
static inline unsigned long swp_offset_pfn(swp_entry_t e)
{
	return swp_offset(e);
}

static inline struct page *pfn_swap_entry_to_page(swp_entry_t e)
{
	return pfn_to_page(swp_offset_pfn(e));
}

static inline struct folio *pfn_swap_entry_folio(swp_entry_t e)
{
	return page_folio(pfn_swap_entry_to_page(e));
}

#endif /* FL_MM_SWAPOPS_H */
