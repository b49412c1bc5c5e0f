// SPDX-License-Identifier: GPL-2.0-only
/*
 * pgalloc.c - page-table pages: a zeroed table for any level, backed by a
 * frame from the page allocator (so tables show in pgalloc_normal, pgfree
 * and nr_page_table_pages as in the kernel), and given back (the kernel's
 * pte_alloc_one() / pte_free() and their kin, include/asm-generic/pgalloc.h).
 *
 * The host memory of a table is recycled through its mm's pool and freed
 * only with the mm: a lockless "hardware" walker that still holds a
 * pointer to a table freed meanwhile reads a table of the same mm, never
 * freed host memory (the model's stand-in for the RCU-delayed free of
 * page tables; what the walker then reads is made safe by the TLB flush,
 * tlbflush.h). A fault that took a table's lock just as the table was
 * freed finds the PMD changed and retries (pte_offset_map_lock()); the
 * lock itself is never re-made, so each level has a pool of its own and a
 * recycled table keeps its lock and lock class.
 *
 * Conventions in this file: @level is 0 for a PTE table, 1 PMD, 2 PUD, 3 PGD.
 */
#include <string.h>
#include "internal.h"

static const struct fl_lock_class pte_ptl_class = { .name = "pte->ptl",
						    .rank = FL_RANK_PTE_PTL,
						    .kind = FL_LOCK_SPIN };
static const struct fl_lock_class pmd_ptl_class = { .name = "pmd->ptl",
						    .rank = FL_RANK_PMD_PTL,
						    .kind = FL_LOCK_SPIN };
static const struct fl_lock_class pgtable_pool_class = { .name = "mm->pgtable_pool_lock",
							 .rank = FL_RANK_PGTABLE_POOL,
							 .kind = FL_LOCK_SPIN };

/**
 * fl__pgtable_alloc() - a zeroed table for @level, backed by a frame from
 * the page allocator (counted in nr_page_table_pages).
 * Return: the table or NULL.
 */
struct pgtable *fl__pgtable_alloc(struct mm_struct *mm, int level)
{
	struct page *desc = alloc_pages(GFP_KERNEL, 0);
	struct pgtable *t;

	fl_cost(FL_COST_PTE_TABLE);
	if (!desc)
		return NULL;
	fl_raw_spin_lock(&mm->pool_lock);
	t = mm->pgtable_pool[level == 1];
	if (t)
		mm->pgtable_pool[level == 1] = t->next_free;
	fl_raw_spin_unlock(&mm->pool_lock);
	if (!t) {
		t = fl_aligned_alloc(PAGE_SIZE, sizeof(*t));
		if (!t) {
			__free_pages(desc, 0);
			return NULL;
		}
		t->deposit = NULL;
		fl_spin_lock_init(&t->ptl, level == 1 ? &pmd_ptl_class : &pte_ptl_class);
	}
	memset(t->e, 0, sizeof(t->e));
	t->desc = desc;
	t->level = level;
	t->next_free = NULL;
	if (level == 1 && !t->deposit) {
		t->deposit = fl_calloc(PTRS_PER_TABLE, sizeof(*t->deposit));
		if (!t->deposit) {
			fl__pgtable_free(mm, t);
			return NULL;
		}
	}
	fl_set_bit(PG_table, &desc->flags);
	desc->private = (unsigned long)t;
	mod_node_page_state(NODE_DATA(page_to_nid(desc)), NR_PAGETABLE, 1);
	if (level)
		count_fl_stat(FL_PGALLOC_UPPER, 1);
	return t;
}

/* Give the frame back; keep the host memory in the mm's pool. */
void fl__pgtable_free(struct mm_struct *mm, struct pgtable *t)
{
	struct page *desc = t->desc;

	if (desc) {
		mod_node_page_state(NODE_DATA(page_to_nid(desc)), NR_PAGETABLE, -1);
		fl_clear_bit(PG_table, &desc->flags);
		desc->private = 0;
		__free_pages(desc, 0);
		t->desc = NULL;
	}
	fl_raw_spin_lock(&mm->pool_lock);
	t->next_free = mm->pgtable_pool[t->level == 1];
	mm->pgtable_pool[t->level == 1] = t;
	fl_raw_spin_unlock(&mm->pool_lock);
}

void fl__pgtable_pool_destroy(struct mm_struct *mm)
{
	int i;

	for (i = 0; i < 2; i++)
		while (mm->pgtable_pool[i]) {
			struct pgtable *t = mm->pgtable_pool[i];

			mm->pgtable_pool[i] = t->next_free;
			fl_free(t->deposit);
			fl_free(t);
		}
}

void fl__pgtable_pool_init(struct mm_struct *mm)
{
	fl_spin_lock_init(&mm->pool_lock, &pgtable_pool_class);
	mm->pgtable_pool[0] = mm->pgtable_pool[1] = NULL;
}
