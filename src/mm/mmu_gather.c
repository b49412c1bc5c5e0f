// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmu_gather.c - batching pages and page tables freed by a zap until the
 * TLB is flushed (mm/mmu_gather.c in the kernel).
 *
 * The first MMU_GATHER_BUNDLE (8) entries live in the gather itself; then
 * whole pages of MAX_GATHER_BATCH (510) entries are allocated with
 * GFP_NOWAIT, at most MAX_GATHER_BATCH_COUNT (19) of them. A run of pages
 * of one large folio takes two entries (page, then count). When no batch
 * can be added the zap must flush (tlb_flush_mmu) and go on. Freeing goes
 * in chunks of MAX_NR_FOLIOS_PER_FREE entries through
 * free_pages_and_swap_cache(), which frees through folios_put_refs().
 *
 * The model has no TLB, so "flushing the TLB" is a no-op; what matters is
 * when pages and page tables are freed, and that batch pages come from the
 * page allocator (they show in pgalloc_normal as in the kernel).
 *
 * Conventions in this file: @tlb->active is the batch being filled.
 */
#include "internal.h"

static void __tlb_reset_range(struct mmu_gather *tlb)
{
	tlb->start = TASK_SIZE;
	tlb->end = 0;
	tlb->freed_tables = false;
	tlb->cleared_ptes = false;
	tlb->cleared_pmds = false;
}

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm, bool fullmm)
{
	tlb->mm = mm;
	tlb->fullmm = fullmm;
	tlb->batch_count = 0;
	tlb->local.next = NULL;
	tlb->local.nr = 0;
	tlb->local.max = MMU_GATHER_BUNDLE;
	tlb->local.desc = NULL;
	tlb->local.encoded_pages = tlb->__pages;
	tlb->active = &tlb->local;
	__tlb_reset_range(tlb);
	tlb->table_list = NULL;
	tlb->table_batch = NULL;
	tlb->table_nr = 0;
}

static bool tlb_next_batch(struct mmu_gather *tlb)
{
	struct mmu_gather_batch *batch = tlb->active;
	struct page *page;

	if (batch->next) {
		tlb->active = batch->next;
		return true;
	}
	if (tlb->batch_count == MAX_GATHER_BATCH_COUNT)
		return false;
	page = alloc_pages(GFP_NOWAIT, 0);
	if (!page)
		return false;
	batch = fl_malloc(sizeof(*batch) + MAX_GATHER_BATCH * sizeof(void *));
	if (!batch) {
		__free_pages(page, 0);
		return false;
	}
	tlb->batch_count++;
	batch->desc = page;
	batch->next = NULL;
	batch->nr = 0;
	batch->max = MAX_GATHER_BATCH;
	batch->encoded_pages = (struct encoded_page **)(batch + 1);
	tlb->active->next = batch;
	tlb->active = batch;
	return true;
}

/**
 * __tlb_remove_folio_pages() - queue @nr_pages pages of one folio starting
 * at @page, dropping one reference per page at free time.
 * Return: true when the gather is full and the caller must flush.
 */
__always_inline bool __tlb_remove_folio_pages(struct mmu_gather *tlb, struct page *page,
					      unsigned int nr_pages, bool delay_rmap)
{
	struct mmu_gather_batch *batch = tlb->active;
	unsigned long flags = delay_rmap ? ENCODED_PAGE_BIT_DELAY_RMAP : 0;

	if (nr_pages == 1) {
		batch->encoded_pages[batch->nr++] = encode_page(page, flags);
	} else {
		flags |= ENCODED_PAGE_BIT_NR_PAGES_NEXT;
		batch->encoded_pages[batch->nr++] = encode_page(page, flags);
		batch->encoded_pages[batch->nr++] = encode_nr_pages(nr_pages);
	}
	/* keep room for one more two-entry item */
	if (batch->nr >= batch->max - 1) {
		if (!tlb_next_batch(tlb))
			return true;
	}
	return false;
}

/* The tables' batch page goes after RCU with them (tlb_remove_table_free()). */
static void table_batch_free(struct mmu_gather *tlb)
{
	if (!tlb->table_batch)
		return;
	__free_pages(tlb->table_batch, 0);
	count_fl_stat(FL_PGFREE_RCU, 1);
	tlb->table_batch = NULL;
	tlb->table_nr = 0;
}

/**
 * tlb_remove_table() - free the page table @t, which mapped @addr, once the
 * TLB is flushed (pte_free_tlb() and its kin).
 */
void tlb_remove_table(struct mmu_gather *tlb, struct pgtable *t, unsigned long addr)
{
	tlb->freed_tables = true;
	__tlb_adjust_range(tlb, addr, PAGE_SIZE);
	t->next_free = tlb->table_list;
	tlb->table_list = t;
	/*
	 * The kernel keeps the tables in a page of pointers (struct
	 * mmu_table_batch, GFP_NOWAIT: without one it frees the table at
	 * once, after an IPI) and frees that page with them after RCU; a full
	 * one is sent off and the next table takes a new page
	 */
	if (tlb->table_batch && tlb->table_nr == MAX_TABLE_BATCH)
		table_batch_free(tlb);
	if (!tlb->table_batch) {
		tlb->table_batch = alloc_pages(GFP_NOWAIT, 0);
		tlb->table_nr = 0;
	}
	tlb->table_nr += tlb->table_batch != NULL;
}

/*
 * The kernel frees these after an RCU grace period (tlb_remove_table_rcu(),
 * in softirq on whatever CPU), not in the zapping task: fl_pgfree_rcu.
 */
static void tlb_table_flush(struct mmu_gather *tlb)
{
	while (tlb->table_list) {
		struct pgtable *t = tlb->table_list;

		tlb->table_list = t->next_free;
		fl__pgtable_free(tlb->mm, t);
		count_fl_stat(FL_PGFREE_RCU, 1);
	}
	table_batch_free(tlb);
}

static void tlb_batch_pages_flush(struct mmu_gather *tlb)
{
	struct mmu_gather_batch *batch;

	for (batch = &tlb->local; batch && batch->nr; batch = batch->next) {
		struct encoded_page **pages = batch->encoded_pages;

		while (batch->nr) {
			unsigned int nr = batch->nr < MAX_NR_FOLIOS_PER_FREE
						  ? batch->nr
						  : MAX_NR_FOLIOS_PER_FREE;

			/* never split a page from the count that follows it */
			if (nr < batch->nr &&
			    (encoded_page_flags(pages[nr - 1]) & ENCODED_PAGE_BIT_NR_PAGES_NEXT))
				nr++;
			free_pages_and_swap_cache(pages, (int)nr);
			pages += nr;
			batch->nr -= nr;
		}
	}
	tlb->active = &tlb->local;
}

struct hw_access_seq fl__hw_access_seq[FL_NR_CPUS_MAX + 1];
#if FL_DEBUG >= 2
void (*fl__hw_access_hook)(int where);
#endif

void flush_tlb_mm(struct mm_struct *mm)
{
	int cpu, self = hw_access_slot();
	bool waited = false;

	if (fl_uniproc())
		return;
	fl__membarrier();
	for (cpu = 0; cpu <= fl__nr_cpu_ids; cpu++) {
		/* acquire: what the CPU did in its access happens before our frees */
		unsigned long s = smp_load_acquire(&fl__hw_access_seq[cpu].seq);

		/* another mm's access: its tables and pages are not ours */
		if (cpu == self || !(s & 1) || READ_ONCE(fl__hw_access_seq[cpu].mm) != mm)
			continue;
		waited = true;
		/* the access ends (it may be preempted mid-way: the wait yields) */
		smp_cond_load_acquire(&fl__hw_access_seq[cpu].seq, VAL != s);
	}
	if (waited)
		count_fl_stat(FL_TLB_SHOOTDOWN_WAIT, 1);
}

void flush_tlb_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	count_fl_stat(FL_TLB_FLUSH, 1);
	fl__dtlb_flush_range(mm, start, end);
	flush_tlb_mm(mm);
}

void flush_pmd_tlb_range(struct mm_struct *mm, unsigned long haddr)
{
	count_fl_stat(FL_TLB_FLUSH, 1);
	fl__dtlb_flush_pmd(mm, haddr);
	flush_tlb_mm(mm);
}

/*
 * sim: the shootdown as x86 sends it (arch/x86/mm/tlb.c
 * native_flush_tlb_multi(), smp_call_function_many_cond() with wait): an
 * IPI to every other CPU running a task of @mm, each of which takes the
 * interrupt and flushes (ipi_recv, on its CPU), while the sender flushes
 * its own TLB (tlb_flush) and then waits once for them all (ipi).
 */
static void flush_tlb_others(struct mm_struct *mm)
{
	int cpu, self = smp_processor_id();

	if (!mm_cpumask_others(mm))
		return;
	for (cpu = 0; cpu < fl__nr_cpu_ids; cpu++)
		if (cpu != self && fl_atomic_load(&mm->cpu_tasks[cpu], __ATOMIC_RELAXED))
			(void)fl_cost_on_cpu(cpu, FL_COST_IPI_RECV);
	fl_cost(FL_COST_IPI);
}

/* Flush the TLB if any entry was cleared since the last flush. */
static void tlb_flush_mmu_tlbonly(struct mmu_gather *tlb)
{
	if (!(tlb->freed_tables || tlb->cleared_ptes || tlb->cleared_pmds))
		return;
	count_fl_stat(FL_TLB_FLUSH, 1);
	fl_cost(FL_COST_TLB_FLUSH);
	fl_sim_only(flush_tlb_others(tlb->mm));
	if (tlb->fullmm)
		fl__dtlb_flush_mm(tlb->mm);
	else
		fl__dtlb_flush_range(tlb->mm, tlb->start, tlb->end);
	flush_tlb_mm(tlb->mm);
	__tlb_reset_range(tlb);
}

void tlb_flush_mmu(struct mmu_gather *tlb)
{
	/* the TLB flush: before any page or table the zap took is freed */
	tlb_flush_mmu_tlbonly(tlb);
	tlb_table_flush(tlb);
	tlb_batch_pages_flush(tlb);
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	struct mmu_gather_batch *batch, *next;

	tlb_flush_mmu(tlb);
	for (batch = tlb->local.next; batch; batch = next) {
		next = batch->next;
		__free_pages(batch->desc, 0);
		fl_free(batch);
	}
	tlb->local.next = NULL;
}
