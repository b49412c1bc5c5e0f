// SPDX-License-Identifier: GPL-2.0-only
/*
 * madvise.c - MADV_DONTNEED, MADV_FREE, MADV_COLD, MADV_HUGEPAGE and
 * MADV_NOHUGEPAGE (mm/madvise.c in the kernel).
 *
 * DONTNEED zaps the range through one mmu_gather for the whole call and
 * frees PTE tables it leaves empty (CONFIG_PT_RECLAIM). FREE marks anon
 * folios lazy-free: it clears their PTEs' young and dirty bits and queues
 * them on the lru_lazyfree batch; a dirty or swap-cache folio is locked
 * for that, skipped unless this mapping alone maps it, and gives its swap
 * up; a clean one is not checked for sharing (6.18: after fork both
 * processes' pages go lazy-free); a PMD-mapped THP that may be mapped
 * shared is skipped. Swap PTEs in the range are freed with their slots.
 * COLD clears the young bits and queues active folios for deactivation.
 * (NO)HUGEPAGE split the VMAs at the range ends and set or clear the flag.
 *
 * COLD and PAGEOUT act only on folios on the LRU (not in a per-CPU batch)
 * that this mapping alone maps; PAGEOUT isolates the anon ones and
 * reclaims them at the end of each PMD range (reclaim_pages(): swap-out,
 * or dropping lazy-free ones).
 *
 * A large folio that a FREE, COLD or PAGEOUT range covers only in part is
 * split (split_folio(), as 6.18; a PMD-mapped one loses its PMD first) and
 * the covered pages are acted on; one that will not split is skipped.
 *
 * COLLAPSE is madvise_collapse() (khugepaged.c), VMA by VMA.
 *
 * Not modelled yet: PAGEOUT of file and shmem folios (skipped).
 *
 * Conventions in this file: [start, end) is page aligned; ranges with
 * holes are applied to the mapped parts and return -ENOMEM, as Linux does.
 */
#include "internal.h"
#include "pgtable.h"
#include "swap.h"
#include "fs.h"

/*
 * Clear the accessed bit (COLD), or the accessed and dirty bits (FREE), of
 * @nr entries from @slot if any has one, and note them for the TLB flush.
 * FREE takes each entry and puts it back (clear_young_dirty_ptes()); COLD
 * clears the one bit atomically (ptep_test_and_clear_young()).
 */
static void clear_young_dirty_ptes(struct mmu_gather *tlb, pteval_t *slot, unsigned long addr,
				   unsigned long nr, bool lazyfree)
{
	pteval_t bits = _PAGE_ACCESSED | (lazyfree ? _PAGE_DIRTY : 0), any = 0;
	unsigned long i;

	for (i = 0; i < nr; i++)
		any |= READ_ONCE(slot[i]);
	if (!(any & bits))
		return;
	for (i = 0; i < nr; i++) {
		if (lazyfree)
			ptep_clear_bits(&slot[i], bits);
		else
			fl_atomic_fetch_and(&slot[i], ~_PAGE_ACCESSED, __ATOMIC_RELAXED);
	}
	tlb_remove_tlb_entries(tlb, addr, nr);
}

/*
 * FREE: a folio that is dirty or in the swap cache is locked first, so
 * reclaim, which holds the lock from its swap allocation to the write,
 * never sees its dirty bit go; its swap goes (kept swap would outlive the
 * data the advice gives up). Return: false to leave it alone (locked
 * elsewhere, or its swap still named).
 */
static bool lazyfree_prepare(struct folio *folio)
{
	if (!folio_test_swapcache(folio) && !folio_test_dirty(folio))
		return true;
	if (!folio_trylock(folio))
		return false;
	/* only here is sharing checked: a clean shared folio goes lazy-free */
	if (folio_mapcount(folio) != (int)folio_nr_pages(folio) ||
	    (folio_test_swapcache(folio) && !folio_free_swap(folio))) {
		folio_unlock(folio);
		return false;
	}
	folio_clear_dirty(folio);
	folio_unlock(folio);
	return true;
}

/*
 * PAGEOUT: take @folio off the LRU onto @folio_list for reclaim_pages(),
 * forgetting its references (madvise_cold_or_pageout_pte_range()).
 */
static void pageout_isolate(struct folio *folio, struct list_head *folio_list)
{
	folio_clear_referenced(folio);
	folio_clear_young(folio);
	if (folio_test_active(folio))
		folio_set_workingset(folio);
	if (folio_isolate_lru(folio))
		list_add(&folio->lru, folio_list);
}

/* FREE, COLD or PAGEOUT on the huge PMD at @pmdslot, which the range covers whole. */
static void madvise_huge_pmd(struct mmu_gather *tlb, struct pgtable *pmdt, pteval_t *pmdslot,
			     unsigned long addr, int behavior, struct list_head *folio_list)
{
	FL_LOCK_SITE(site);
	bool lazyfree = behavior == MADV_FREE;
	pteval_t bits = _PAGE_ACCESSED | (lazyfree ? _PAGE_DIRTY : 0), v;
	struct folio *folio;

	fl_spin_lock_at(&pmdt->ptl, &site);
	v = entry_load(pmdslot);
	/* the huge zero folio is nobody's to free or age */
	if (!pmd_trans_huge(v) || is_huge_zero_pmd(v))
		goto unlock;
	folio = pfn_folio(pte_pfn(v));
	/* madvise_free_huge_pmd(), madvise_cold_or_pageout_pte_range(): not if shared */
	if (folio_maybe_mapped_shared(folio))
		goto unlock;
	if (behavior == MADV_PAGEOUT) {
		if (folio_test_anon(folio))
			pageout_isolate(folio, folio_list);
		goto unlock;
	}
	/* madvise_free_huge_pmd(): the folio's lock, always */
	if (lazyfree) {
		if (!folio_trylock(folio))
			goto unlock;
		if (folio_test_swapcache(folio) && !folio_free_swap(folio)) {
			folio_unlock(folio);
			goto unlock;
		}
		folio_clear_dirty(folio);
		folio_unlock(folio);
	}
	if (v & bits) {
		/* not present to hardware while the bits go */
		v = pmdp_invalidate(pmdslot);
		entry_store(pmdslot, v & ~bits);
		tlb_remove_pmd_tlb_entry(tlb, addr);
	}
	if (lazyfree) {
		folio_mark_lazyfree(folio);
	} else {
		folio_clear_referenced(folio);
		folio_deactivate(folio);
	}
unlock:
	spin_unlock(&pmdt->ptl);
}

/*
 * A large folio the range covers only in part: 6.18 splits it (to order
 * 0) and goes on with the pieces, unless it may be mapped elsewhere or
 * its lock is taken. @ptl, held by the caller, is dropped for the split
 * (which takes the page-table locks itself) and not taken again.
 * Return: -1 if not tried (@ptl still held), 0 if split, else the error.
 */
static int madvise_split_partial(struct folio *folio, struct fl_spinlock *ptl)
{
	int err;

	if (folio_maybe_mapped_shared(folio) || !folio_trylock(folio))
		return -1;
	folio_get(folio);
	spin_unlock(ptl);
	err = split_folio(folio);
	folio_unlock(folio);
	folio_put(folio);
	return err ? 1 : 0;
}

/*
 * A THP mapped by the PMD at @pmdslot that the range covers in part:
 * split the folio (the PMD goes with it). Return: true if it was split.
 */
static bool madvise_split_huge_pmd(struct pgtable *pmdt, pteval_t *pmdslot)
{
	FL_LOCK_SITE(site);
	struct folio *folio;
	pteval_t v;

	fl_spin_lock_at(&pmdt->ptl, &site);
	v = entry_load(pmdslot);
	if (!pmd_trans_huge(v) || is_huge_zero_pmd(v)) {
		spin_unlock(&pmdt->ptl);
		return false;
	}
	folio = pfn_folio(pte_pfn(v));
	if (madvise_split_partial(folio, &pmdt->ptl) < 0) {
		spin_unlock(&pmdt->ptl);
		return false;
	}
	return !pmd_trans_huge(entry_load(pmdslot));
}

/*
 * Walk the PTEs of @vma in [addr, end) for FREE, COLD or PAGEOUT under
 * each ptl; PAGEOUT reclaims what it isolated after each PMD range.
 */
static void madvise_lru_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
			      unsigned long addr, unsigned long end, int behavior)
{
	FL_LOCK_SITE(site);
	struct mm_struct *mm = vma->vm_mm;
	bool lazyfree = behavior == MADV_FREE, pageout = behavior == MADV_PAGEOUT, dropped;
	struct list_head folio_list;

	INIT_LIST_HEAD(&folio_list);
	while (addr < end) {
		if (pageout)
			reclaim_pages(&folio_list);
		unsigned long next = ALIGN_DOWN(addr, PMD_SIZE) + PMD_SIZE;
		pteval_t *pmdslot, pmdv, v;
		struct pgtable *pmdt, *ptet;
		struct folio *folio;

		if (next > end)
			next = end;
		pmdt = walk_pmd_table(mm, addr);
		if (!pmdt) {
			addr = next;
			continue;
		}
		pmdslot = &pmdt->e[pmd_index(addr)];
		pmdv = entry_load(pmdslot);
		if (pmd_trans_huge(pmdv)) {
			if (IS_ALIGNED(addr, PMD_SIZE) && next - addr == PMD_SIZE) {
				madvise_huge_pmd(tlb, pmdt, pmdslot, addr, behavior, &folio_list);
				addr = next;
				continue;
			}
			/* a range covering the THP in part splits it, then acts on its pages */
			if (!madvise_split_huge_pmd(pmdt, pmdslot))
				addr = next;
			continue;
		}
		if (!entry_is_table(pmdv)) {
			addr = next;
			continue;
		}
		ptet = entry_table(pmdv);
		dropped = false;
		fl_spin_lock_at(&ptet->ptl, &site);
		if (entry_load(pmdslot) != pmdv) {
			spin_unlock(&ptet->ptl);
			continue; /* the table went away under us: look again */
		}
		while (addr < next) {
			pteval_t *slot = &ptet->e[pte_index(addr)];
			unsigned long nr, fpfn;

			v = READ_ONCE(*slot);
			if (lazyfree && is_swap_pte(v) && is_swap_entry(pte_to_swp_entry(v))) {
				/* FREE gives swapped-out pages up too: their slots go */
				free_swap_and_cache_nr(swp_entry_slot(pte_to_swp_entry(v)), 1);
				ptep_get_and_clear(slot);
				add_mm_counter(mm, MM_SWAPENTS, -1);
				addr += PAGE_SIZE;
				continue;
			}
			if (!(v & _PAGE_PRESENT) || (v & _PAGE_SPECIAL)) {
				addr += PAGE_SIZE;
				continue;
			}
			folio = pfn_folio(pte_pfn(v));
			nr = folio_nr_pages(folio);
			fpfn = folio_pfn(folio);
			if (folio_test_large(folio)) {
				unsigned long fstart = addr - (pte_pfn(v) - fpfn) * PAGE_SIZE;

				/* partly covered: split it and look again; mapped elsewhere: skip */
				if (fstart < ALIGN_DOWN(addr, PMD_SIZE) || fstart < addr ||
				    fstart + nr * PAGE_SIZE > next) {
					int ret = madvise_split_partial(folio, &ptet->ptl);

					if (ret < 0) {
						addr += PAGE_SIZE;
						continue;
					}
					/* the lock went: split, look again; else go past */
					if (ret)
						addr += PAGE_SIZE;
					dropped = true;
					break;
				}
			}
			/*
			 * COLD and PAGEOUT: only a folio on the LRU that this
			 * mapping alone maps; FREE checks sharing only for a
			 * dirty or swap-cache one (lazyfree_prepare())
			 */
			if (!lazyfree && (!folio_test_lru(folio) ||
					  (unsigned long)folio_mapcount(folio) != nr)) {
				addr += nr * PAGE_SIZE;
				continue;
			}
			if (pageout) {
				/* anon only (file and shmem PAGEOUT are not modelled) */
				if (folio_test_anon(folio))
					pageout_isolate(folio, &folio_list);
				addr += nr * PAGE_SIZE;
				continue;
			}
			if (lazyfree && !lazyfree_prepare(folio)) {
				addr += nr * PAGE_SIZE;
				continue;
			}
			clear_young_dirty_ptes(tlb, slot, addr, nr, lazyfree);
			if (lazyfree) {
				folio_mark_lazyfree(folio);
			} else {
				folio_clear_referenced(folio);
				folio_clear_young(folio);
				folio_deactivate(folio);
			}
			addr += nr * PAGE_SIZE;
		}
		if (!dropped)
			spin_unlock(&ptet->ptl);
	}
	if (pageout)
		reclaim_pages(&folio_list);
}

static int madvise_vma_flags(struct mm_struct *mm, unsigned long start, unsigned long end,
			     int behavior)
{
	int i, ret = 0;
	unsigned long covered = 0;

	for (i = 0; i < mm->nr_vmas; i++) {
		struct vm_area_struct *vma = mm->vmas[i];

		if (vma->vm_end <= start || vma->vm_start >= end)
			continue;
		if (vma->vm_start < start) {
			ret = fl__split_vma(mm, vma, start);
			if (ret)
				return ret;
			continue; /* the upper half comes next */
		}
		if (vma->vm_end > end) {
			ret = fl__split_vma(mm, vma, end);
			if (ret)
				return ret;
		}
		vma_start_write(vma);
		if (behavior == MADV_HUGEPAGE)
			vma->vm_flags = (vma->vm_flags & ~VM_NOHUGEPAGE) | VM_HUGEPAGE;
		else
			vma->vm_flags = (vma->vm_flags & ~VM_HUGEPAGE) | VM_NOHUGEPAGE;
		vma_end_write(vma);
		if (behavior == MADV_HUGEPAGE) /* hugepage_madvise() */
			khugepaged_enter_vma(vma, vma->vm_flags);
		covered += vma->vm_end - vma->vm_start;
	}
	return covered == end - start ? 0 : -ENOMEM;
}

/*
 * MADV_COLLAPSE of [@start, @end): each VMA's part by madvise_collapse(),
 * which may drop mmap_lock, so the next VMA is looked up again by
 * address. The first error ends it; a hole gives -ENOMEM at the end.
 */
static int madvise_collapse_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	unsigned long addr = start;
	int ret = 0, unmapped = 0;

	if (end == start)
		return 0;
	down_read(&mm->mmap_lock);
	while (addr < end && !ret) {
		struct vm_area_struct *vma = find_vma(mm, addr);
		bool dropped = false;
		unsigned long next;

		if (!vma || vma->vm_start >= end) {
			unmapped = -ENOMEM;
			break;
		}
		if (vma->vm_start > addr) {
			unmapped = -ENOMEM;
			addr = vma->vm_start;
		}
		next = vma->vm_end < end ? vma->vm_end : end;
		ret = madvise_collapse(vma, addr, next, &dropped);
		addr = next;
	}
	up_read(&mm->mmap_lock);
	return ret ? ret : unmapped;
}

/*
 * DONTNEED, FREE, COLD or PAGEOUT of [@s, @e), all in @vma.
 * Context: @vma read-locked (its own lock, or mmap_lock). Return: 0 or
 * -EINVAL (a locked VMA; lazy-free of a file's pages).
 */
static int madvise_vma_part(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long s,
			    unsigned long e, int behavior, struct zap_details *details)
{
	/* lazy-free is for anonymous memory only (madvise_free_single_vma()) */
	if ((vma->vm_flags & VM_LOCKED) || (behavior == MADV_FREE && !vma_is_anonymous(vma)))
		return -EINVAL;
	if (behavior == MADV_DONTNEED)
		unmap_page_range(tlb, vma, s, e, details);
	else
		madvise_lru_range(tlb, vma, s, e, behavior);
	return 0;
}

/**
 * do_madvise() - apply @behavior to [@start, @start + @len).
 * Return: 0, -EINVAL (misaligned start, unknown advice, locked VMA),
 * -ENOMEM (part of the range is unmapped), -EOPNOTSUPP (not modelled).
 */
int do_madvise(struct mm_struct *mm, unsigned long start, size_t len, int behavior)
{
	struct mmu_gather tlb;
	struct zap_details details = { .reclaim_pt = true, .even_cows = true };
	struct vm_area_struct *vma;
	unsigned long end, covered = 0;
	int i, ret = 0;

	if (!IS_ALIGNED(start, PAGE_SIZE))
		return -EINVAL;
	end = start + ALIGN_UP(len, PAGE_SIZE);
	if (end < start)
		return -EINVAL;
	switch (behavior) {
	case MADV_DONTNEED:
	case MADV_FREE:
	case MADV_COLD:
	case MADV_PAGEOUT:
		break;
	case MADV_HUGEPAGE:
	case MADV_NOHUGEPAGE:
		if (end == start)
			return 0;
		down_write(&mm->mmap_lock);
		ret = madvise_vma_flags(mm, start, end, behavior);
		up_write(&mm->mmap_lock);
		return ret;
	case MADV_COLLAPSE:
		return madvise_collapse_range(mm, start, end);
	default:
		return -EINVAL;
	}
	if (end == start)
		return 0;
	if (behavior != MADV_DONTNEED)
		lru_add_drain();
	/*
	 * 6.18's get_lock_mode(): DONTNEED and FREE run under the per-VMA
	 * lock when the range lies in one VMA (try_vma_read_lock()), else,
	 * as COLD and PAGEOUT always, under mmap_lock for reading.
	 */
	vma = NULL;
	if (behavior == MADV_DONTNEED || behavior == MADV_FREE)
		vma = lock_vma_under_rcu(mm, start);
	if (vma && end > vma_end(vma)) {
		vma_end_read(vma);
		vma = NULL;
	}
	if (vma) {
		tlb_gather_mmu(&tlb, mm, false);
		ret = madvise_vma_part(&tlb, vma, start, end, behavior, &details);
		tlb_finish_mmu(&tlb);
		vma_end_read(vma);
		return ret;
	}
	down_read(&mm->mmap_lock);
	tlb_gather_mmu(&tlb, mm, false);
	for (i = 0; i < mm->nr_vmas && !ret; i++) {
		unsigned long s, e;

		vma = mm->vmas[i];
		if (vma->vm_end <= start || vma->vm_start >= end)
			continue;
		s = vma->vm_start > start ? vma->vm_start : start;
		e = vma->vm_end < end ? vma->vm_end : end;
		ret = madvise_vma_part(&tlb, vma, s, e, behavior, &details);
		if (!ret)
			covered += e - s;
	}
	tlb_finish_mmu(&tlb);
	up_read(&mm->mmap_lock);
	if (!ret && covered != end - start)
		ret = -ENOMEM;
	return ret;
}
