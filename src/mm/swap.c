// SPDX-License-Identifier: GPL-2.0-only
/*
 * swap.c - per-CPU folio batches (cpu_fbatches), moving them to the LRU,
 * draining them, and dropping folio references in batches (mm/swap.c; in
 * 7.x mainline the file is mm/folio.c).
 *
 * Each CPU keeps six folio_batches: lru_add (new folios), lru_deactivate_file,
 * lru_deactivate, lru_lazyfree, lru_activate, all under the CPU's
 * cpu_fbatches.lock, and lru_move_tail under lock_irq. A feeder takes a
 * reference for the batch, adds the folio, and flushes the whole batch to
 * the LRU (one lruvec lock per run of folios of the same lruvec) when the
 * batch is full, when the folio may not stay cached, or while the LRU
 * cache is disabled.
 *
 * Which folios may stay cached is the policy the seeds argue about:
 *   order0  (kernel before the seeds): only order-0 folios; any large folio
 *           flushes the batch at once;
 *   max16   (2023 proposal): folios of up to 16 pages;
 *   pages31 (seed v3, default): folios of fewer than 31 pages, and a batch
 *           flushes once it holds more than 31 pages.
 * In general: a folio of p pages may stay if p < folio_pages, and a batch
 * flushes once its page count exceeds batch_pages (0 = no page cap) or it
 * holds batch_slots folios (31 = FOLIO_BATCH_SIZE unless set lower, e.g.
 * 15 for the 2023 kernel's PAGEVEC_SIZE).
 *
 * The local lock is a real per-CPU lock here, not preempt_disable(), so
 * lru_add_drain_all() drains other CPUs' batches directly under their
 * locks (the remote-drain scheme of PREEMPT_RT and the queue-per-CPU-work
 * proposals) instead of queueing work on them.
 *
 * Conventions in this file: @fbatch is a per-CPU batch unless said
 * otherwise; move functions run with the folio's lruvec lock held and
 * PG_lru already cleared (lru_add: not yet set).
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

struct cpu_fbatches {
	struct fl_spinlock lock;
	struct folio_batch lru_add;		/* lock */
	struct folio_batch lru_deactivate_file; /* lock */
	struct folio_batch lru_deactivate;	/* lock */
	struct folio_batch lru_lazyfree;	/* lock */
	struct folio_batch lru_activate;	/* lock */
	struct fl_spinlock lock_irq;
	struct folio_batch lru_move_tail; /* lock_irq */
} __cacheline_aligned;

struct lru_cache_policy fl__lru_cache_policy = { .folio_pages = 31,
						 .batch_pages = 31,
						 .batch_slots = FOLIO_BATCH_SIZE };
bool fl__lru_add_free_dead;
int page_cluster; /* vm.page-cluster (knob vm/page-cluster); swap_setup() sets it at boot */

static struct cpu_fbatches *cpu_fbatches;
static int lru_disable_count;	   /* atomic */
static unsigned int lru_drain_gen; /* lru_drain_lock; read with acquire */

static const struct fl_lock_class fbatch_lock_class = { .name = "cpu_fbatches.lock",
							.rank = FL_RANK_LOCAL_LOCK,
							.kind = FL_LOCK_LOCAL };
static const struct fl_lock_class fbatch_lock_irq_class = { .name = "cpu_fbatches.lock_irq",
							    .rank = FL_RANK_LOCAL_LOCK_IRQ,
							    .kind = FL_LOCK_LOCAL };
static const struct fl_lock_class drain_lock_class = { .name = "lru_add_drain_all.lock",
						       .rank = FL_RANK_DRAIN_MUTEX,
						       .kind = FL_LOCK_MUTEX };
static struct fl_mutex lru_drain_lock = { .sl = { 0, 0, &drain_lock_class } };

int fl__swap_init(void)
{
	int cpu, n = nr_cpu_ids_get();

	cpu_fbatches = fl_aligned_alloc(FL_CACHELINE, sizeof(*cpu_fbatches) * (size_t)n);
	if (!cpu_fbatches)
		return -ENOMEM;
	for (cpu = 0; cpu < n; cpu++) {
		struct cpu_fbatches *fbs = &cpu_fbatches[cpu];

		memset(fbs, 0, sizeof(*fbs));
		fl_spin_lock_init(&fbs->lock, &fbatch_lock_class);
		fl_spin_lock_init(&fbs->lock_irq, &fbatch_lock_irq_class);
	}
	lru_disable_count = 0;
	lru_drain_gen = 0;
	return 0;
}

void fl__swap_exit(void)
{
	fl_free(cpu_fbatches);
	cpu_fbatches = NULL;
}

struct folio_batch *fl__cpu_lru_add_batch(int cpu)
{
	return &cpu_fbatches[cpu].lru_add;
}

static inline bool folio_evictable(const struct folio *folio)
{
	return !folio_test_mlocked(folio);
}

/* ---- move functions ---- */

static __always_inline void lru_add(struct lruvec *lruvec, struct folio *folio)
{
	/* test first: the atomic clear is rarely needed (lruvec lock held) */
	bool was_unevictable = folio_test_unevictable(folio) && folio_test_clear_unevictable(folio);
	unsigned long nr_pages = folio_nr_pages(folio);

	VM_BUG_ON(folio_test_lru(folio));
	if (folio_evictable(folio)) {
		if (was_unevictable)
			count_vm_events(UNEVICTABLE_PGRESCUED, nr_pages);
	} else {
		folio_clear_active(folio);
		folio_set_unevictable(folio);
		folio->mlock_count = 0;
		if (!was_unevictable)
			count_vm_events(UNEVICTABLE_PGCULLED, nr_pages);
	}
	lruvec_add_folio(lruvec, folio);
}

static void lru_move_tail(struct lruvec *lruvec, struct folio *folio)
{
	if (folio_test_unevictable(folio))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_clear_active(folio);
	lruvec_add_folio_tail(lruvec, folio);
	count_vm_events(PGROTATED, folio_nr_pages(folio));
}

static void lru_activate(struct lruvec *lruvec, struct folio *folio)
{
	if (folio_test_active(folio) || folio_test_unevictable(folio))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_set_active(folio);
	lruvec_add_folio(lruvec, folio);
	count_vm_events(PGACTIVATE, folio_nr_pages(folio));
	count_memcg_events(lruvec_memcg(lruvec), PGACTIVATE, folio_nr_pages(folio));
}

static void lru_deactivate_file(struct lruvec *lruvec, struct folio *folio)
{
	bool active = folio_test_active(folio);
	unsigned long nr_pages = folio_nr_pages(folio);

	if (folio_test_unevictable(folio) || folio_mapped(folio))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_clear_active(folio);
	folio_clear_referenced(folio);
	if (folio_test_writeback(folio) || folio_test_dirty(folio)) {
		/* the flusher writes it; writeback completion rotates it */
		lruvec_add_folio(lruvec, folio);
		folio_set_reclaim(folio);
	} else {
		lruvec_add_folio_tail(lruvec, folio);
		count_vm_events(PGROTATED, nr_pages);
	}
	if (active) {
		count_vm_events(PGDEACTIVATE, nr_pages);
		count_memcg_events(lruvec_memcg(lruvec), PGDEACTIVATE, nr_pages);
	}
}

static void lru_deactivate(struct lruvec *lruvec, struct folio *folio)
{
	if (folio_test_unevictable(folio) || !folio_test_active(folio))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_clear_active(folio);
	folio_clear_referenced(folio);
	lruvec_add_folio(lruvec, folio);
	count_vm_events(PGDEACTIVATE, folio_nr_pages(folio));
	count_memcg_events(lruvec_memcg(lruvec), PGDEACTIVATE, folio_nr_pages(folio));
}

static void lru_lazyfree(struct lruvec *lruvec, struct folio *folio)
{
	if (!folio_test_anon(folio) || !folio_test_swapbacked(folio) ||
	    folio_test_swapcache(folio) || folio_test_unevictable(folio))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_clear_active(folio);
	folio_clear_referenced(folio);
	/* now a "file" folio: reclaim may drop it instead of swapping it */
	folio_clear_swapbacked(folio);
	lruvec_add_folio(lruvec, folio);
	count_vm_events(PGLAZYFREE, folio_nr_pages(folio));
	count_memcg_events(lruvec_memcg(lruvec), PGLAZYFREE, folio_nr_pages(folio));
}

/* ---- moving a batch ---- */

/**
 * folio_batch_move_lru() - apply @move_fn to every folio of @fbatch under
 * its lruvec lock, then drop the batch's references.
 *
 * For lru_add, a folio whose only reference is the batch's is dead: it was
 * unmapped while queued. The model counts those (fl_lru_add_dead). With
 * --lru-add-free-dead=on (7.x) they are frozen and freed without ever
 * touching the LRU; otherwise (6.18) they go onto the LRU and straight back
 * off it when the batch's reference is dropped, taking the lock twice.
 */
void folio_batch_move_lru(struct folio_batch *fbatch, move_fn_t move_fn)
{
	FL_LOCK_SITE(site);
	struct lruvec *lruvec = NULL;
	struct folio_batch free_fb;
	bool is_add = move_fn == lru_add;
	unsigned long freed = 0;
	int i;

	if (is_add) {
		folio_batch_init(&free_fb);
		count_fl_stat(FL_LRU_ADD_FLUSH, 1);
	}
	for (i = 0; i < fbatch->nr; i++) {
		struct folio *folio = fbatch->folios[i];

		if (is_add) {
			if (folio_ref_count(folio) == 1)
				count_fl_stat(FL_LRU_ADD_DEAD, 1);
			if (fl__lru_add_free_dead && folio_ref_freeze(folio, 1)) {
				__folio_clear_active(folio);
				__folio_clear_unevictable(folio);
				folio_unqueue_deferred_split(folio);
				fbatch->folios[i] = NULL;
				folio_batch_add(&free_fb, folio);
				count_fl_stat(FL_LRU_ADD_FREED_DEAD, 1);
				continue;
			}
		} else if (!folio_test_clear_lru(folio)) {
			continue; /* someone isolated it since it was queued */
		}
		folio_lruvec_relock_irqsave(folio, &lruvec, &site);
		if (is_add)
			lru_add(lruvec, folio); /* a direct call the compiler can inline */
		else
			move_fn(lruvec, folio);
		folio_set_lru(folio);
	}
	if (lruvec)
		lruvec_unlock_irqrestore(lruvec);
	/*
	 * The kernel drops the batch's references under the batch's local
	 * lock: what dies here is freed with preemption off (in whichever task
	 * flushed this CPU's batch), fl_pgfree_atomic.
	 */
	if (is_add && free_fb.nr)
		freed = free_unref_folios(&free_fb);
	freed += folios_put_refs(fbatch, NULL);
	if (freed)
		count_fl_stat(FL_PGFREE_ATOMIC, (long)freed);
}

/*
 * Add @folio to this CPU's batch at @offset in struct cpu_fbatches and
 * flush the batch if the policy says so.
 */
static __always_inline void __folio_batch_add_and_move(size_t offset, struct folio *folio,
						       move_fn_t move_fn, bool irq)
{
	struct cpu_fbatches *fbs;
	struct folio_batch *fbatch;
	struct fl_spinlock *lock;
	FL_LOCK_SITE(site);
	FL_LOCK_SITE(site_irq);

	unsigned long nr_pages = folio_nr_pages(folio);

	folio_get(folio); /* the batch's reference */
	fbs = &cpu_fbatches[smp_processor_id()];
	lock = irq ? &fbs->lock_irq : &fbs->lock;
	fl_spin_lock_at(lock, irq ? &site_irq : &site);
	fbatch = (struct folio_batch *)((char *)fbs + offset);
	/* folio_may_be_lru_cached(), with the page count read once */
	if (!folio_batch_add_lru_cache(fbatch, folio, nr_pages) ||
	    nr_pages >= fl__lru_cache_policy.folio_pages || lru_cache_disabled())
		folio_batch_move_lru(fbatch, move_fn);
	spin_unlock(lock);
}

#define folio_batch_add_and_move(folio, op)                                                        \
	__folio_batch_add_and_move(offsetof(struct cpu_fbatches, op), (folio), op,                 \
				   offsetof(struct cpu_fbatches, op) >                             \
					   offsetof(struct cpu_fbatches, lock_irq))

/* ---- feeders ---- */

/**
 * folio_add_lru() - queue a new folio for the LRU.
 * Context: the folio is not on an LRU list.
 */
__always_inline void folio_add_lru(struct folio *folio)
{
	VM_BUG_ON(folio_test_active(folio) && folio_test_unevictable(folio));
	VM_BUG_ON(folio_test_lru(folio));
	folio_batch_add_and_move(folio, lru_add);
}

__always_inline void folio_add_lru_vma(struct folio *folio, struct vm_area_struct *vma)
{
	/* VM_LOCKED would go to mlock_new_folio(); mlock is not modelled yet */
	(void)vma;
	folio_add_lru(folio);
}

/* Writeback finished on a PG_reclaim folio: rotate it to the inactive tail. */
void folio_rotate_reclaimable(struct folio *folio)
{
	if (folio_test_locked(folio) || folio_test_dirty(folio) || folio_test_unevictable(folio) ||
	    !folio_test_lru(folio))
		return;
	folio_batch_add_and_move(folio, lru_move_tail);
}

void folio_activate(struct folio *folio)
{
	if (folio_test_active(folio) || folio_test_unevictable(folio) || !folio_test_lru(folio))
		return;
	folio_batch_add_and_move(folio, lru_activate);
}

/* Invalidation failed on a file folio: help reclaim find it. */
void deactivate_file_folio(struct folio *folio)
{
	if (folio_test_unevictable(folio) || !folio_test_lru(folio))
		return;
	folio_batch_add_and_move(folio, lru_deactivate_file);
}

/* MADV_COLD and friends: active to inactive. */
void folio_deactivate(struct folio *folio)
{
	if (folio_test_unevictable(folio) || !folio_test_lru(folio) || !folio_test_active(folio))
		return;
	folio_batch_add_and_move(folio, lru_deactivate);
}

/* MADV_FREE: anon memory reclaim may drop instead of swapping out. */
void folio_mark_lazyfree(struct folio *folio)
{
	if (!folio_test_anon(folio) || !folio_test_swapbacked(folio) || !folio_test_lru(folio) ||
	    folio_test_swapcache(folio) || folio_test_unevictable(folio))
		return;
	folio_batch_add_and_move(folio, lru_lazyfree);
}

/*
 * A folio still in this CPU's lru_add batch is not on the LRU yet: mark it
 * active so the drain puts it on the active list.
 */
static void __lru_cache_activate_folio(struct folio *folio)
{
	FL_LOCK_SITE(site);
	struct cpu_fbatches *fbs = &cpu_fbatches[smp_processor_id()];
	int i;

	fl_spin_lock_at(&fbs->lock, &site);
	for (i = fbs->lru_add.nr - 1; i >= 0; i--) {
		if (fbs->lru_add.folios[i] == folio) {
			folio_set_active(folio);
			break;
		}
	}
	spin_unlock(&fbs->lock);
}

/**
 * folio_mark_accessed() - the classic two-step promotion: the first access
 * sets PG_referenced, the second activates.
 */
void folio_mark_accessed(struct folio *folio)
{
	if (folio_test_dropbehind(folio))
		return;
	if (!folio_test_referenced(folio)) {
		folio_set_referenced(folio);
	} else if (folio_test_unevictable(folio)) {
		/* unevictable folios have no active list to go to */
	} else if (!folio_test_active(folio)) {
		if (folio_test_lru(folio))
			folio_activate(folio);
		else
			__lru_cache_activate_folio(folio);
		folio_clear_referenced(folio);
		workingset_activation(folio);
	}
	if (folio_test_idle(folio))
		folio_clear_idle(folio);
}

/* ---- draining ---- */

/**
 * lru_add_drain_cpu() - flush every batch of @cpu, in the kernel's order.
 * Context: @cpu's cpu_fbatches.lock is held (or @cpu is not running).
 */
void lru_add_drain_cpu(int cpu)
{
	FL_LOCK_SITE(site);
	struct cpu_fbatches *fbs = &cpu_fbatches[cpu];

	if (folio_batch_count(&fbs->lru_add))
		folio_batch_move_lru(&fbs->lru_add, lru_add);
	if (folio_batch_count(&fbs->lru_move_tail)) {
		fl_spin_lock_at(&fbs->lock_irq, &site);
		folio_batch_move_lru(&fbs->lru_move_tail, lru_move_tail);
		spin_unlock(&fbs->lock_irq);
	}
	if (folio_batch_count(&fbs->lru_deactivate_file))
		folio_batch_move_lru(&fbs->lru_deactivate_file, lru_deactivate_file);
	if (folio_batch_count(&fbs->lru_deactivate))
		folio_batch_move_lru(&fbs->lru_deactivate, lru_deactivate);
	if (folio_batch_count(&fbs->lru_lazyfree))
		folio_batch_move_lru(&fbs->lru_lazyfree, lru_lazyfree);
	if (folio_batch_count(&fbs->lru_activate))
		folio_batch_move_lru(&fbs->lru_activate, lru_activate);
}

void lru_add_drain(void)
{
	FL_LOCK_SITE(site);
	int cpu = smp_processor_id();

	fl_spin_lock_at(&cpu_fbatches[cpu].lock, &site);
	lru_add_drain_cpu(cpu);
	spin_unlock(&cpu_fbatches[cpu].lock);
}

unsigned int fl__cpu_batches_count(int cpu)
{
	struct cpu_fbatches *fbs = &cpu_fbatches[cpu];

	return folio_batch_count(&fbs->lru_add) + folio_batch_count(&fbs->lru_move_tail) +
	       folio_batch_count(&fbs->lru_deactivate_file) +
	       folio_batch_count(&fbs->lru_deactivate) + folio_batch_count(&fbs->lru_lazyfree) +
	       folio_batch_count(&fbs->lru_activate);
}

/* The per-CPU work of lru_add_drain_all(), run here from the caller. */
static void lru_add_drain_per_cpu(int cpu)
{
	FL_LOCK_SITE(site);

	fl_spin_lock_at(&cpu_fbatches[cpu].lock, &site);
	lru_add_drain_cpu(cpu);
	spin_unlock(&cpu_fbatches[cpu].lock);
}

/*
 * Drain every CPU. Callers that queued behind a drain which started after
 * they arrived piggyback on it (lru_drain_gen), unless @force.
 */
static void __lru_add_drain_all(bool force)
{
	unsigned int this_gen;
	int cpu;

	this_gen = smp_load_acquire(&lru_drain_gen);
	lru_add_drain();
	mutex_lock(&lru_drain_lock);
	if (this_gen != lru_drain_gen && !force)
		goto done;
	/* release: a later caller that sees the new gen sees our drain start */
	smp_store_release(&lru_drain_gen, lru_drain_gen + 1);
	for_each_online_cpu (cpu) {
		if (fl__cpu_batches_count(cpu))
			lru_add_drain_per_cpu(cpu);
	}
done:
	mutex_unlock(&lru_drain_lock);
}

void lru_add_drain_all(void)
{
	__lru_add_drain_all(false);
}

bool lru_cache_disabled(void)
{
	return fl_atomic_load(&lru_disable_count, __ATOMIC_RELAXED) != 0;
}

/**
 * lru_cache_disable() - make every later add flush at once, then drain.
 * A CPU that read the count as 0 is inside its batch lock; the forced
 * drain takes each of those locks, so nothing stays cached afterwards.
 */
void lru_cache_disable(void)
{
	fl_atomic_fetch_add(&lru_disable_count, 1, __ATOMIC_SEQ_CST);
	__lru_add_drain_all(true);
}

void lru_cache_enable(void)
{
	fl_atomic_fetch_sub(&lru_disable_count, 1, __ATOMIC_SEQ_CST);
}

/* ---- dropping references ---- */

/* Take a dead folio off the LRU, relocking only when the lruvec changes. */
static __always_inline void __page_cache_release(struct folio *folio, struct lruvec **lruvecp)
{
	FL_LOCK_SITE(site);

	if (!folio_test_lru(folio))
		return;
	unsigned long flags, clear = 1ul << PG_lru;

	folio_lruvec_relock_irqsave(folio, lruvecp, &site);
	lruvec_del_folio(*lruvecp, folio);
	/* __folio_clear_lru_flags(): one store for the three bits */
	flags = READ_ONCE(folio->flags);
	if ((flags & ((1ul << PG_active) | (1ul << PG_unevictable))) !=
	    ((1ul << PG_active) | (1ul << PG_unevictable)))
		clear |= (1ul << PG_active) | (1ul << PG_unevictable);
	WRITE_ONCE(folio->flags, flags & ~clear);
}

/**
 * folios_put_refs() - drop @refs[i] (or 1) references on each folio and
 * free those that reach zero, the lruvec lock taken once per run.
 * NULL slots (freed by the lru_add dead filter) are skipped. The batch is
 * reinitialised.
 * Return: the pages freed.
 */
unsigned long folios_put_refs(struct folio_batch *folios, unsigned int *refs)
{
	struct lruvec *lruvec = NULL;
	int i, j;

	for (i = 0, j = 0; i < folios->nr; i++) {
		struct folio *folio = folios->folios[i];
		int nr_refs = refs ? (int)refs[i] : 1;

		if (!folio)
			continue;
		if (!folio_ref_sub_and_test(folio, nr_refs))
			continue;
		folio_unqueue_deferred_split(folio);
		__page_cache_release(folio, &lruvec);
		folios->folios[j++] = folio;
	}
	if (lruvec)
		lruvec_unlock_irqrestore(lruvec);
	if (!j) {
		folio_batch_reinit(folios);
		return 0;
	}
	WRITE_ONCE(folios->nr, (unsigned char)j);
	return free_unref_folios(folios);
}

/* The last reference of a single folio went away. */
void __folio_put(struct folio *folio)
{
	struct lruvec *lruvec = NULL;

	__page_cache_release(folio, &lruvec);
	if (lruvec)
		lruvec_unlock_irqrestore(lruvec);
	folio_unqueue_deferred_split(folio);
	free_frozen_pages((struct page *)folio, folio_order(folio));
}

/**
 * lru_cache_drain_for_folio() - the seed's helper (000 3/4): when @folio
 * may sit in a per-CPU LRU batch and holds more references than its
 * expected ones plus @extra_refs, drain this CPU's batches, and if that
 * was not enough every CPU's. @drained (may be NULL) carries what a
 * caller handling a batch of folios has drained already, so it drains at
 * most once locally and once everywhere; the expected count is taken
 * again before each step, as a racing unmap may change it.
 */
void lru_cache_drain_for_folio(struct folio *folio, int extra_refs, enum lru_cache_drained *drained)
{
	if (!folio_may_be_lru_cached(folio))
		return;
	if (!drained || *drained == LRU_CACHE_NOT_DRAINED) {
		if (folio_ref_count(folio) == folio_expected_ref_count(folio) + extra_refs)
			return;
		lru_add_drain();
		if (drained)
			*drained = LRU_CACHE_DRAINED;
	}
	if (!drained || *drained == LRU_CACHE_DRAINED) {
		if (folio_ref_count(folio) == folio_expected_ref_count(folio) + extra_refs)
			return;
		lru_add_drain_all();
		if (drained)
			*drained = LRU_CACHE_DRAINED_ALL;
	}
}
