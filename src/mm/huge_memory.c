// SPDX-License-Identifier: GPL-2.0-only
/*
 * huge_memory.c - the THP and mTHP policy knobs, which orders a fault may
 * use, PMD-mapped THP faults, zapping and splitting PMD mappings, and the
 * deferred-split hook (mm/huge_memory.c in the kernel).
 *
 * Knobs mirror /sys/kernel/mm/transparent_hugepage/: a top-level
 * "enabled" (always/madvise/never) and per size "hugepages-<N>kB/enabled"
 * (always/inherit/madvise/never), kept as three order bitmaps as the
 * kernel keeps them. Defaults are those of our host kernel: top-level
 * madvise, hugepages-2048kB inherit, every other size never.
 *
 * The huge zero folio: a read fault in a THP range maps one shared,
 * zeroed PMD-sized folio read-only; a write there gets a THP of its own
 * (do_huge_zero_wp_pmd()); a split makes zero-page PTEs of it.
 *
 * Not modelled yet: khugepaged registration.
 *
 * Conventions in this file: @pmdt is a PMD table and @idx the entry; the
 * PMD table's ptl guards its entries and deposited PTE tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "swap.h"
#include "pgtable.h"
#include "fs.h"
#include "swapops.h"

struct fl_thp_knobs fl__thp;

static const char *const thp_enabled_names[] = { "never", "madvise", "always" };

void fl__thp_knobs_default(void)
{
	memset(&fl__thp, 0, sizeof(fl__thp));
	fl__thp.enabled = THP_MADVISE;
	fl__thp.orders_inherit = 1ul << PMD_ORDER;
	fl__thp.use_zero_page = true;
	fl__thp.shrink_underused = true;
	fl__thp.defrag = THP_DEFRAG_MADVISE;
	fl__thp.shmem_huge = 0; /* SHMEM_HUGE_NEVER */
	fl__thp.shmem_orders_inherit = 1ul << PMD_ORDER;
}

/* shmem_enabled words, in sysfs order, and their SHMEM_HUGE_* values */
static const struct {
	const char *name;
	int value;
} shmem_huge_names[] = { { "always", 1 }, { "within_size", 2 }, { "advise", 3 },
			 { "never", 0 },  { "deny", -1 },	{ "force", -2 } };

/* "hugepages-16kB" -> order 2; -1 if it is not a size of at least @min_order */
static int size_dir_order_from(const char *s, size_t len, int min_order)
{
	unsigned long kb;
	char *end;
	int order;

	if (len < 12 || strncmp(s, "hugepages-", 10) != 0)
		return -1;
	kb = strtoul(s + 10, &end, 10);
	if ((size_t)(end - s) + 2 != len || strncmp(end, "kB", 2) != 0)
		return -1;
	for (order = min_order; order <= PMD_ORDER; order++)
		if ((PAGE_SIZE << order) / 1024 == kb)
			return order;
	return -1;
}

/* anon mTHP sizes start at 16kB (order 2); shmem's at 8kB */
static int size_dir_order(const char *s, size_t len)
{
	return size_dir_order_from(s, len, 2);
}

static int set_shmem_order_policy(int order, const char *value)
{
	static const char *const words[] = { "always", "inherit", "within_size", "advise",
					     "never" };
	unsigned long *masks[] = { &fl__thp.shmem_orders_always, &fl__thp.shmem_orders_inherit,
				   &fl__thp.shmem_orders_within_size, &fl__thp.shmem_orders_madvise,
				   NULL };
	unsigned long bit = 1ul << order;
	int i, k = -1;

	for (i = 0; i < 5; i++)
		if (!strcmp(value, words[i]))
			k = i;
	if (k < 0)
		return -EINVAL;
	for (i = 0; i < 4; i++)
		*masks[i] &= ~bit;
	if (masks[k])
		*masks[k] |= bit;
	return 0;
}

static const char *shmem_order_policy(int order)
{
	unsigned long bit = 1ul << order;

	if (fl__thp.shmem_orders_always & bit)
		return "always";
	if (fl__thp.shmem_orders_inherit & bit)
		return "inherit";
	if (fl__thp.shmem_orders_within_size & bit)
		return "within_size";
	if (fl__thp.shmem_orders_madvise & bit)
		return "advise";
	return "never";
}

static int set_order_policy(int order, const char *value)
{
	unsigned long bit = 1ul << order;

	if (strcmp(value, "always") && strcmp(value, "inherit") && strcmp(value, "madvise") &&
	    strcmp(value, "never"))
		return -EINVAL;
	fl__thp.orders_always &= ~bit;
	fl__thp.orders_inherit &= ~bit;
	fl__thp.orders_madvise &= ~bit;
	if (!strcmp(value, "always"))
		fl__thp.orders_always |= bit;
	else if (!strcmp(value, "inherit"))
		fl__thp.orders_inherit |= bit;
	else if (!strcmp(value, "madvise"))
		fl__thp.orders_madvise |= bit;
	return 0;
}

static int parse_bool01(const char *value, bool *out)
{
	if (!strcmp(value, "0") || !strcmp(value, "1")) {
		*out = value[0] == '1';
		return 0;
	}
	return -EINVAL;
}

/**
 * fl__thp_knob_set() - write a knob below transparent_hugepage/.
 * @name: e.g. "enabled", "hugepages-16kB/enabled", "use_zero_page".
 * Return: 0, -ENOENT for an unknown knob, -EINVAL for a bad value (with
 * the accepted values in @err).
 */
int fl__thp_knob_set(const char *name, const char *value, char *err, size_t len)
{
	const char *slash = strchr(name, '/');
	int i;

	if (!strcmp(name, "enabled")) {
		for (i = 0; i < 3; i++) {
			if (!strcmp(value, thp_enabled_names[i])) {
				fl__thp.enabled = i;
				return 0;
			}
		}
		snprintf(err, len,
			 "transparent_hugepage/enabled: '%s' is not one of always, madvise, never",
			 value);
		return -EINVAL;
	}
	if (!strcmp(name, "defrag")) {
		static const char *const d[] = { "always", "defer", "defer+madvise", "madvise",
						 "never" };
		for (i = 0; i < 5; i++) {
			if (!strcmp(value, d[i])) {
				fl__thp.defrag = i;
				return 0;
			}
		}
		snprintf(err, len,
			 "transparent_hugepage/defrag: '%s' is not one of always, defer, "
			 "defer+madvise, madvise, never",
			 value);
		return -EINVAL;
	}
	if (!strcmp(name, "use_zero_page") || !strcmp(name, "shrink_underused")) {
		bool *b = name[0] == 'u' ? &fl__thp.use_zero_page : &fl__thp.shrink_underused;

		if (parse_bool01(value, b)) {
			snprintf(err, len, "transparent_hugepage/%s: '%s' is not 0 or 1", name,
				 value);
			return -EINVAL;
		}
		return 0;
	}
	if (!strncmp(name, "khugepaged/", 11)) {
		int ret = fl__khugepaged_knob_set(name + 11, value, err, len);

		if (ret != -ENOENT)
			return ret;
	}
	if (!strcmp(name, "shmem_enabled")) {
		for (i = 0; i < 6; i++) {
			if (!strcmp(value, shmem_huge_names[i].name)) {
				/* as the kernel: force only while inherit is PMD-sized alone */
				if (shmem_huge_names[i].value == -2 &&
				    fl__thp.shmem_orders_inherit != 1ul << PMD_ORDER) {
					snprintf(err, len,
						 "transparent_hugepage/shmem_enabled: force needs "
						 "hugepages-2048kB/shmem_enabled inherit and no "
						 "other "
						 "size inherit");
					return -EINVAL;
				}
				fl__thp.shmem_huge = shmem_huge_names[i].value;
				return 0;
			}
		}
		snprintf(err, len,
			 "transparent_hugepage/shmem_enabled: '%s' is not one of always, "
			 "within_size, advise, never, deny, force",
			 value);
		return -EINVAL;
	}
	if (slash && !strcmp(slash, "/shmem_enabled")) {
		int order = size_dir_order_from(name, (size_t)(slash - name), 1);

		if (order < 0) {
			snprintf(err, len,
				 "transparent_hugepage/%s: no such size; shmem sizes are "
				 "hugepages-8kB .. hugepages-2048kB",
				 name);
			return -ENOENT;
		}
		if (set_shmem_order_policy(order, value)) {
			snprintf(err, len,
				 "transparent_hugepage/%s: '%s' is not one of always, inherit, "
				 "within_size, advise, never",
				 name, value);
			return -EINVAL;
		}
		return 0;
	}
	if (slash && !strcmp(slash, "/enabled")) {
		int order = size_dir_order(name, (size_t)(slash - name));

		if (order < 0) {
			snprintf(err, len,
				 "transparent_hugepage/%s: no such size; anon sizes are "
				 "hugepages-16kB .. hugepages-2048kB",
				 name);
			return -ENOENT;
		}
		if (set_order_policy(order, value)) {
			snprintf(err, len,
				 "transparent_hugepage/%s: '%s' is not one of always, inherit, "
				 "madvise, never",
				 name, value);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(err, len, "transparent_hugepage/%s: no such knob", name);
	return -ENOENT;
}

static const char *order_policy(int order)
{
	unsigned long bit = 1ul << order;

	if (fl__thp.orders_always & bit)
		return "always";
	if (fl__thp.orders_inherit & bit)
		return "inherit";
	if (fl__thp.orders_madvise & bit)
		return "madvise";
	return "never";
}

/**
 * fl__thp_knob_get() - read a knob's value (the selected word only).
 * Return: 0 or -ENOENT.
 */
int fl__thp_knob_get(const char *name, char *buf, size_t len)
{
	static const char *const d[] = { "always", "defer", "defer+madvise", "madvise", "never" };
	const char *slash = strchr(name, '/');

	if (!strcmp(name, "enabled"))
		snprintf(buf, len, "%s", thp_enabled_names[fl__thp.enabled]);
	else if (!strcmp(name, "defrag"))
		snprintf(buf, len, "%s", d[fl__thp.defrag]);
	else if (!strcmp(name, "use_zero_page"))
		snprintf(buf, len, "%d", fl__thp.use_zero_page);
	else if (!strcmp(name, "shrink_underused"))
		snprintf(buf, len, "%d", fl__thp.shrink_underused);
	else if (!strncmp(name, "khugepaged/", 11) && !fl__khugepaged_knob_get(name + 11, buf, len))
		;
	else if (!strcmp(name, "shmem_enabled")) {
		int i;

		for (i = 0; i < 6; i++)
			if (shmem_huge_names[i].value == fl__thp.shmem_huge)
				snprintf(buf, len, "%s", shmem_huge_names[i].name);
	} else if (slash && !strcmp(slash, "/shmem_enabled") &&
		   size_dir_order_from(name, (size_t)(slash - name), 1) >= 0)
		snprintf(buf, len, "%s",
			 shmem_order_policy(size_dir_order_from(name, (size_t)(slash - name), 1)));
	else if (slash && !strcmp(slash, "/enabled") &&
		 size_dir_order(name, (size_t)(slash - name)) >= 0)
		snprintf(buf, len, "%s",
			 order_policy(size_dir_order(name, (size_t)(slash - name))));
	else
		return -ENOENT;
	return 0;
}

/*
 * vma_thp_gfp_mask() - how hard a THP or mTHP fault may try for its
 * folio, by transparent_hugepage/defrag: never reclaim (never), wake
 * kswapd (defer), reclaim directly in a madvised VMA (madvise), or both;
 * "always" reclaims directly everywhere, once outside madvised VMAs.
 */
gfp_t vma_thp_gfp_mask(struct vm_area_struct *vma)
{
	bool madvised = vma && (vma->vm_flags & VM_HUGEPAGE);

	switch (READ_ONCE(fl__thp.defrag)) {
	case THP_DEFRAG_ALWAYS:
		return GFP_TRANSHUGE | (madvised ? 0 : __GFP_NORETRY);
	case THP_DEFRAG_DEFER:
		return GFP_TRANSHUGE_LIGHT | __GFP_KSWAPD_RECLAIM;
	case THP_DEFRAG_DEFER_MADVISE:
		return GFP_TRANSHUGE_LIGHT |
		       (madvised ? __GFP_DIRECT_RECLAIM : __GFP_KSWAPD_RECLAIM);
	case THP_DEFRAG_MADVISE:
		return GFP_TRANSHUGE_LIGHT | (madvised ? __GFP_DIRECT_RECLAIM : 0);
	default:
		return GFP_TRANSHUGE_LIGHT;
	}
}

/**
 * thp_vma_allowable_orders() - the @orders a fault in @vma may use, given
 * the top-level and per-size knobs and the VMA's MADV_(NO)HUGEPAGE state.
 */
unsigned long thp_vma_allowable_orders(struct vm_area_struct *vma, unsigned long vm_flags,
				       unsigned long orders)
{
	unsigned long mask = READ_ONCE(fl__thp.orders_always);
	int enabled = READ_ONCE(fl__thp.enabled);

	(void)vma;
	if (vm_flags & VM_NOHUGEPAGE)
		return 0;
	if (vm_flags & VM_HUGEPAGE)
		mask |= READ_ONCE(fl__thp.orders_madvise);
	if (enabled == THP_ALWAYS || ((vm_flags & VM_HUGEPAGE) && enabled != THP_NEVER))
		mask |= READ_ONCE(fl__thp.orders_inherit);
	return orders & mask & THP_ORDERS_ALL_ANON;
}

/*
 * The naturally aligned 2^@order block around @addr lies inside @vma, and,
 * in a file mapping, maps a naturally aligned block of the file.
 */
bool thp_vma_suitable_order(struct vm_area_struct *vma, unsigned long addr, int order)
{
	unsigned long size = PAGE_SIZE << order;
	unsigned long haddr = ALIGN_DOWN(addr, size);

	if (!vma_is_anonymous(vma) &&
	    ((vma->vm_start >> PAGE_SHIFT) - vma->vm_pgoff) & ((1ul << order) - 1))
		return false;
	return haddr >= vma->vm_start && haddr + size <= vma->vm_end;
}

/* ---- the huge zero folio ---- */

unsigned long huge_zero_pfn = ~0ul;
static struct folio *huge_zero_folio;
static int huge_zero_refcount; /* atomic: mms using it, + 1 for the shrinker */
bool fl__huge_zero_at_start;

/* A reference on the huge zero folio, allocated on first use. */
static bool get_huge_zero_folio(void)
{
	struct folio *zero, *none = NULL;
	int c;

retry:
	/* atomic_inc_not_zero() */
	c = fl_atomic_load(&huge_zero_refcount, __ATOMIC_ACQUIRE);
	while (c)
		if (fl_atomic_cmpxchg(&huge_zero_refcount, &c, c + 1, false, __ATOMIC_ACQUIRE,
				      __ATOMIC_ACQUIRE))
			return true;
	/* the kernel's is not movable (no __GFP_MOVABLE: the model has no migratetypes) */
	zero = folio_alloc((GFP_TRANSHUGE | __GFP_ZERO) & ~__GFP_MOVABLE, PMD_ORDER);
	if (!zero) {
		count_vm_event(THP_ZERO_PAGE_ALLOC_FAILED);
		return false;
	}
	if (!fl_atomic_cmpxchg(&huge_zero_folio, &none, zero, false, __ATOMIC_ACQ_REL,
			       __ATOMIC_ACQUIRE)) {
		/* another CPU's won: use that one */
		folio_put(zero);
		goto retry;
	}
	WRITE_ONCE(huge_zero_pfn, folio_pfn(zero));
	/* release: a taker of a reference sees the pfn; the second is the shrinker's */
	fl_atomic_store(&huge_zero_refcount, 2, __ATOMIC_RELEASE);
	count_vm_event(THP_ZERO_PAGE_ALLOC);
	return true;
}

static void put_huge_zero_folio(void)
{
	/* the shrinker's reference stays: nobody drops the last but the shrinker */
	BUG_ON(fl_atomic_sub_fetch(&huge_zero_refcount, 1, __ATOMIC_RELEASE) == 0);
}

/**
 * mm_get_huge_zero_folio() - the huge zero folio for @mm, taking one
 * reference per mm the first time (MMF_HUGE_ZERO_FOLIO).
 * Return: the folio, or NULL if it could not be allocated.
 */
struct folio *mm_get_huge_zero_folio(struct mm_struct *mm)
{
	if (fl_test_bit(MMF_HUGE_ZERO_FOLIO, &mm->flags))
		return READ_ONCE(huge_zero_folio);
	if (!get_huge_zero_folio())
		return NULL;
	if (fl_test_and_set_bit(MMF_HUGE_ZERO_FOLIO, &mm->flags))
		put_huge_zero_folio();
	return READ_ONCE(huge_zero_folio);
}

/* The mm is gone (__mmput()): its reference goes. */
void mm_put_huge_zero_folio(struct mm_struct *mm)
{
	if (fl_test_bit(MMF_HUGE_ZERO_FOLIO, &mm->flags))
		put_huge_zero_folio();
}

/*
 * foliolab/huge_zero_folio=present: a process that read-faulted a THP
 * range and lives through the run, as the host target's own does before
 * its counters start (its mm's reference: the shrinker cannot free the
 * folio while the run goes on). The reference goes with the run
 * (fl__huge_zero_folio_unprime()).
 */
static bool huge_zero_primed;

int fl__huge_zero_folio_prime(void)
{
	if (!get_huge_zero_folio())
		return -ENOMEM;
	huge_zero_primed = true;
	return 0;
}

void fl__huge_zero_folio_unprime(void)
{
	if (huge_zero_primed)
		put_huge_zero_folio();
	huge_zero_primed = false;
}

unsigned long huge_zero_folio_shrink_count(void)
{
	/* only the shrinker's own reference left: nobody maps it */
	return fl_atomic_load(&huge_zero_refcount, __ATOMIC_ACQUIRE) == 1 ? HPAGE_PMD_NR : 0;
}

unsigned long huge_zero_folio_shrink_scan(void)
{
	int one = 1;
	struct folio *zero;

	if (!fl_atomic_cmpxchg(&huge_zero_refcount, &one, 0, false, __ATOMIC_ACQ_REL,
			       __ATOMIC_ACQUIRE))
		return 0;
	zero = fl_atomic_xchg(&huge_zero_folio, NULL, __ATOMIC_ACQ_REL);
	WRITE_ONCE(huge_zero_pfn, ~0ul);
	folio_put(zero);
	return HPAGE_PMD_NR;
}

void fl__huge_zero_folio_exit(void)
{
	fl__huge_zero_folio_unprime();
	if (!huge_zero_folio_shrink_scan()) {
		/* still referenced (a failed run): the memory map goes anyway */
		huge_zero_folio = NULL;
		huge_zero_pfn = ~0ul;
	}
	huge_zero_refcount = 0;
}

int fl__huge_zero_folio_left(char *msg, size_t len)
{
	int refs = fl_atomic_load(&huge_zero_refcount, __ATOMIC_ACQUIRE);

	if (!READ_ONCE(huge_zero_folio))
		return 0;
	if (refs != 1) {
		snprintf(msg, len, "the huge zero folio still has %d references after teardown",
			 refs - 1);
		return -1;
	}
	return 1;
}

/* vma_alloc_anon_folio_pmd(): a zeroed PMD-sized folio, or NULL (counted as a fallback) */
static struct folio *vma_alloc_anon_folio_pmd(struct vm_area_struct *vma)
{
	gfp_t gfp = vma_thp_gfp_mask(vma);
	struct folio *folio = folio_alloc(gfp | __GFP_ZERO, PMD_ORDER);

	if (!folio) {
		count_vm_event(THP_FAULT_FALLBACK);
		count_mthp_stat(PMD_ORDER, MTHP_STAT_ANON_FAULT_FALLBACK);
		return NULL;
	}
	if (unlikely(mem_cgroup_charge(folio, vma->vm_mm, gfp))) {
		folio_put(folio);
		count_vm_event(THP_FAULT_FALLBACK);
		count_vm_event(THP_FAULT_FALLBACK_CHARGE);
		count_mthp_stat(PMD_ORDER, MTHP_STAT_ANON_FAULT_FALLBACK);
		count_mthp_stat(PMD_ORDER, MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE);
		return NULL;
	}
	return folio;
}

/*
 * map_anon_folio_pmd(): map the new THP @folio at the PMD of @vmf, counted
 * as a fault allocation. Context: the PMD table's lock is held; the
 * entry's PTE table is deposited.
 */
static void map_anon_folio_pmd(struct vm_fault *vmf, struct folio *folio, unsigned long haddr)
{
	struct vm_area_struct *vma = vmf->vma;
	pteval_t v;

	folio_add_new_anon_rmap(folio, vma, haddr, RMAP_EXCLUSIVE, true);
	folio_add_lru_vma(folio, vma);
	v = pfn_pte(folio_pfn(folio), _PAGE_PRESENT | _PAGE_PSE | _PAGE_ACCESSED);
	if (vma->vm_flags & VM_WRITE)
		v |= _PAGE_RW | _PAGE_DIRTY;
	fl_cost(FL_COST_SET_PTE);
	entry_store(&vmf->pmdt->e[vmf->pmd_idx], v);
	add_mm_counter(vma->vm_mm, MM_ANONPAGES, HPAGE_PMD_NR);
	deferred_split_folio(folio, false);
	vmf_access(vmf, folio_pfn(folio) + (unsigned long)pte_index(vmf->address));
	count_vm_event(THP_FAULT_ALLOC);
	count_mthp_stat(PMD_ORDER, MTHP_STAT_ANON_FAULT_ALLOC);
	count_memcg_event_mm(vma->vm_mm, THP_FAULT_ALLOC);
}

/*
 * A read fault maps the huge zero folio read-only (set_huge_zero_folio()):
 * a special entry, no rmap, no rss, the PTE table deposited as for a THP.
 * Return: 0, VM_FAULT_OOM, or VM_FAULT_FALLBACK without a folio.
 */
static int do_huge_zero_pmd(struct vm_fault *vmf)
{
	/* the kernel does this inside do_huge_pmd_anonymous_page() */
	FL_LOCK_SITE_NAMED(site, "do_huge_pmd_anonymous_page");
	struct vm_area_struct *vma = vmf->vma;
	struct pgtable *pmdt = vmf->pmdt, *pgtable;
	struct folio *zero;

	pgtable = fl__pgtable_alloc(vma->vm_mm, 0);
	if (!pgtable)
		return VM_FAULT_OOM;
	zero = mm_get_huge_zero_folio(vma->vm_mm);
	if (!zero) {
		fl__pgtable_free(vma->vm_mm, pgtable);
		count_vm_event(THP_FAULT_FALLBACK);
		return VM_FAULT_FALLBACK;
	}
	fl_spin_lock_at(&pmdt->ptl, &site);
	if (entry_load(&pmdt->e[vmf->pmd_idx])) {
		spin_unlock(&pmdt->ptl);
		fl__pgtable_free(vma->vm_mm, pgtable);
		return 0;
	}
	pmdt->deposit[vmf->pmd_idx] = pgtable;
	fl_cost(FL_COST_SET_PTE);
	entry_store(&pmdt->e[vmf->pmd_idx],
		    pfn_pte(folio_pfn(zero),
			    _PAGE_PRESENT | _PAGE_PSE | _PAGE_SPECIAL | _PAGE_ACCESSED));
	vmf_access(vmf, folio_pfn(zero) + (unsigned long)pte_index(vmf->address));
	spin_unlock(&pmdt->ptl);
	return 0;
}

/**
 * do_huge_pmd_anonymous_page() - map a fresh PMD-sized folio, or the huge
 * zero folio for a read.
 * Return: 0, VM_FAULT_FALLBACK (use PTEs), or VM_FAULT_OOM.
 */
int do_huge_pmd_anonymous_page(struct vm_fault *vmf)
{
	FL_LOCK_SITE(site);
	struct vm_area_struct *vma = vmf->vma;
	unsigned long haddr = vmf->address & PMD_MASK;
	struct pgtable *pmdt = vmf->pmdt, *pgtable;
	struct folio *folio;
	int ret;

	if (!thp_vma_suitable_order(vma, haddr, PMD_ORDER))
		return VM_FAULT_FALLBACK;
	ret = vmf_anon_prepare(vmf);
	if (!ret)
		khugepaged_enter_vma(vma, vma->vm_flags);
	if (ret)
		return ret;
	if (!(vmf->flags & FAULT_FLAG_WRITE) && !mm_forbids_zeropage(vma->vm_mm) &&
	    READ_ONCE(fl__thp.use_zero_page))
		return do_huge_zero_pmd(vmf);
	folio = vma_alloc_anon_folio_pmd(vma);
	if (!folio)
		return VM_FAULT_FALLBACK;
	pgtable = fl__pgtable_alloc(vma->vm_mm, 0);
	if (!pgtable) {
		folio_put(folio);
		return VM_FAULT_OOM;
	}
	fl_spin_lock_at(&pmdt->ptl, &site);
	if (entry_load(&pmdt->e[vmf->pmd_idx])) {
		spin_unlock(&pmdt->ptl);
		fl__pgtable_free(vma->vm_mm, pgtable);
		folio_put(folio);
		return 0;
	}
	pmdt->deposit[vmf->pmd_idx] = pgtable;
	map_anon_folio_pmd(vmf, folio, haddr);
	spin_unlock(&pmdt->ptl);
	return 0;
}

/*
 * do_huge_zero_wp_pmd() - a write to the huge zero folio's PMD: a THP of
 * its own in its place, or VM_FAULT_FALLBACK when none can be had (the
 * caller then splits the PMD into zero-page PTEs).
 */
static int do_huge_zero_wp_pmd(struct vm_fault *vmf, pteval_t orig)
{
	FL_LOCK_SITE(site);
	unsigned long haddr = vmf->address & PMD_MASK;
	struct pgtable *pmdt = vmf->pmdt;
	struct folio *folio = vma_alloc_anon_folio_pmd(vmf->vma);

	if (!folio)
		return VM_FAULT_FALLBACK;
	fl_spin_lock_at(&pmdt->ptl, &site);
	if (entry_load(&pmdt->e[vmf->pmd_idx]) != orig) {
		spin_unlock(&pmdt->ptl);
		folio_put(folio);
		return 0;
	}
	/* pmdp_huge_clear_flush(); the deposited table stays for the THP */
	ptep_get_and_clear(&pmdt->e[vmf->pmd_idx]);
	flush_pmd_tlb_range(vmf->vma->vm_mm, haddr);
	map_anon_folio_pmd(vmf, folio, haddr);
	spin_unlock(&pmdt->ptl);
	return 0;
}

/**
 * do_huge_pmd_wp_page() - a write fault on a present read-only huge PMD:
 * the huge zero folio's gets a THP of its own; an anon THP exclusive to
 * this mapping, or whose only reference is this PMD's (the other process
 * let go of it), is reused whole (no pgreuse: 6.18 counts PTE reuse
 * only). Otherwise the PMD mapping is split and the PTE fault copies the
 * one page written (6.18).
 * Return: 0, or VM_FAULT_FALLBACK after the split.
 */
int do_huge_pmd_wp_page(struct vm_fault *vmf)
{
	FL_LOCK_SITE(site);
	struct pgtable *pmdt = vmf->pmdt;
	pteval_t *slot = &pmdt->e[vmf->pmd_idx];
	pteval_t orig = entry_load(slot);
	struct folio *folio;
	struct page *head;
	bool reuse;

	if (is_huge_zero_pmd(orig)) {
		int ret = do_huge_zero_wp_pmd(vmf, orig);

		if (!(ret & VM_FAULT_FALLBACK))
			return ret;
		goto split;
	}
	fl_spin_lock_at(&pmdt->ptl, &site);
	if (entry_load(slot) != orig) {
		spin_unlock(&pmdt->ptl);
		return 0;
	}
	folio = pfn_folio(pte_pfn(orig));
	head = (struct page *)folio;
	if (!folio_test_anon(folio))
		goto unlock_split;
	if (PageAnonExclusive(head))
		goto reuse;
	if (!folio_trylock(folio)) {
		folio_get(folio);
		spin_unlock(&pmdt->ptl);
		folio_lock(folio);
		fl_spin_lock_at(&pmdt->ptl, &site);
		if (entry_load(slot) != orig) {
			spin_unlock(&pmdt->ptl);
			folio_unlock(folio);
			folio_put(folio);
			return 0;
		}
		folio_put(folio);
	}
	if (folio_ref_count(folio) > 1 + (folio_test_swapcache(folio) ? HPAGE_PMD_NR : 0)) {
		folio_unlock(folio);
		goto unlock_split;
	}
	if (folio_test_swapcache(folio))
		folio_free_swap(folio);
	reuse = folio_ref_count(folio) == 1;
	if (reuse) {
		folio_move_anon_rmap(folio, vmf->vma);
		fl_set_bit(PG_anon_exclusive, &head->flags);
	}
	folio_unlock(folio);
	if (!reuse)
		goto unlock_split;
reuse:
	fl_cost(FL_COST_SET_PTE);
	fl_atomic_fetch_or(slot, _PAGE_RW | _PAGE_DIRTY | _PAGE_ACCESSED, __ATOMIC_ACQ_REL);
	vmf_access(vmf, pte_pfn(orig) + (unsigned long)pte_index(vmf->address));
	spin_unlock(&pmdt->ptl);
	return 0;
unlock_split:
	spin_unlock(&pmdt->ptl);
split:
	__split_huge_pmd(vmf->vma, vmf->pmdt, vmf->pmd_idx, vmf->address & PMD_MASK, false, NULL);
	return VM_FAULT_FALLBACK;
}

/**
 * copy_huge_pmd() - fork: the child's PMD at @addr maps what the parent's
 * huge PMD maps, the huge zero folio or an anon THP, with a PTE table
 * deposited for a later split. A THP's PMDs become read-only in both, the
 * child's old; the child's rss grows by HPAGE_PMD_NR. A file THP's PMD is
 * not copied: the child faults it in.
 * Context: the parent's mmap_lock held for writing; the child's PMD entry
 * is none and reached by nobody but rmap walkers, which find it only
 * once it is set.
 * Return: 0, -ENOMEM, or -EAGAIN when the PMD is no huge one any more.
 */
int copy_huge_pmd(struct vm_area_struct *dst_vma, struct pgtable *dst_pmdt,
		  struct pgtable *src_pmdt, int idx)
{
	FL_LOCK_SITE(site);
	struct mm_struct *dst_mm = dst_vma->vm_mm;
	struct pgtable *deposit;
	struct folio *folio;
	pteval_t v;

	if (!vma_is_anonymous(dst_vma))
		return 0;
	deposit = fl__pgtable_alloc(dst_mm, 0);
	if (!deposit)
		return -ENOMEM;
	fl_spin_lock_at(&src_pmdt->ptl, &site);
	v = entry_load(&src_pmdt->e[idx]);
	if (!pmd_trans_huge(v)) {
		spin_unlock(&src_pmdt->ptl);
		fl__pgtable_free(dst_mm, deposit);
		return -EAGAIN;
	}
	fl_cost(FL_COST_SET_PTE);
	if (is_huge_zero_pmd(v)) {
		/* the parent's mm holds a reference, so this one takes no allocation */
		mm_get_huge_zero_folio(dst_mm);
	} else {
		folio = pfn_folio(pte_pfn(v));
		folio_get(folio);
		folio_try_dup_anon_rmap_pmd(folio, dst_vma);
		add_mm_counter(dst_mm, MM_ANONPAGES, HPAGE_PMD_NR);
		if (v & _PAGE_RW)
			v = fl_atomic_fetch_and(&src_pmdt->e[idx], ~_PAGE_RW, __ATOMIC_ACQ_REL);
		v &= ~(_PAGE_RW | _PAGE_ACCESSED);
	}
	dst_pmdt->deposit[idx] = deposit;
	entry_store(&dst_pmdt->e[idx], v);
	spin_unlock(&src_pmdt->ptl);
	return 0;
}

/**
 * zap_huge_pmd() - unmap a whole PMD-mapped THP.
 * Return: 1 if a huge PMD was zapped, 0 if none was there.
 */
int zap_huge_pmd(struct mmu_gather *tlb, struct vm_area_struct *vma, struct pgtable *pmdt, int idx,
		 unsigned long addr)
{
	FL_LOCK_SITE(site);
	struct pgtable *pgtable;
	struct folio *folio;
	pteval_t v;

	fl_spin_lock_at(&pmdt->ptl, &site);
	if (!pmd_trans_huge(entry_load(&pmdt->e[idx]))) {
		spin_unlock(&pmdt->ptl);
		return 0;
	}
	fl_cost(FL_COST_ZAP_PTE);
	v = ptep_get_and_clear(&pmdt->e[idx]);
	tlb_remove_pmd_tlb_entry(tlb, addr);
	pgtable = pmdt->deposit[idx];
	pmdt->deposit[idx] = NULL;
	folio = is_huge_zero_pmd(v) ? NULL : pfn_folio(pte_pfn(v));
	if (folio) {
		folio_remove_rmap_pmd(folio, (struct page *)folio, vma);
		add_mm_counter(vma->vm_mm, mm_counter(folio), -HPAGE_PMD_NR);
	}
	spin_unlock(&pmdt->ptl);
	/* zap_deposited_table(): the kernel frees it under the PMD lock */
	if (pgtable) {
		fl__pgtable_free(vma->vm_mm, pgtable);
		count_fl_stat(FL_PGFREE_ATOMIC, 1);
	}
	if (!folio)
		return 1; /* the huge zero folio: no reference, no rmap */
	/* a PMD mapping holds one reference: one entry, count 1 */
	if (__tlb_remove_folio_pages(tlb, (struct page *)folio, 1, false))
		tlb_flush_mmu(tlb);
	return 1;
}

/*
 * The huge zero folio's PMD becomes 512 read-only PTEs of the shared zero
 * page in the deposited table (pmdp_huge_clear_flush() first).
 * Context: the PMD table's lock is held.
 */
static void __split_huge_zero_page_pmd(struct vm_area_struct *vma, struct pgtable *pmdt, int idx,
				       unsigned long haddr)
{
	struct pgtable *pgtable = pmdt->deposit[idx];
	int i;

	ptep_get_and_clear(&pmdt->e[idx]);
	flush_pmd_tlb_range(vma->vm_mm, haddr);
	pmdt->deposit[idx] = NULL;
	fl_cost_n(FL_COST_SET_PTE, PTRS_PER_TABLE);
	for (i = 0; i < PTRS_PER_TABLE; i++)
		fl_atomic_store(&pgtable->e[i],
				pfn_pte(fl__zero_pfn,
					_PAGE_PRESENT | _PAGE_SPECIAL | _PAGE_ACCESSED),
				__ATOMIC_RELAXED);
	/* release: the walker that sees the table sees its entries */
	entry_store(&pmdt->e[idx], table_entry(pgtable));
}

/*
 * __split_huge_pmd_locked() - end the PMD mapping at @pmdt[@idx]. A file
 * mapping just goes (its pages fault back in as PTEs). An anon mapping
 * becomes 512 PTEs in the deposited table, each with a reference; with
 * @freeze (a split unmapping the folio) they are migration entries
 * instead, and the mapping's reference goes.
 * Context: the PMD table's lock is held and the entry is a huge PMD.
 */
static void __split_huge_pmd_locked(struct vm_area_struct *vma, struct pgtable *pmdt, int idx,
				    unsigned long haddr, bool freeze)
{
	struct mm_struct *mm = vma->vm_mm;
	struct pgtable *pgtable;
	bool anon_exclusive, write, young, dirty;
	struct folio *folio;
	unsigned long pfn;
	pteval_t v, prot;
	int i;

	count_vm_event(THP_SPLIT_PMD);
	if (is_huge_zero_pmd(entry_load(&pmdt->e[idx]))) {
		__split_huge_zero_page_pmd(vma, pmdt, idx, haddr);
		return;
	}
	if (!vma_is_anonymous(vma)) {
		v = ptep_get_and_clear(&pmdt->e[idx]);
		flush_pmd_tlb_range(mm, haddr); /* pmdp_huge_clear_flush() */
		folio = pfn_folio(pte_pfn(v));
		if ((v & _PAGE_ACCESSED) && !folio_test_referenced(folio))
			folio_set_referenced(folio);
		if ((v & _PAGE_DIRTY) && !folio_test_dirty(folio))
			folio_set_dirty(folio);
		folio_remove_rmap_pmd(folio, (struct page *)folio, vma);
		folio_put(folio);
		add_mm_counter(mm, mm_counter_file(folio), -HPAGE_PMD_NR);
		return;
	}
	/* not present to hardware while the PTEs are built from it */
	v = pmdp_invalidate(&pmdt->e[idx]);
	pgtable = pmdt->deposit[idx];
	pmdt->deposit[idx] = NULL;
	pfn = pte_pfn(v);
	folio = pfn_folio(pfn);
	write = v & _PAGE_RW;
	young = v & _PAGE_ACCESSED;
	dirty = v & _PAGE_DIRTY;
	if (dirty && !folio_test_dirty(folio))
		folio_set_dirty(folio);
	anon_exclusive = PageAnonExclusive((struct page *)folio);
	if (freeze) {
		/*
		 * folio_try_share_anon_rmap_pmd(): no GUP pins, so it succeeds;
		 * the PMD-level flag is the head page's (the entries below keep
		 * the exclusivity for the remap)
		 */
		if (anon_exclusive)
			fl_clear_bit(PG_anon_exclusive, &folio->flags);
		for (i = 0; i < PTRS_PER_TABLE; i++) {
			swp_entry_t e;

			if (write)
				e = make_writable_migration_entry(pfn + (unsigned long)i);
			else if (anon_exclusive)
				e = make_readable_exclusive_migration_entry(pfn + (unsigned long)i);
			else
				e = make_readable_migration_entry(pfn + (unsigned long)i);
			if (young)
				e = make_migration_entry_young(e);
			if (dirty)
				e = make_migration_entry_dirty(e);
			fl_atomic_store(&pgtable->e[i], swp_entry_to_pte(e), __ATOMIC_RELAXED);
		}
	} else {
		prot = v & (_PAGE_PRESENT | _PAGE_RW | _PAGE_ACCESSED | _PAGE_DIRTY);
		for (i = 0; i < PTRS_PER_TABLE; i++)
			fl_atomic_store(&pgtable->e[i], pfn_pte(pfn + (unsigned long)i, prot),
					__ATOMIC_RELAXED);
		folio_ref_add(folio, HPAGE_PMD_NR - 1);
		folio_add_anon_rmap_ptes(folio, (struct page *)folio, HPAGE_PMD_NR, vma,
					 anon_exclusive ? RMAP_EXCLUSIVE : 0);
	}
	folio_remove_rmap_pmd(folio, (struct page *)folio, vma);
	if (freeze)
		folio_put(folio); /* the caller holds a reference: never the last */
	/* release: the walker that sees the table sees its entries */
	entry_store(&pmdt->e[idx], table_entry(pgtable));
	(void)haddr;
}

/**
 * __split_huge_pmd() - end the huge PMD mapping at @pmdt[@idx] (see
 * __split_huge_pmd_locked()). With @folio, only if that PMD maps it.
 * Return: true if a PMD mapping was split.
 */
bool __split_huge_pmd(struct vm_area_struct *vma, struct pgtable *pmdt, int idx,
		      unsigned long haddr, bool freeze, struct folio *folio)
{
	FL_LOCK_SITE(site);
	bool split = false;
	pteval_t v;

	fl_spin_lock_at(&pmdt->ptl, &site);
	v = entry_load(&pmdt->e[idx]);
	if (pmd_trans_huge(v) && (!folio || pfn_folio(pte_pfn(v)) == folio)) {
		__split_huge_pmd_locked(vma, pmdt, idx, haddr, freeze);
		split = true;
	}
	spin_unlock(&pmdt->ptl);
	return split;
}

/** split_huge_pmd_address() - split the PMD mapping of @folio at @address in @vma, if any. */
bool split_huge_pmd_address(struct vm_area_struct *vma, unsigned long address, bool freeze,
			    struct folio *folio)
{
	unsigned long haddr = address & PMD_MASK;
	struct pgtable *pmdt;

	if (haddr < vma->vm_start || haddr + PMD_SIZE > vma->vm_end)
		return false;
	pmdt = walk_pmd_table(vma->vm_mm, haddr);
	if (!pmdt || !pmd_trans_huge(entry_load(&pmdt->e[pmd_index(haddr)])))
		return false;
	return __split_huge_pmd(vma, pmdt, pmd_index(haddr), haddr, freeze, folio);
}

/* ---- the deferred split queue and its shrinker ---- */

static const struct fl_lock_class split_queue_class = { .name = "ds_queue->split_queue_lock",
							.rank = FL_RANK_SPLIT_QUEUE,
							.kind = FL_LOCK_SPIN };

void fl__deferred_split_init(struct deferred_split *ds_queue)
{
	fl_spin_lock_init(&ds_queue->split_queue_lock, &split_queue_class);
	INIT_LIST_HEAD(&ds_queue->split_queue);
	ds_queue->split_queue_len = 0;
}

/* a memcg's queue (one per memcg, as 6.18's), or the node's for the root */
static struct deferred_split *split_queue_of(int nid, struct mem_cgroup *memcg)
{
	return memcg ? &memcg->deferred_split_queue : &NODE_DATA(nid)->deferred_split_queue;
}

static struct deferred_split *folio_split_queue(const struct folio *folio)
{
	return split_queue_of(folio_nid(folio), folio_memcg(folio));
}

/**
 * deferred_split_folio() - queue @folio to be split later: because it
 * became partially mapped (@partially_mapped: marked, counted in
 * thp_deferred_split_page and split_deferred, and in the
 * nr_anon_partially_mapped gauge), or right after a PMD fault as an
 * underused-THP candidate (only with shrink_underused).
 */
void deferred_split_folio(struct folio *folio, bool partially_mapped)
{
	FL_LOCK_SITE(site);
	struct deferred_split *ds_queue;
	int order = (int)folio_order(folio);

	if (order <= 1)
		return;
	if (!partially_mapped && !READ_ONCE(fl__thp.shrink_underused))
		return;
	if (folio_test_swapcache(folio))
		return;
	ds_queue = folio_split_queue(folio);
	fl_spin_lock_at(&ds_queue->split_queue_lock, &site);
	if (partially_mapped && !folio_test_partially_mapped(folio)) {
		fl_set_bit(PG_partially_mapped, &folio->_flags_1);
		if (order >= HPAGE_PMD_ORDER)
			count_vm_event(THP_DEFERRED_SPLIT_PAGE);
		count_mthp_stat(order, MTHP_STAT_SPLIT_DEFERRED);
		mod_mthp_stat(order, MTHP_STAT_NR_ANON_PARTIALLY_MAPPED, 1);
	}
	if (list_empty(&folio->_deferred_list)) {
		list_add_tail(&folio->_deferred_list, &ds_queue->split_queue);
		WRITE_ONCE(ds_queue->split_queue_len, ds_queue->split_queue_len + 1);
	}
	spin_unlock(&ds_queue->split_queue_lock);
}

/*
 * Take @folio off its queue, if it is on one (its list head may then be
 * a scan's private list): the queue length drops, the partially mapped
 * mark goes. Return: whether it was queued.
 * Context: the queue's lock is held.
 */
static bool __folio_unqueue_deferred_split_locked(struct folio *folio,
						  struct deferred_split *ds_queue)
{
	if (list_empty(&folio->_deferred_list))
		return false;
	WRITE_ONCE(ds_queue->split_queue_len, ds_queue->split_queue_len - 1);
	if (folio_test_partially_mapped(folio)) {
		fl_clear_bit(PG_partially_mapped, &folio->_flags_1);
		mod_mthp_stat((int)folio_order(folio), MTHP_STAT_NR_ANON_PARTIALLY_MAPPED, -1);
	}
	/*
	 * list_del_init(), the empty list published last with release: a
	 * freeing CPU that sees it in folio_unqueue_deferred_split() without
	 * the lock may then reuse the descriptor's words
	 */
	list_del(&folio->_deferred_list);
	folio->_deferred_list.prev = &folio->_deferred_list;
	smp_store_release(&folio->_deferred_list.next, &folio->_deferred_list);
	return true;
}

/* folio_unqueue_deferred_split() - a folio on its way to be freed leaves the queue. */
void folio_unqueue_deferred_split(struct folio *folio)
{
	FL_LOCK_SITE(site);
	struct deferred_split *ds_queue;

	if (folio_order(folio) <= 1)
		return;
	/*
	 * racy: nobody else can queue a folio whose last reference went; a
	 * scanner that took it off saw it dead and is done with it (acquire)
	 */
	if (smp_load_acquire(&folio->_deferred_list.next) == &folio->_deferred_list)
		return;
	ds_queue = folio_split_queue(folio);
	fl_spin_lock_at(&ds_queue->split_queue_lock, &site);
	__folio_unqueue_deferred_split_locked(folio, ds_queue);
	spin_unlock(&ds_queue->split_queue_lock);
}

/**
 * deferred_split_count() - the shrinker's count: folios queued on node
 * @nid for the root, or in @memcg's queue (which 6.18 counts for every node)
 */
unsigned long deferred_split_count(int nid, struct mem_cgroup *memcg)
{
	return READ_ONCE(split_queue_of(nid, memcg)->split_queue_len);
}

/*
 * thp_underused() - a fully mapped THP is worth splitting when more than
 * khugepaged/max_ptes_none of its pages are zero-filled (tag 0 in the
 * model); never while max_ptes_none is 511, the default.
 */
static bool thp_underused(struct folio *folio)
{
	int max_ptes_none = (int)READ_ONCE(fl__khugepaged[KH_MAX_PTES_NONE]), zero = 0, filled = 0;
	unsigned long i, pfn = folio_pfn(folio);

	if (max_ptes_none == HPAGE_PMD_NR - 1)
		return false;
	for (i = 0; i < folio_nr_pages(folio); i++) {
		if (page_tag(pfn + i) == 0) {
			if (++zero > max_ptes_none)
				return true;
		} else if (++filled >= HPAGE_PMD_NR - max_ptes_none) {
			return false;
		}
	}
	return false;
}

static int __folio_split(struct folio *folio, unsigned int new_order, struct page *split_at,
			 struct page *lock_at, struct list_head *list, bool uniform,
			 enum lru_cache_drained *drained);

/**
 * deferred_split_scan() - the shrinker's scan of node @nid: take up to
 * @nr_to_scan queued folios off the queue (a reference each; one already
 * on its way to be freed is just dropped), split the partially mapped
 * ones and the underused ones, and put the partially mapped that did not
 * split back at the tail. 6.18 moves them all to a private list; the
 * model takes them FOLIO_BATCH_SIZE at a time into a folio_batch, as the
 * kernel after 6.18 does, so a split racing with the scan never finds a
 * folio on a list nobody locks (the counts are the same). The LRU caches
 * are drained at most once for the whole scan (seed 000 4/4) or per
 * folio, as foliolab/deferred_split_drain says.
 * Return: the folios split, or SHRINK_STOP when none was and the queue is empty.
 */
unsigned long deferred_split_scan(int nid, struct mem_cgroup *memcg, unsigned long nr_to_scan)
{
	FL_LOCK_SITE_NAMED(site, "deferred_split_scan");
	struct deferred_split *ds_queue = split_queue_of(nid, memcg);
	enum lru_cache_drained drained = LRU_CACHE_NOT_DRAINED;
	bool per_batch = READ_ONCE(fl__deferred_split_drain_batch);
	unsigned long split = 0;
	struct folio_batch fbatch;
	struct folio *folio, *next;
	bool more = true;
	unsigned int i;

	/* each folio queued now is looked at once: requeued ones go to the tail */
	if (nr_to_scan > deferred_split_count(nid, memcg))
		nr_to_scan = deferred_split_count(nid, memcg);
	while (nr_to_scan && more) {
		folio_batch_init(&fbatch);
		fl_spin_lock_at(&ds_queue->split_queue_lock, &site);
		list_for_each_entry_safe(folio, next, &ds_queue->split_queue, _deferred_list)
		{
			bool got = folio_try_get(folio);

			if (got) {
				/* off the queue while we look at it; the mark stays */
				list_del_init(&folio->_deferred_list);
				WRITE_ONCE(ds_queue->split_queue_len,
					   ds_queue->split_queue_len - 1);
				folio_batch_add(&fbatch, folio);
			} else {
				/* lost the race with the last folio_put() */
				__folio_unqueue_deferred_split_locked(folio, ds_queue);
			}
			if (!--nr_to_scan || !folio_batch_space(&fbatch))
				break;
		}
		more = !list_empty(&ds_queue->split_queue);
		spin_unlock(&ds_queue->split_queue_lock);

		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			bool did_split = false, underused = false;

			folio = fbatch.folios[i];
			if (!folio_test_partially_mapped(folio)) {
				/* zero-filled pages of mlocked memory must stay */
				if (folio_test_mlocked(folio))
					goto next;
				underused = thp_underused(folio);
				if (!underused)
					goto next;
			}
			if (!folio_trylock(folio))
				goto next;
			if (!__folio_split(folio, 0, (struct page *)folio, (struct page *)folio,
					   NULL, true, per_batch ? &drained : NULL)) {
				did_split = true;
				if (underused)
					count_vm_event(THP_UNDERUSED_SPLIT_PAGE);
				split++;
			}
			folio_unlock(folio);
next:
			/*
			 * Only a partially mapped folio goes back: one that is
			 * not (not underused, or its split failed) counts as used.
			 */
			if (did_split || !folio_test_partially_mapped(folio))
				continue;
			fl_spin_lock_at(&ds_queue->split_queue_lock, &site);
			if (list_empty(&folio->_deferred_list)) {
				list_add_tail(&folio->_deferred_list, &ds_queue->split_queue);
				WRITE_ONCE(ds_queue->split_queue_len,
					   ds_queue->split_queue_len + 1);
			}
			spin_unlock(&ds_queue->split_queue_lock);
		}
		folios_put(&fbatch);
	}
	if (!split && !deferred_split_count(nid, memcg))
		return SHRINK_STOP;
	return split;
}

/* ---- splitting a large folio (mm/huge_memory.c's __folio_split) ---- */

bool fl__split_walk_reverse;
int fl__split_drain = -1;
bool fl__deferred_split_drain_batch = true;

/* The seed's drain before a split: on, off, or (auto) when the policy caches large folios. */
static bool split_drain_on(void)
{
	int d = READ_ONCE(fl__split_drain);

	return d < 0 ? fl__lru_cache_policy.folio_pages > 2 : d;
}

/*
 * The flags a new folio takes from the folio it was split from; the rest of
 * the page's own flags that survive (PG_anon_exclusive) stay.
 */
#define SPLIT_COPY_FLAGS                                                                           \
	((1ul << PG_referenced) | (1ul << PG_swapbacked) | (1ul << PG_swapcache) |                 \
	 (1ul << PG_mlocked) | (1ul << PG_uptodate) | (1ul << PG_active) |                         \
	 (1ul << PG_workingset) | (1ul << PG_locked) | (1ul << PG_unevictable) |                   \
	 (1ul << PG_dirty) | (1ul << PG_dropbehind) | (1ul << PG_young) | (1ul << PG_idle) |       \
	 (1ul << PG_anon) | NODES_MASK)

/* Make @page the head of a folio of @order (its tails point to it). */
static void split_prep_compound(struct page *page, unsigned int order)
{
	struct folio *folio = (struct folio *)page;
	unsigned long i, nr = 1ul << order;

	for (i = 1; i < nr; i++) {
		struct page *p = page + i;

		WRITE_ONCE(p->flags, READ_ONCE(p->flags) & (1ul << PG_anon_exclusive));
		p->mapping = NULL;
		p->index = 0;
		p->_tail_pad = 0;
		fl_atomic_store(&p->compound_head, (unsigned long)page | 1, __ATOMIC_RELEASE);
	}
	/* atomic: @page is published, a migration-entry fault may set PG_waiters */
	fl_set_bit(PG_head, &page->flags);
	prep_compound_head(folio, order);
}

/*
 * __split_folio_to_order() - make the frozen, unmapped @folio of
 * @old_order into 2^(old_order - new_order) folios of @new_order: each new
 * head past the first takes the original's flags, mapping and index + i;
 * the first keeps the original's descriptor with the new order.
 */
static void __split_folio_to_order(struct folio *folio, unsigned int old_order,
				   unsigned int new_order)
{
	unsigned long nr = 1ul << old_order, new_nr = 1ul << new_order, i;
	unsigned long flags = READ_ONCE(folio->flags) & SPLIT_COPY_FLAGS;
	void *mapping = folio->mapping;
	pgoff_t index = folio->index;
	unsigned long memcg = folio->memcg_data;
	struct page *head = (struct page *)folio;

	fl_cost_n(FL_COST_SPLIT_PAGE, nr);
	for (i = new_nr; i < nr; i += new_nr) {
		struct page *new_head = head + i;

		WRITE_ONCE(new_head->flags,
			   (READ_ONCE(new_head->flags) & (1ul << PG_anon_exclusive)) | flags);
		new_head->mapping = mapping;
		new_head->index = index + i;
		/* a swap-cache folio's pieces stand for their own slots (folio->swap) */
		WRITE_ONCE(new_head->private,
			   (flags & (1ul << PG_swapcache)) ? folio->private + i : 0ul);
		new_head->_mapcount = 0;
		new_head->_refcount = 0; /* frozen until the unfreeze loop */
		new_head->memcg_data = memcg;
		new_head->_tail_pad = 0;
		/* release: the descriptor is complete before it stops being a tail */
		fl_atomic_store(&new_head->compound_head, 0ul, __ATOMIC_RELEASE);
		if (new_order)
			split_prep_compound(new_head, new_order);
	}
	if (new_order) {
		WRITE_ONCE(folio->_flags_1, new_order);
		folio->_folio_nr_pages = (unsigned int)new_nr;
	} else {
		/* atomic: a fault on a migration entry may be setting PG_waiters */
		fl_clear_bit(PG_head, &folio->flags);
	}
	count_fl_stat(FL_LIVE_FOLIOS, (long)(nr / new_nr) - 1);
}

/*
 * __split_unmapped_folio() - split the frozen @folio down to @new_order:
 * at once (uniform), or one order at a time, each time the half holding
 * @split_at (non-uniform), with the page cache's multi-index entry split
 * alike (xas_split, or xas_try_split per order, which may fail with
 * -ENOMEM and leave the folio split part of the way).
 * Context: xa_lock held for a file folio; the lruvec lock held.
 */
static int __split_unmapped_folio(struct folio *folio, unsigned int new_order,
				  struct page *split_at, struct xa_state *xas,
				  struct address_space *mapping, bool uniform)
{
	bool is_anon = folio_test_anon(folio);
	int order = (int)folio_order(folio);
	int split_order, start = uniform ? (int)new_order : order - 1;

	for (split_order = start; split_order >= (int)new_order; split_order--) {
		unsigned int old_order = folio_order(folio);

		if (is_anon && split_order == 1)
			continue;
		if (mapping) {
			if (uniform) {
				xas_split(xas, folio, old_order);
			} else {
				xas_set_order(xas, folio->index, (unsigned int)split_order);
				xas_try_split(xas, folio, old_order);
				if (xas_error(xas))
					return xas_error(xas);
			}
		}
		__split_folio_to_order(folio, old_order, (unsigned int)split_order);
		if (is_anon) {
			mod_mthp_stat((int)old_order, MTHP_STAT_NR_ANON, -1);
			mod_mthp_stat(split_order, MTHP_STAT_NR_ANON,
				      1l << (old_order - (unsigned int)split_order));
		}
		folio = page_folio(split_at);
	}
	return 0;
}

/*
 * lru_add_split_folio() - put @new_folio, a piece of the frozen @folio, on
 * the LRU right before it (the lists' page counts do not change: the same
 * pages change owner), or on the caller's @list with a reference.
 */
static void lru_add_split_folio(struct folio *folio, struct folio *new_folio,
				struct list_head *list)
{
	VM_BUG_ON(folio_test_lru(new_folio));
	if (list) {
		folio_get(new_folio);
		list_add_tail(&new_folio->lru, list);
		return;
	}
	VM_BUG_ON(!folio_test_lru(folio));
	if (folio_test_unevictable(folio))
		new_folio->mlock_count = 0;
	else
		list_add_tail(&new_folio->lru, &folio->lru);
	folio_set_lru(new_folio);
}

/**
 * can_split_folio() - the folio's references are its mappings', its
 * caches' and the caller's @caller_pins, and nothing else's: a reference
 * held anywhere else (a per-CPU LRU batch, a GUP pin) would outlive the
 * split. *@pextra_pins gets the caches' count.
 */
bool can_split_folio(struct folio *folio, int caller_pins, int *pextra_pins)
{
	int extra_pins;

	if (folio_test_anon(folio))
		extra_pins = folio_test_swapcache(folio) ? (int)folio_nr_pages(folio) : 0;
	else
		extra_pins = (int)folio_nr_pages(folio);
	if (pextra_pins)
		*pextra_pins = extra_pins;
	return folio_mapcount(folio) == folio_ref_count(folio) - extra_pins - caller_pins;
}

static bool non_uniform_split_supported(struct folio *folio, unsigned int new_order)
{
	if (folio_test_anon(folio))
		return new_order != 1; /* an order-1 anon folio has no deferred list */
	if (new_order && !((struct address_space *)folio->mapping)->large_folios)
		return false;
	return !folio_test_swapcache(folio);
}

static bool uniform_split_supported(struct folio *folio, unsigned int new_order)
{
	if (folio_test_anon(folio))
		return new_order != 1;
	if (new_order && !((struct address_space *)folio->mapping)->large_folios)
		return false;
	return !(new_order && folio_test_swapcache(folio));
}

/*
 * Publish the after-split folios: unfreeze each piece after the first,
 * put it on the LRU, and store it in the page cache (or drop it when it
 * lies beyond @end). Forward: one __xa_store() walk from the root per
 * piece, as 6.18. Reverse (seed 002): from the last piece back, stepping
 * with xas_prev_canonical() over one walk, so the pieces reach the LRU in
 * ascending order from its tail.
 * Return: the pages dropped beyond @end (shmem uncharges them).
 */
static long split_publish(struct folio *folio, struct folio *end_folio, struct xa_state *xas,
			  struct address_space *mapping, pgoff_t end, struct list_head *list)
{
	bool reverse = READ_ONCE(fl__split_walk_reverse);
	struct folio *new_folio, *stop = reverse ? folio : end_folio;
	long dropped = 0;

	new_folio = reverse ? folio_prev(end_folio) : folio_next(folio);
	if (reverse && mapping && new_folio != folio) {
		xas_set(xas, new_folio->index);
		xas_load(xas);
	}
	/*
	 * Each piece's own work, the first's (the original descriptor) too:
	 * its setup, folio_ref_unfreeze(), lru_add_split_folio() and the
	 * unlock and put after the lock; split_folio, under the lruvec lock
	 * as the kernel does most of it.
	 */
	fl_cost(FL_COST_SPLIT_FOLIO);
	while (new_folio != stop) {
		struct folio *next = reverse ? folio_prev(new_folio) : folio_next(new_folio);
		long nr = (long)folio_nr_pages(new_folio);

		fl_cost(FL_COST_SPLIT_FOLIO);
		folio_ref_unfreeze(new_folio, folio_expected_ref_count(new_folio) + 1);
		lru_add_split_folio(folio, new_folio, list);
		count_fl_stat(FL_SPLIT_WALK, 1);
		if (!mapping) {
			new_folio = next;
			continue;
		}
		if (new_folio->index < end) {
			if (reverse) {
				VM_BUG_ON(xas->xa_index != new_folio->index);
				xas->xa_sibs = 0;
				xas_store(xas, new_folio);
				xas_prev_canonical(xas);
			} else {
				XA_STATE(one, &mapping->i_pages, new_folio->index);

				xas_store(&one, new_folio);
				fl__xas_account(&one);
			}
		} else {
			/* beyond EOF: out of the cache, and its cache references go */
			if (folio_test_swapbacked(new_folio))
				dropped += nr;
			__filemap_remove_folio(new_folio);
			folio_put_refs(new_folio, (int)nr);
			if (reverse) {
				xas_set(xas, next->index);
				xas_load(xas);
			}
		}
		new_folio = next;
	}
	return dropped;
}

/*
 * unmap_folio() - take every mapping of the locked @folio away before the
 * split: an anon folio's become migration entries (a PMD mapping is split
 * straight into them), a file folio's just go (it faults back in).
 * Context: the anon_vma (anon) or i_mmap (file) is locked.
 */
static void unmap_folio(struct folio *folio)
{
	unsigned long ttu_flags = TTU_RMAP_LOCKED;

	if (folio_test_pmd_mappable(folio))
		ttu_flags |= TTU_SPLIT_HUGE_PMD;
	if (folio_test_anon(folio))
		try_to_migrate(folio, ttu_flags);
	else
		try_to_unmap(folio, ttu_flags);
}

/*
 * remap_page() - after the split (or its failure) map the pieces of the
 * first @nr pages from @folio again where their migration entries are.
 */
static void remap_page(struct folio *folio, unsigned long nr, int flags)
{
	unsigned long i = 0;

	if (!folio_test_anon(folio))
		return;
	for (;;) {
		remove_migration_ptes(folio, folio, RMP_LOCKED | flags);
		i += folio_nr_pages(folio);
		if (i >= nr)
			break;
		folio = folio_next(folio);
	}
}

/*
 * __folio_split() - split the locked @folio to @new_order, uniformly or
 * (non-uniform) keeping @split_at's piece at @new_order and the rest as
 * large as possible; the piece holding @lock_at stays locked and keeps the
 * caller's reference, every other piece is unlocked and loses it. The
 * checks come in 6.18's order with its error codes; the first four
 * (pages outside the folio, an order not below the folio's, a split the
 * folio does not support, writeback) return uncounted, every later
 * outcome counts thp_split_page(_failed) and split(_failed) per size.
 * A mapped folio is unmapped first (unmap_folio()) and mapped again
 * piece by piece after (remap_page()), zero-filled order-0 anon pieces
 * to the shared zero page when the split succeeded.
 * Return: 0, -EINVAL (not splittable that way), -EBUSY (no anon_vma or
 * mapping, writeback), -EAGAIN (unexpected references, or raced), -ENOMEM.
 */
static int __folio_split(struct folio *folio, unsigned int new_order, struct page *split_at,
			 struct page *lock_at, struct list_head *list, bool uniform,
			 enum lru_cache_drained *drained)
{
	FL_LOCK_SITE(lru_site);
	FL_LOCK_SITE(ds_site);
	struct folio *end_folio = folio_next(folio), *new_folio, *next;
	unsigned int old_order = folio_order(folio);
	bool is_anon = folio_test_anon(folio);
	struct deferred_split *ds_queue = folio_split_queue(folio);
	struct address_space *mapping = NULL;
	struct anon_vma *anon_vma = NULL;
	struct swap_cluster_info *ci = NULL;
	struct lruvec *lruvec;
	XA_STATE(xas, NULL, 0);
	int extra_pins, ret = 0, remap_flags = 0;
	pgoff_t end = (pgoff_t)-1;
	long dropped = 0;

	VM_BUG_ON(!folio_test_locked(folio));
	VM_BUG_ON(!folio_test_large(folio));
	/* requests that cannot be met: refused before anything is counted */
	if (page_folio(split_at) != folio || page_folio(lock_at) != folio)
		return -EINVAL;
	if (new_order >= old_order)
		return -EINVAL;
	if (uniform ? !uniform_split_supported(folio, new_order)
		    : !non_uniform_split_supported(folio, new_order))
		return -EINVAL;
	if (folio_test_writeback(folio))
		return -EBUSY;
	if (is_anon) {
		/* the anon_vma's write lock keeps rmap walkers and other splits out */
		anon_vma = folio_get_anon_vma(folio);
		if (!anon_vma) {
			ret = -EBUSY;
			goto out;
		}
		anon_vma_lock_write(anon_vma);
	} else {
		mapping = folio->mapping;
		if (!mapping) {
			ret = -EBUSY; /* truncated */
			goto out;
		}
		if (new_order < mapping->min_order) {
			ret = -EINVAL;
			goto out;
		}
		xas.xa = &mapping->i_pages;
		xas_set(&xas, folio->index);
		if (uniform) {
			xas_set_order(&xas, folio->index, new_order);
			xas_split_alloc(&xas, folio, old_order);
			if (xas_error(&xas)) {
				ret = xas_error(&xas);
				goto out;
			}
		}
		i_mmap_lock_read(mapping);
		end = (pgoff_t)((mapping->host->i_size + (loff_t)PAGE_SIZE - 1) >> PAGE_SHIFT);
		if (shmem_mapping(mapping) && mapping->host->fallocend > end)
			end = mapping->host->fallocend;
	}
	/* seed 000 3/4: one reference more than expected may be a per-CPU batch's */
	if (split_drain_on() && folio_ref_count(folio) == folio_expected_ref_count(folio) + 1 +
								  folio_may_be_lru_cached(folio))
		lru_cache_drain_for_folio(folio, 1, drained);
	if (!can_split_folio(folio, 1, &extra_pins)) {
		ret = -EAGAIN;
		goto out_unlock;
	}
	unmap_folio(folio);
	if (mapping) {
		xas_lock(&xas);
		xas_reset(&xas);
		if (xas_load(&xas) != folio) {
			ret = -EAGAIN;
			goto fail;
		}
	}
	/* the queue's lock keeps deferred_split_scan() off the refcount */
	fl_spin_lock_at(&ds_queue->split_queue_lock, &ds_site);
	if (!folio_ref_freeze(folio, 1 + extra_pins)) {
		spin_unlock(&ds_queue->split_queue_lock);
		ret = -EAGAIN;
		goto fail;
	}
	if (old_order > 1) {
		if (!list_empty(&folio->_deferred_list)) {
			WRITE_ONCE(ds_queue->split_queue_len, ds_queue->split_queue_len - 1);
			list_del_init(&folio->_deferred_list);
		}
		if (folio_test_partially_mapped(folio)) {
			fl_clear_bit(PG_partially_mapped, &folio->_flags_1);
			mod_mthp_stat((int)old_order, MTHP_STAT_NR_ANON_PARTIALLY_MAPPED, -1);
		}
	}
	spin_unlock(&ds_queue->split_queue_lock);
	if (mapping && folio_test_pmd_mappable(folio) && new_order < HPAGE_PMD_ORDER &&
	    folio_test_swapbacked(folio))
		lruvec_stat_mod_folio(folio, NR_SHMEM_THPS, -(long)folio_nr_pages(folio));
	/* a swap-cache folio: its slots' swap table is rewritten under the cluster lock */
	if (is_anon && folio_test_swapcache(folio))
		ci = swap_cluster_lock(fl__swap_info, swp_offset(folio_swap_entry(folio, 0)));
	lruvec = folio_lruvec(folio);
	fl_spin_lock_at(&lruvec->lru_lock, &lru_site);
	ret = __split_unmapped_folio(folio, new_order, split_at, &xas, mapping, uniform);
	if (ci)
		swap_cache_replace_split(folio, end_folio);
	dropped = split_publish(folio, end_folio, &xas, mapping, end, list);
	/* the first piece last: only now does no slot point to a stale folio */
	folio_ref_unfreeze(folio, folio_expected_ref_count(folio) + 1);
	spin_unlock(&lruvec->lru_lock);
	if (ci)
		swap_cluster_unlock(ci);
fail:
	if (mapping) {
		xas_unlock(&xas);
		fl__xas_account(&xas);
	}
	if (dropped)
		shmem_uncharge(mapping->host, dropped);
	if (!ret && is_anon)
		remap_flags = RMP_USE_SHARED_ZEROPAGE;
	remap_page(folio, 1ul << old_order, remap_flags);
	/* every piece but @lock_at's: unlocked, and the caller's reference dropped */
	for (new_folio = folio; new_folio != end_folio; new_folio = next) {
		next = folio_next(new_folio);
		if (new_folio == page_folio(lock_at))
			continue;
		folio_unlock(new_folio);
		folio_put(new_folio);
	}
out_unlock:
	if (anon_vma) {
		anon_vma_unlock_write(anon_vma);
		put_anon_vma(anon_vma);
	}
	if (mapping)
		i_mmap_unlock_read(mapping);
out:
	xas_destroy(&xas);
	if (old_order == HPAGE_PMD_ORDER)
		count_vm_event(!ret ? THP_SPLIT_PAGE : THP_SPLIT_PAGE_FAILED);
	count_mthp_stat((int)old_order, !ret ? MTHP_STAT_SPLIT : MTHP_STAT_SPLIT_FAILED);
	return ret;
}

/**
 * split_huge_page_to_list_to_order() - split @page's locked folio
 * uniformly into folios of @new_order; @page's piece stays locked and
 * referenced. Return: as __folio_split().
 */
int split_huge_page_to_list_to_order(struct page *page, struct list_head *list,
				     unsigned int new_order)
{
	struct folio *folio = page_folio(page);

	return __folio_split(folio, new_order, (struct page *)folio, page, list, true, NULL);
}

/**
 * folio_split() - the buddy-style split: halve @folio again and again,
 * always the half holding @split_at, until that piece has @new_order; the
 * folio's head piece stays locked and referenced.
 */
int folio_split(struct folio *folio, unsigned int new_order, struct page *split_at,
		struct list_head *list)
{
	return __folio_split(folio, new_order, split_at, (struct page *)folio, list, false, NULL);
}

/**
 * try_folio_split_to_order() - a non-uniform split at @page where the
 * folio supports one, else a uniform split; the head piece stays locked.
 */
int try_folio_split_to_order(struct folio *folio, struct page *page, unsigned int new_order)
{
	if (non_uniform_split_supported(folio, new_order))
		return folio_split(folio, new_order, page, NULL);
	return split_huge_page_to_list_to_order((struct page *)folio, NULL, new_order);
}

/* ---- the debugfs file split_huge_pages ---- */

#define MAX_INPUT_BUF_SZ 255

/*
 * The path form: split every large folio of the file's page cache in
 * [@off_start, @off_end) (page indexes) to @new_order, uniformly, or at
 * @in_folio_offset non-uniformly when that lies inside the folio.
 */
static int split_huge_pages_in_file(const char *path, pgoff_t off_start, pgoff_t off_end,
				    unsigned int new_order, long in_folio_offset)
{
	struct inode *inode = fl__shmem_lookup_path(path);
	struct address_space *mapping;
	unsigned long total = 0, split = 0;
	unsigned int target;
	pgoff_t index, nr = 1;

	if (!inode)
		return -EINVAL;
	mapping = inode->i_mapping;
	target = new_order > mapping->min_order ? new_order : mapping->min_order;
	for (index = off_start; index < off_end; index += nr) {
		struct folio *folio = filemap_get_entry(mapping, index);
		int ret;

		nr = 1;
		if (!folio || xa_is_value(folio))
			continue;
		if (!folio_test_large(folio))
			goto next;
		total++;
		/* 6.18 steps by the folio's size from wherever the index was in it */
		nr = folio_nr_pages(folio);
		if (target >= folio_order(folio))
			goto next;
		if (!folio_trylock(folio))
			goto next;
		if (folio->mapping != mapping)
			goto unlock;
		if (in_folio_offset < 0 || (unsigned long)in_folio_offset >= folio_nr_pages(folio))
			ret = split_folio_to_order(folio, target);
		else
			ret = folio_split(folio, target, folio_page(folio, in_folio_offset), NULL);
		if (!ret)
			split++;
unlock:
		folio_unlock(folio);
next:
		folio_put(folio);
	}
	fl__iput(inode);
	(void)total;
	(void)split;
	return 0;
}

/*
 * split_huge_pages_all() - the input "1": every large folio on an LRU in
 * every zone, split to order 0, walking the frames in order.
 */
static void split_huge_pages_all(void)
{
	unsigned long total = 0, split = 0;
	int nid;

	for_each_online_node (nid) {
		struct zone *zone = &NODE_DATA(nid)->node_zones[0];
		unsigned long pfn, end = READ_ONCE(zone->frontier_pfn); /* beyond: never used */

		for (pfn = zone->zone_start_pfn; pfn < end; pfn++) {
			struct page *page = pfn_to_page(pfn);
			struct folio *folio;
			unsigned long nr;

			/* a tail is its head's business (6.18 skips it) */
			if (PageTail(page))
				continue;
			folio = page_folio(page);
			if (!folio_try_get(folio))
				continue;
			if (page_folio(page) != folio || folio_zone(folio) != zone)
				goto next;
			if (!folio_test_large(folio) || !folio_test_lru(folio))
				goto next;
			total++;
			folio_lock(folio);
			nr = folio_nr_pages(folio);
			if (!split_folio(folio))
				split++;
			pfn += nr - 1;
			folio_unlock(folio);
next:
			folio_put(folio);
		}
	}
	(void)total;
	(void)split;
}

/*
 * folio_walk_start() - the folio mapped at @addr in @vma (a PTE or a huge
 * PMD maps it; not the zero page), with the entry's page-table lock held
 * in *@ptl, or NULL.
 */
static struct folio *folio_walk_start(struct vm_area_struct *vma, unsigned long addr,
				      struct fl_spinlock **ptl)
{
	FL_LOCK_SITE_NAMED(site_pmd, "folio_walk_start");
	FL_LOCK_SITE_NAMED(site_pte, "folio_walk_start");
	struct pgtable *pmdt = walk_pmd_table(vma->vm_mm, addr), *ptet;
	pteval_t *pmdslot, v;

	if (!pmdt)
		return NULL;
	pmdslot = &pmdt->e[pmd_index(addr)];
	v = entry_load(pmdslot);
	if (pmd_trans_huge(v)) {
		fl_spin_lock_at(&pmdt->ptl, &site_pmd);
		v = entry_load(pmdslot);
		if (pmd_trans_huge(v) && !is_huge_zero_pmd(v)) {
			*ptl = &pmdt->ptl;
			return pfn_folio(pte_pfn(v));
		}
		spin_unlock(&pmdt->ptl);
		if (pmd_trans_huge(v))
			return NULL; /* the huge zero folio, which no walk wants */
	}
	if (!entry_is_table(v))
		return NULL;
	ptet = entry_table(v);
	fl_spin_lock_at(&ptet->ptl, &site_pte);
	if (entry_load(pmdslot) != v)
		goto unlock;
	v = READ_ONCE(ptet->e[pte_index(addr)]);
	if (!(v & _PAGE_PRESENT) || (v & _PAGE_SPECIAL))
		goto unlock;
	*ptl = &ptet->ptl;
	return pfn_folio(pte_pfn(v));
unlock:
	spin_unlock(&ptet->ptl);
	return NULL;
}

/*
 * split_huge_pages_pid() - the pid form: every large folio mapped in
 * [@vaddr_start, @vaddr_end) of process @pid, page by page, split to
 * @new_order (uniformly, or at @in_folio_offset when that lies inside).
 * A folio whose references say it cannot be split is skipped before it is
 * locked. With the seed's drain on, the LRU caches are drained once,
 * before the walk takes any page-table lock (its review asked for that or
 * no drain at all); 6.18 does not drain here.
 * Return: 0, -ESRCH (no such process).
 */
static int split_huge_pages_pid(int pid, unsigned long vaddr_start, unsigned long vaddr_end,
				unsigned int new_order, long in_folio_offset)
{
	unsigned long addr, total = 0, split = 0;
	struct mm_struct *mm = fl__find_get_mm(pid);

	if (!mm)
		return -ESRCH;
	vaddr_start &= PAGE_MASK;
	vaddr_end &= PAGE_MASK;
	if (split_drain_on())
		lru_add_drain_all();
	down_read(&mm->mmap_lock);
	for (addr = vaddr_start; addr < vaddr_end; addr += PAGE_SIZE) {
		struct vm_area_struct *vma = find_vma(mm, addr);
		struct address_space *mapping = NULL;
		unsigned int target_order = new_order;
		struct fl_spinlock *ptl;
		struct folio *folio;

		if (!vma || addr < vma->vm_start)
			break;
		folio = folio_walk_start(vma, addr, &ptl);
		if (!folio)
			continue;
		if (!folio_test_large(folio))
			goto next;
		if (!folio_test_anon(folio)) {
			mapping = folio->mapping;
			if (mapping && mapping->min_order > target_order)
				target_order = mapping->min_order;
		}
		if (target_order >= folio_order(folio))
			goto next;
		total++;
		if (!folio_test_private(folio) && !can_split_folio(folio, 0, NULL))
			goto next;
		if (!folio_trylock(folio))
			goto next;
		folio_get(folio);
		spin_unlock(ptl);
		if (folio_test_anon(folio) || folio->mapping == mapping) {
			int ret;

			if (in_folio_offset < 0 ||
			    (unsigned long)in_folio_offset >= folio_nr_pages(folio))
				ret = split_folio_to_order(folio, target_order);
			else
				ret = folio_split(folio, target_order,
						  folio_page(folio, in_folio_offset), NULL);
			if (!ret)
				split++;
		}
		folio_unlock(folio);
		folio_put(folio);
		continue;
next:
		spin_unlock(ptl);
	}
	up_read(&mm->mmap_lock);
	mmput(mm);
	(void)total;
	(void)split;
	return 0;
}

/**
 * fl__split_huge_pages_write() - what a write of @input to
 * /sys/kernel/debug/split_huge_pages does (at most 255 bytes are read):
 * "<path>,0x<start>,0x<end>[,<new_order>[,<offset>]]" with page indexes
 * of a file, "<pid>,0x<vstart>,0x<vend>[,<new_order>[,<offset>]]" with
 * addresses of a process (the model's pids are its processes' ids), or
 * "1" for every large folio in the system (to order 0).
 * Return: 0, -EINVAL for input the kernel refuses (or a path that does
 * not open), -ESRCH for a pid that is not a process.
 */
static const struct fl_lock_class split_debug_class = { .name = "split_debug_mutex",
							.rank = FL_RANK_SPLIT_DEBUG,
							.kind = FL_LOCK_MUTEX };
static struct fl_mutex split_debug_mutex = { .sl = { .cls = &split_debug_class } };

/*
 * Parse and run one write. The new order is read as the kernel reads it,
 * a %d into an unsigned int: one no folio is larger than (-1 included)
 * splits nothing, and the write still succeeds.
 */
static int split_huge_pages_write_locked(char *buf)
{
	char *comma, path[MAX_INPUT_BUF_SZ];
	unsigned long start, end;
	long in_folio_offset = -1;
	int new_order = 0, n, pid;

	if (buf[0] == '/') {
		comma = strchr(buf, ',');
		if (!comma)
			return -EINVAL;
		*comma = '\0';
		snprintf(path, sizeof(path), "%s", buf);
		n = sscanf(comma + 1, "0x%lx,0x%lx,%d,%ld", &start, &end, &new_order,
			   &in_folio_offset);
		if (n < 2)
			return -EINVAL;
		return split_huge_pages_in_file(path, start, end, (unsigned int)new_order,
						in_folio_offset);
	}
	n = sscanf(buf, "%d,0x%lx,0x%lx,%d,%ld", &pid, &start, &end, &new_order, &in_folio_offset);
	if (n == 1 && pid == 1) {
		split_huge_pages_all();
		return 0;
	}
	if (n < 3)
		return -EINVAL;
	return split_huge_pages_pid(pid, start, end, (unsigned int)new_order, in_folio_offset);
}

int fl__split_huge_pages_write(const char *input)
{
	char buf[MAX_INPUT_BUF_SZ];
	int ret;

	snprintf(buf, sizeof(buf), "%s", input);
	buf[strcspn(buf, "\n")] = '\0';
	/* writers take turns, as the kernel's split_debug_mutex makes them */
	mutex_lock(&split_debug_mutex);
	ret = split_huge_pages_write_locked(buf);
	mutex_unlock(&split_debug_mutex);
	return ret;
}
