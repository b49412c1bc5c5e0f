// SPDX-License-Identifier: GPL-2.0-only
/*
 * rmap.c - the reverse map: from a folio to the page-table entries that
 * map it (mm/rmap.c and mm/page_vma_mapped.c in the kernel).
 *
 * An anonymous folio's ->mapping is the anon_vma of the VMA it was first
 * mapped in, its ->index the page offset of that address
 * (linear_page_index()); the anon_vma's chains name every VMA that may
 * map it. A file folio's ->mapping is its address_space, whose i_mmap
 * names every VMA mapping the file. rmap_walk() visits those VMAs at the
 * address where each would map the folio; page_vma_mapped_walk() finds
 * the entries there that really do, and takes their page-table lock.
 *
 * On top of the walk: try_to_migrate() turns every mapping of a locked
 * anon folio into a migration entry (a PMD mapping is split straight into
 * 512 of them), try_to_unmap() takes every mapping of a file folio away
 * (it faults back in), and remove_migration_ptes() maps the pages again,
 * piece by piece after a split, sparing zero-filled order-0 pieces when
 * asked (the shared zero page takes their place).
 *
 * Mapcounts: a large folio has one _large_mapcount (every PTE and PMD
 * that maps it) and an _entire_mapcount (PMD mappings). With
 * foliolab/page_mapcount on (CONFIG_PAGE_MAPCOUNT, as our hosts' kernels
 * are built) each page also counts its own PTE mappings and the folio
 * counts its PTE-mapped pages in _nr_pages_mapped (+ ENTIRELY_MAPPED while
 * a PMD maps it): nr_anon_pages and nr_mapped then follow each page, and a
 * large anon folio is partially mapped once one of its pages loses its
 * last mapping while another keeps one. Off (CONFIG_NO_PAGE_MAPCOUNT),
 * they count every page of a mapped folio until its last mapping goes,
 * and a folio is partially mapped when its mapcount falls below its page
 * count while no PMD maps it. Either way a partially mapped folio goes to
 * deferred_split_folio(), also while a split unmaps it PTE by PTE (6.18
 * does the same; the split takes it off the queue again).
 *
 * Conventions in this file: @vma maps @folio; callers of the rmap counting
 * functions hold the page-table lock of the entries being changed; rmap
 * walks of an anon folio need the folio locked.
 */
#include "internal.h"
#include "swap.h"
#include "fs.h"
#include "pgtable.h"
#include "swapops.h"

/* ---- anon_vma: a type-stable pool ---- */

#define ANON_VMA_CHUNK 64

struct anon_vma_chunk {
	struct anon_vma_chunk *next;
	int used;
	struct anon_vma v[ANON_VMA_CHUNK];
};

static const struct fl_lock_class anon_vma_class = { .name = "anon_vma->rwsem",
						     .rank = FL_RANK_ANON_VMA,
						     .kind = FL_LOCK_RWSEM };
static const struct fl_lock_class anon_vma_pool_class = { .name = "anon_vma_pool",
							  .rank = FL_RANK_ANON_VMA_POOL,
							  .kind = FL_LOCK_SPIN };
static struct fl_spinlock anon_vma_pool_lock = { .cls = &anon_vma_pool_class };
static struct anon_vma *anon_vma_free_list;    /* anon_vma_pool_lock */
static struct anon_vma_chunk *anon_vma_chunks; /* anon_vma_pool_lock */

static struct anon_vma_chunk *anon_vma_chunk_alloc(void)
{
	struct anon_vma_chunk *c = fl_calloc(1, sizeof(*c));
	int i;

	if (!c)
		return NULL;
	for (i = 0; i < ANON_VMA_CHUNK; i++) {
		if (fl_rwsem_init(&c->v[i].rwsem, &anon_vma_class)) {
			while (i--)
				fl_rwsem_destroy(&c->v[i].rwsem);
			fl_free(c);
			return NULL;
		}
	}
	return c;
}

static struct anon_vma *anon_vma_alloc(void)
{
	FL_LOCK_SITE(site);
	struct anon_vma_chunk *c, *fresh = NULL;
	struct anon_vma *av;

again:
	fl_spin_lock_at(&anon_vma_pool_lock, &site);
	av = anon_vma_free_list;
	if (av) {
		anon_vma_free_list = av->next_free;
	} else {
		c = anon_vma_chunks;
		if (!c || c->used == ANON_VMA_CHUNK) {
			if (!fresh) {
				spin_unlock(&anon_vma_pool_lock);
				fresh = anon_vma_chunk_alloc();
				if (!fresh)
					return NULL;
				goto again;
			}
			fresh->next = anon_vma_chunks;
			anon_vma_chunks = c = fresh;
			fresh = NULL;
		}
		av = &c->v[c->used++];
	}
	spin_unlock(&anon_vma_pool_lock);
	if (fresh) { /* another thread refilled the pool meanwhile */
		int i;

		for (i = 0; i < ANON_VMA_CHUNK; i++)
			fl_rwsem_destroy(&fresh->v[i].rwsem);
		fl_free(fresh);
	}
	av->root = av;
	av->num_children = 0;
	av->num_active_vmas = 0;
	INIT_LIST_HEAD(&av->rb_root);
	av->next_free = NULL;
	/* release: a folio_get_anon_vma() that wins a reference sees it whole */
	fl_atomic_store(&av->refcount, 1, __ATOMIC_RELEASE);
	return av;
}

static void anon_vma_free(struct anon_vma *av)
{
	FL_LOCK_SITE(site);
	struct anon_vma *root = av->root;

	VM_BUG_ON(!list_empty(&av->rb_root));
	fl_spin_lock_at(&anon_vma_pool_lock, &site);
	av->next_free = anon_vma_free_list;
	anon_vma_free_list = av;
	spin_unlock(&anon_vma_pool_lock);
	/* a child anon_vma held its root, whose rwsem it locks with */
	if (root != av)
		put_anon_vma(root);
}

/** fl__rmap_exit() - at shutdown, give the anon_vma pool back to the host. */
void fl__rmap_exit(void)
{
	struct anon_vma_chunk *c;
	int i;

	while ((c = anon_vma_chunks)) {
		anon_vma_chunks = c->next;
		for (i = 0; i < ANON_VMA_CHUNK; i++)
			fl_rwsem_destroy(&c->v[i].rwsem);
		fl_free(c);
	}
	anon_vma_free_list = NULL;
}

void put_anon_vma(struct anon_vma *av)
{
	if (fl_atomic_sub_fetch(&av->refcount, 1, __ATOMIC_ACQ_REL) == 0)
		anon_vma_free(av);
}

static void anon_vma_chain_link(struct vm_area_struct *vma, struct anon_vma_chain *avc,
				struct anon_vma *av)
{
	avc->vma = vma;
	avc->anon_vma = av;
	list_add(&avc->same_vma, &vma->anon_vma_chain);
	list_add_tail(&avc->rb, &av->rb_root);
}

/**
 * __anon_vma_prepare() - give @vma an anon_vma before its first anon
 * folio is mapped. Racing faults agree on one.
 * Context: mmap_lock held (for reading at least). Return: 0 or -ENOMEM.
 */
int __anon_vma_prepare(struct vm_area_struct *vma)
{
	FL_LOCK_SITE(site);
	struct mm_struct *mm = vma->vm_mm;
	struct anon_vma_chain *avc = fl_malloc(sizeof(*avc));
	struct anon_vma *av, *allocated;

	if (!avc)
		return -ENOMEM;
	av = allocated = anon_vma_alloc();
	if (!av) {
		fl_free(avc);
		return -ENOMEM;
	}
	anon_vma_lock_write(av);
	fl_spin_lock_at(&mm->page_table_lock, &site);
	if (!vma->anon_vma) {
		anon_vma_chain_link(vma, avc, av);
		av->num_active_vmas++;
		/* release: a fault that sees the pointer sees the chain */
		fl_atomic_store(&vma->anon_vma, av, __ATOMIC_RELEASE);
		allocated = NULL;
		avc = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	anon_vma_unlock_write(av);
	if (allocated)
		put_anon_vma(allocated);
	fl_free(avc);
	return 0;
}

/**
 * anon_vma_clone() - link @dst to every anon_vma @src is linked to, as a
 * VMA split from @src (its anon_vma pointer already copied) must be.
 * Context: mmap_lock held for writing. Return: 0 or -ENOMEM (nothing linked).
 */
int anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src)
{
	struct anon_vma_chain *pavc, *avc;

	list_for_each_entry(pavc, &src->anon_vma_chain, same_vma)
	{
		struct anon_vma *av = pavc->anon_vma;

		avc = fl_malloc(sizeof(*avc));
		if (!avc) {
			dst->anon_vma = NULL;
			unlink_anon_vmas(dst);
			return -ENOMEM;
		}
		anon_vma_lock_write(av);
		anon_vma_chain_link(dst, avc, av);
		anon_vma_unlock_write(av);
	}
	if (dst->anon_vma)
		dst->anon_vma->num_active_vmas++;
	return 0;
}

/**
 * anon_vma_fork() - fork: link the child's @vma to every anon_vma of the
 * parent's @pvma (the folios mapped now are reached through those), and
 * give it an anon_vma of its own under the same root for the folios it
 * will allocate. The kernel may reuse an anon_vma no VMA uses any more
 * instead of a new one; the model always makes one.
 * Context: both mms' mmap_lock held for writing. Return: 0 or -ENOMEM.
 */
int anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma)
{
	struct anon_vma_chain *avc;
	struct anon_vma *av, *root;

	vma->anon_vma = NULL;
	if (!pvma->anon_vma)
		return 0;
	if (anon_vma_clone(vma, pvma))
		return -ENOMEM;
	avc = fl_malloc(sizeof(*avc));
	av = avc ? anon_vma_alloc() : NULL;
	if (!av) {
		fl_free(avc);
		unlink_anon_vmas(vma);
		return -ENOMEM;
	}
	root = pvma->anon_vma->root;
	fl_atomic_fetch_add(&root->refcount, 1, __ATOMIC_RELAXED);
	av->root = root;
	anon_vma_lock_write(av);
	anon_vma_chain_link(vma, avc, av);
	av->num_active_vmas++;
	root->num_children++;
	fl_atomic_store(&vma->anon_vma, av, __ATOMIC_RELEASE);
	anon_vma_unlock_write(av);
	return 0;
}

/**
 * unlink_anon_vmas() - take @vma off every anon_vma it is linked to; an
 * anon_vma no VMA links to any more loses the VMAs' reference.
 * Context: mmap_lock held for writing, or the VMA is detached.
 */
void unlink_anon_vmas(struct vm_area_struct *vma)
{
	struct anon_vma_chain *avc, *next;

	list_for_each_entry_safe(avc, next, &vma->anon_vma_chain, same_vma)
	{
		struct anon_vma *av = avc->anon_vma;
		bool empty;

		anon_vma_lock_write(av);
		list_del(&avc->rb);
		if (av == vma->anon_vma)
			av->num_active_vmas--;
		empty = list_empty(&av->rb_root);
		anon_vma_unlock_write(av);
		list_del(&avc->same_vma);
		fl_free(avc);
		if (empty)
			put_anon_vma(av);
	}
	vma->anon_vma = NULL;
}

/**
 * folio_get_anon_vma() - the anon_vma of a mapped anon folio, with a
 * reference, or NULL (not anon, not mapped, or the anon_vma went away).
 * Context: the caller holds a reference on @folio.
 */
struct anon_vma *folio_get_anon_vma(struct folio *folio)
{
	struct anon_vma *av;
	int c;

	if (!folio_test_anon(folio) || !folio_mapped(folio))
		return NULL;
	av = READ_ONCE(folio->mapping);
	c = fl_atomic_load(&av->refcount, __ATOMIC_RELAXED);
	do {
		if (!c)
			return NULL;
	} while (!fl_atomic_cmpxchg(&av->refcount, &c, c + 1, true, __ATOMIC_ACQUIRE,
				    __ATOMIC_RELAXED));
	/* the anon_vma may have been freed and reused since we read ->mapping */
	if (!folio_mapped(folio)) {
		put_anon_vma(av);
		return NULL;
	}
	return av;
}

/* ---- mapcounts and the stats that follow them ---- */

bool fl__page_mapcount = true;

/*
 * CONFIG_MM_ID (6.15+, on wherever THP is): a large folio remembers the
 * two mms that map it and how often each does, and sets
 * FOLIO_MM_IDS_SHARED_BIT while another mm may map it too. Copy-on-write
 * reuse of a large folio asks for that bit to be clear. The kernel guards
 * the fields with a bit spinlock in _mm_ids; the model hashes the folio to
 * one of a table of spinlocks, which serves the same exclusion. The
 * _large_mapcount of a mapped large folio changes only under it.
 */
static const struct fl_lock_class large_mapcount_class = { .name = "folio->_mm_ids (bit lock)",
							   .rank = FL_RANK_LARGE_MAPCOUNT,
							   .kind = FL_LOCK_SPIN };
#define LARGE_MAPCOUNT_LOCKS 1024
static struct fl_spinlock large_mapcount_locks[LARGE_MAPCOUNT_LOCKS];

void fl__rmap_init(void)
{
	int i;

	for (i = 0; i < LARGE_MAPCOUNT_LOCKS; i++)
		fl_spin_lock_init(&large_mapcount_locks[i], &large_mapcount_class);
}

struct fl_spinlock *fl__large_mapcount_lock(const struct folio *folio)
{
	unsigned long pfn = folio_pfn(folio);

	return &large_mapcount_locks[(pfn * 0x9e3779b97f4a7c15ull) >> 54];
}

static void folio_set_mm_id(struct folio *folio, int slot, unsigned int id)
{
	unsigned long ids = folio->_mm_ids;

	ids &= ~(FOLIO_MM_ID_MASK << (slot * FOLIO_MM_ID_BITS));
	ids |= (unsigned long)id << (slot * FOLIO_MM_ID_BITS);
	WRITE_ONCE(folio->_mm_ids, ids);
}

/* A fresh folio's first mappings (@n of them), all @vma's mm's. */
static void folio_set_large_mapcount(struct folio *folio, int n, struct vm_area_struct *vma)
{
	fl_atomic_store(&folio->_large_mapcount, n, __ATOMIC_RELAXED);
	folio->_mm_ids = vma->vm_mm->mm_id;
	folio->_mm_id_mapcount[0] = n;
	folio->_mm_id_mapcount[1] = 0;
}

/*
 * @diff more mappings of @folio by @vma's mm. A mm without a slot takes a
 * free one; the folio is maybe shared once a mapping is not its mm's,
 * or no slot is free.
 * Return: the folio's mapcount after.
 */
static int folio_add_return_large_mapcount(struct folio *folio, int diff,
					   struct vm_area_struct *vma)
{
	unsigned int id = vma->vm_mm->mm_id;
	int slot, val;

	folio_lock_large_mapcount(folio);
	val = fl_atomic_add_fetch(&folio->_large_mapcount, diff, __ATOMIC_RELAXED);
	for (slot = 0; slot < 2; slot++)
		if (folio_mm_id(folio, slot) == id)
			break;
	if (slot < 2) {
		folio->_mm_id_mapcount[slot] += diff;
	} else {
		for (slot = 0; slot < 2; slot++)
			if (folio_mm_id(folio, slot) == MM_ID_DUMMY)
				break;
		if (slot < 2) {
			folio_set_mm_id(folio, slot, id);
			folio->_mm_id_mapcount[slot] = diff;
		}
		/* no slot, or mappings that are not this mm's */
		if (slot == 2 || val != diff)
			WRITE_ONCE(folio->_mm_ids, folio->_mm_ids | FOLIO_MM_IDS_SHARED_BIT);
	}
	folio_unlock_large_mapcount(folio);
	return val;
}

/*
 * @diff mappings of @folio by @vma's mm went. A slot that empties is
 * freed (a mm may unmap more than its slot counted: mappings it added
 * while no slot was free). Unless the mm keeps mappings in its slot, the
 * folio is exclusive again once one slot holds every mapping left: also
 * after the unmap of a mm that had no slot.
 * Return: the folio's mapcount after.
 */
static int folio_sub_return_large_mapcount(struct folio *folio, int diff,
					   struct vm_area_struct *vma)
{
	unsigned int id = vma->vm_mm->mm_id;
	int slot, val;

	folio_lock_large_mapcount(folio);
	val = fl_atomic_sub_fetch(&folio->_large_mapcount, diff, __ATOMIC_RELAXED);
	for (slot = 0; slot < 2; slot++)
		if (folio_mm_id(folio, slot) == id)
			break;
	if (slot < 2) {
		folio->_mm_id_mapcount[slot] -= diff;
		if (folio->_mm_id_mapcount[slot] > 0)
			goto out; /* this mm maps it still: nothing else changed */
		folio->_mm_id_mapcount[slot] = 0;
		folio_set_mm_id(folio, slot, MM_ID_DUMMY);
	}
	/* a slot's mm maps all that is left (or nothing is): exclusive */
	if (folio->_mm_id_mapcount[0] == val || folio->_mm_id_mapcount[1] == val)
		WRITE_ONCE(folio->_mm_ids, folio->_mm_ids & ~FOLIO_MM_IDS_SHARED_BIT);
out:
	folio_unlock_large_mapcount(folio);
	return val;
}

/* The pages of a folio that became mapped or unmapped, by kind. */
static __always_inline void folio_mod_stat(struct folio *folio, long nr, long nr_pmdmapped)
{
	bool anon = folio_test_anon(folio);

	if (nr)
		lruvec_stat_mod_folio(folio, anon ? NR_ANON_MAPPED : NR_FILE_MAPPED, nr);
	if (nr_pmdmapped) {
		if (anon)
			lruvec_stat_mod_folio(folio, NR_ANON_THPS, nr_pmdmapped);
		else if (folio_test_swapbacked(folio))
			lruvec_stat_mod_folio(folio, NR_SHMEM_PMDMAPPED, nr_pmdmapped);
	}
}

/**
 * folio_add_new_anon_rmap() - the first mapping of a freshly allocated
 * anon folio: by @pmd, or by one PTE per page.
 * Context: anon_vma_prepare(@vma) succeeded; nobody else can see @folio
 * yet, so plain stores are enough, but for an order-0 swap-cache folio
 * (read through the cache, on the LRU since): a fault that finds it there
 * clears PG_readahead without its lock (swap_update_readahead()), and the
 * LRU's users change its flags and may look at its rmap.
 */
__always_inline void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma,
					     unsigned long address, int flags, bool pmd)
{
	unsigned long i, nr = folio_nr_pages(folio);
	unsigned long set = 1ul << PG_anon;

	/* one plain store sets them all: nobody else sees the folio yet */
	if (!(vma->vm_flags & VM_DROPPABLE))
		set |= 1ul << PG_swapbacked;
	folio->mapping = vma->anon_vma;
	folio->index = linear_page_index(vma, address);
	if (!folio_test_large(folio)) {
		if (flags & RMAP_EXCLUSIVE)
			set |= 1ul << PG_anon_exclusive;
		/* a swap-cache folio is on the LRU already: its flags atomically */
		if (folio_test_swapcache(folio))
			fl_atomic_fetch_or(&folio->flags, set, __ATOMIC_RELAXED);
		else
			WRITE_ONCE(folio->flags, READ_ONCE(folio->flags) | set);
		/* last, with release: folio_referenced()'s unlocked look sees the rest */
		fl_atomic_store(&folio->_mapcount, 1, __ATOMIC_RELEASE);
		lruvec_stat_mod_folio(folio, NR_ANON_MAPPED, 1);
		return;
	}
	WRITE_ONCE(folio->flags, READ_ONCE(folio->flags) | set);
	if (pmd) {
		fl_atomic_store(&folio->_entire_mapcount, 1, __ATOMIC_RELAXED);
		folio_set_large_mapcount(folio, 1, vma);
		lruvec_stat_mod_folio(folio, NR_ANON_THPS, (long)nr);
	} else {
		folio_set_large_mapcount(folio, (int)nr, vma);
	}
	if (fl__page_mapcount)
		folio->_nr_pages_mapped = pmd ? ENTIRELY_MAPPED : (int)nr;
	/* a PMD mapping is exclusive at the PMD level: the head page says it */
	if (pmd && (flags & RMAP_EXCLUSIVE))
		fl_set_bit(PG_anon_exclusive, &folio->flags);
	if (!pmd && ((flags & RMAP_EXCLUSIVE) || fl__page_mapcount)) {
		for (i = 0; i < nr; i++) {
			struct page *page = folio_page(folio, i);

			if (flags & RMAP_EXCLUSIVE)
				fl_set_bit(PG_anon_exclusive, &page->flags);
			if (fl__page_mapcount)
				page->_mapcount = 1;
		}
	}
	lruvec_stat_mod_folio(folio, NR_ANON_MAPPED, (long)nr);
	mod_mthp_stat((int)folio_order(folio), MTHP_STAT_NR_ANON, 1);
}

/*
 * @nr more PTEs map pages of @folio from @page. Per-page mapcounts: each
 * page that becomes mapped counts, unless a PMD maps the whole folio
 * already. Without: the folio's pages count once it goes from unmapped to
 * mapped.
 */
static void __folio_add_rmap_ptes(struct folio *folio, struct page *page, int nr,
				  struct vm_area_struct *vma)
{
	int i, first = 0;

	if (!folio_test_large(folio)) {
		if (fl_atomic_fetch_add(&folio->_mapcount, nr, __ATOMIC_RELAXED) == 0)
			folio_mod_stat(folio, 1, 0);
		return;
	}
	if (!fl__page_mapcount) {
		if (folio_add_return_large_mapcount(folio, nr, vma) == nr)
			folio_mod_stat(folio, (long)folio_nr_pages(folio), 0);
		return;
	}
	for (i = 0; i < nr; i++)
		first += fl_atomic_fetch_add(&page[i]._mapcount, 1, __ATOMIC_RELAXED) == 0;
	if (first && fl_atomic_add_fetch(&folio->_nr_pages_mapped, first, __ATOMIC_RELAXED) <
			     ENTIRELY_MAPPED)
		folio_mod_stat(folio, first, 0);
	folio_add_return_large_mapcount(folio, nr, vma);
}

/**
 * folio_add_anon_rmap_ptes() - @nr PTEs now map @folio's pages from
 * @page (a PMD split, a remap after migration); RMAP_EXCLUSIVE marks the
 * pages exclusive to this mapping.
 */
void folio_add_anon_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma, int flags)
{
	int i;

	__folio_add_rmap_ptes(folio, page, nr, vma);
	if (flags & RMAP_EXCLUSIVE)
		for (i = 0; i < nr; i++)
			fl_set_bit(PG_anon_exclusive, &page[i].flags);
}

/*
 * @nr more PTEs map @folio's pages from @page, each page mapped already
 * (fork): the mapcounts grow, the stats do not.
 */
static void __folio_dup_rmap_ptes(struct folio *folio, struct page *page, int nr,
				  struct vm_area_struct *dst_vma)
{
	int i;

	if (!folio_test_large(folio)) {
		fl_atomic_fetch_add(&folio->_mapcount, nr, __ATOMIC_RELAXED);
		return;
	}
	if (fl__page_mapcount)
		for (i = 0; i < nr; i++)
			fl_atomic_fetch_add(&page[i]._mapcount, 1, __ATOMIC_RELAXED);
	folio_add_return_large_mapcount(folio, nr, dst_vma);
}

/**
 * folio_try_dup_anon_rmap_ptes() - fork: the child's @nr PTEs map @folio's
 * pages from @page as the parent's do; no page stays exclusive to either.
 * The kernel fails here (-EBUSY) for an exclusive page of a folio that may
 * be pinned, and fork copies that page instead; the model has no pins.
 * Context: the parent's PTE lock held; the caller took @nr references.
 * Return: 0.
 */
int folio_try_dup_anon_rmap_ptes(struct folio *folio, struct page *page, int nr,
				 struct vm_area_struct *dst_vma)
{
	int i;

	for (i = 0; i < nr; i++)
		if (PageAnonExclusive(&page[i]))
			fl_clear_bit(PG_anon_exclusive, &page[i].flags);
	__folio_dup_rmap_ptes(folio, page, nr, dst_vma);
	return 0;
}

/** folio_try_dup_anon_rmap_pmd() - fork: the child's PMD maps the THP @folio too. */
int folio_try_dup_anon_rmap_pmd(struct folio *folio, struct vm_area_struct *dst_vma)
{
	if (PageAnonExclusive((struct page *)folio))
		fl_clear_bit(PG_anon_exclusive, &folio->flags);
	fl_atomic_fetch_add(&folio->_entire_mapcount, 1, __ATOMIC_RELAXED);
	folio_add_return_large_mapcount(folio, 1, dst_vma);
	return 0;
}

/** folio_dup_file_rmap_ptes() - fork: the child's @nr PTEs map file pages too. */
void folio_dup_file_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *dst_vma)
{
	__folio_dup_rmap_ptes(folio, page, nr, dst_vma);
}

/**
 * folio_move_anon_rmap() - the anon @folio, now exclusive to @vma (a
 * copy-on-write fault reuses it), belongs to @vma's own anon_vma: rmap
 * walks no longer visit the VMAs of the processes it was shared with.
 * Context: @folio locked.
 */
void folio_move_anon_rmap(struct folio *folio, struct vm_area_struct *vma)
{
	WRITE_ONCE(folio->mapping, vma->anon_vma);
}

/** folio_add_file_rmap_ptes() - @nr PTEs now map @folio's pages from @page. */
void folio_add_file_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma)
{
	__folio_add_rmap_ptes(folio, page, nr, vma);
}

/** folio_add_file_rmap_pmd() - a PMD now maps the whole (PMD-sized) @folio. */
void folio_add_file_rmap_pmd(struct folio *folio, struct page *page, struct vm_area_struct *vma)
{
	long nr = (long)folio_nr_pages(folio), nr_pmdmapped = 0;

	bool first;
	int mapped;

	(void)page;
	first = fl_atomic_fetch_add(&folio->_entire_mapcount, 1, __ATOMIC_RELAXED) == 0;
	if (first)
		nr_pmdmapped = nr;
	if (!fl__page_mapcount) {
		if (folio_add_return_large_mapcount(folio, 1, vma) != 1)
			nr = 0;
		folio_mod_stat(folio, nr, nr_pmdmapped);
		return;
	}
	folio_add_return_large_mapcount(folio, 1, vma);
	if (first) {
		/* the pages no PTE maps yet start to count */
		mapped = fl_atomic_add_fetch(&folio->_nr_pages_mapped, ENTIRELY_MAPPED,
					     __ATOMIC_RELAXED);
		nr = mapped < 2 * ENTIRELY_MAPPED ? nr - (mapped & FOLIO_PAGES_MAPPED) : 0;
		if (nr < 0)
			nr = 0;
	} else {
		nr = 0;
	}
	folio_mod_stat(folio, nr, nr_pmdmapped);
}

/**
 * folio_remove_rmap_ptes() - @nr PTEs mapping pages of @folio from @page
 * were cleared.
 */
__always_inline void folio_remove_rmap_ptes(struct folio *folio, struct page *page, int nr,
					    struct vm_area_struct *vma)
{
	int left, i, last = 0;

	if (!folio_test_large(folio)) {
		if (fl_atomic_sub_fetch(&folio->_mapcount, nr, __ATOMIC_RELAXED) == 0)
			folio_mod_stat(folio, -1, 0);
		return;
	}
	if (fl__page_mapcount) {
		int mapped = ENTIRELY_MAPPED;

		folio_sub_return_large_mapcount(folio, nr, vma);
		for (i = 0; i < nr; i++)
			last += fl_atomic_sub_fetch(&page[i]._mapcount, 1, __ATOMIC_RELAXED) == 0;
		if (last)
			mapped = fl_atomic_sub_fetch(&folio->_nr_pages_mapped, last,
						     __ATOMIC_RELAXED);
		if (mapped >= ENTIRELY_MAPPED)
			return; /* nothing unmapped for good, or a PMD still maps it all */
		folio_mod_stat(folio, -last, 0);
		if (mapped && folio_test_anon(folio) && !folio_test_partially_mapped(folio))
			deferred_split_folio(folio, true);
		return;
	}
	left = folio_sub_return_large_mapcount(folio, nr, vma);
	if (left == 0) {
		folio_mod_stat(folio, -(long)folio_nr_pages(folio), 0);
		return;
	}
	if ((unsigned long)left < folio_nr_pages(folio) && !folio_entire_mapcount(folio) &&
	    folio_test_anon(folio) && !folio_test_partially_mapped(folio))
		deferred_split_folio(folio, true);
}

/* The PMD mapping @folio went away. */
void folio_remove_rmap_pmd(struct folio *folio, struct page *page, struct vm_area_struct *vma)
{
	long nr = (long)folio_nr_pages(folio), nr_pmdmapped = 0;
	bool last;
	int left;

	(void)page;
	last = fl_atomic_sub_fetch(&folio->_entire_mapcount, 1, __ATOMIC_RELAXED) == 0;
	if (last)
		nr_pmdmapped = nr;
	if (fl__page_mapcount) {
		folio_sub_return_large_mapcount(folio, 1, vma);
		if (last) {
			/* the pages no PTE maps stop counting */
			int mapped = fl_atomic_sub_fetch(&folio->_nr_pages_mapped, ENTIRELY_MAPPED,
							 __ATOMIC_RELAXED);

			nr = mapped < ENTIRELY_MAPPED ? nr - (mapped & FOLIO_PAGES_MAPPED) : 0;
			if (nr < 0)
				nr = 0;
		} else {
			nr = 0;
		}
		folio_mod_stat(folio, -nr, -nr_pmdmapped);
		if (nr && nr < nr_pmdmapped && folio_test_anon(folio) &&
		    !folio_test_partially_mapped(folio))
			deferred_split_folio(folio, true);
		return;
	}
	left = folio_sub_return_large_mapcount(folio, 1, vma);
	if (left == 0) {
		folio_mod_stat(folio, -nr, -nr_pmdmapped);
		return;
	}
	folio_mod_stat(folio, 0, -nr_pmdmapped);
	if (last && left < nr && folio_test_anon(folio) && !folio_test_partially_mapped(folio))
		deferred_split_folio(folio, true);
}

/* ---- page_vma_mapped_walk() ---- */

/* The address in @vma where page @pgoff of a folio would be, or -EFAULT. */
static unsigned long vma_address(const struct vm_area_struct *vma, pgoff_t pgoff,
				 unsigned long nr_pages)
{
	unsigned long address;

	if (pgoff >= vma->vm_pgoff) {
		address = vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT);
		if (address < vma->vm_start || address >= vma->vm_end)
			return -EFAULT;
	} else if (pgoff + nr_pages - 1 >= vma->vm_pgoff) {
		address = vma->vm_start; /* the folio starts below the VMA */
	} else {
		return -EFAULT;
	}
	return address;
}

/* Where the folio's last page would be mapped, plus one page, within the VMA. */
static unsigned long vma_address_end(const struct page_vma_mapped_walk *pvmw)
{
	const struct vm_area_struct *vma = pvmw->vma;
	unsigned long address;

	address = vma->vm_start + ((pvmw->pgoff + pvmw->nr_pages - vma->vm_pgoff) << PAGE_SHIFT);
	if (address < vma->vm_start || address > vma->vm_end)
		address = vma->vm_end;
	return address;
}

/* Does the entry map (or, for PVMW_MIGRATION, stand for) a page of the folio? */
static bool check_pte(const struct page_vma_mapped_walk *pvmw, pteval_t v)
{
	unsigned long pfn;

	if (pvmw->flags & PVMW_MIGRATION) {
		swp_entry_t e;

		if (!is_swap_pte(v))
			return false;
		e = pte_to_swp_entry(v);
		if (!is_migration_entry(e))
			return false;
		pfn = swp_offset_pfn(e);
	} else {
		if (!(v & _PAGE_PRESENT) || (v & _PAGE_SPECIAL))
			return false;
		pfn = pte_pfn(v);
	}
	return pfn - pvmw->pfn < pvmw->nr_pages;
}

void page_vma_mapped_walk_done(struct page_vma_mapped_walk *pvmw)
{
	if (pvmw->ptl)
		spin_unlock(pvmw->ptl);
	pvmw->ptl = NULL;
	pvmw->pte = NULL;
	pvmw->pmd = false;
}

/**
 * page_vma_mapped_walk() - the next entry in @pvmw->vma from
 * @pvmw->address on that maps the folio: a huge PMD (@pvmw->pmd, the PMD
 * table's lock held) or a PTE (@pvmw->pte, its table's lock held). Call
 * again for the next one; the lock moves along.
 * Return: false (and no lock held) once there are no more.
 */
bool page_vma_mapped_walk(struct page_vma_mapped_walk *pvmw)
{
	FL_LOCK_SITE_NAMED(site_pmd, "page_vma_mapped_walk");
	FL_LOCK_SITE_NAMED(site_pte, "page_vma_mapped_walk");
	struct mm_struct *mm = pvmw->vma->vm_mm;
	unsigned long end = vma_address_end(pvmw);

	if (pvmw->pmd) { /* a PMD maps the whole folio: nothing else in this VMA */
		page_vma_mapped_walk_done(pvmw);
		return false;
	}
	if (pvmw->pte) {
		pvmw->address += PAGE_SIZE;
		if (pvmw->address & (PMD_SIZE - 1)) {
			pvmw->pte++;
			goto next_pte;
		}
		spin_unlock(pvmw->ptl); /* on to the next table */
		pvmw->ptl = NULL;
		pvmw->pte = NULL;
	}
	while (pvmw->address < end) {
		unsigned long next = ALIGN_DOWN(pvmw->address, PMD_SIZE) + PMD_SIZE;
		struct pgtable *pmdt = walk_pmd_table(mm, pvmw->address);
		pteval_t *pmdslot, v;

		if (!pmdt) {
			pvmw->address = ALIGN_DOWN(pvmw->address, PUD_SIZE) + PUD_SIZE;
			continue;
		}
		pmdslot = &pmdt->e[pmd_index(pvmw->address)];
		v = entry_load(pmdslot);
		if (pmd_trans_huge(v)) {
			fl_spin_lock_at(&pmdt->ptl, &site_pmd);
			v = entry_load(pmdslot);
			if (pmd_trans_huge(v)) {
				if (!(pvmw->flags & PVMW_MIGRATION) &&
				    pte_pfn(v) - pvmw->pfn < pvmw->nr_pages) {
					pvmw->pmd = true;
					pvmw->pmdt = pmdt;
					pvmw->ptl = &pmdt->ptl;
					return true;
				}
				spin_unlock(&pmdt->ptl);
				return false; /* another folio maps here */
			}
			spin_unlock(&pmdt->ptl); /* split meanwhile: look at the PTEs */
		}
		if (!entry_is_table(v)) {
			pvmw->address = next;
			continue;
		}
		pvmw->ptet = entry_table(v);
		fl_spin_lock_at(&pvmw->ptet->ptl, &site_pte);
		if (entry_load(pmdslot) != v) { /* the table went: look again */
			spin_unlock(&pvmw->ptet->ptl);
			continue;
		}
		pvmw->ptl = &pvmw->ptet->ptl;
		pvmw->pte = &pvmw->ptet->e[pte_index(pvmw->address)];
next_pte:
		for (;;) {
			if (pvmw->address >= end)
				goto done;
			if (check_pte(pvmw, READ_ONCE(*pvmw->pte)))
				return true;
			pvmw->address += PAGE_SIZE;
			if (!(pvmw->address & (PMD_SIZE - 1)))
				break;
			pvmw->pte++;
		}
		spin_unlock(pvmw->ptl);
		pvmw->ptl = NULL;
		pvmw->pte = NULL;
	}
	return false;
done:
	page_vma_mapped_walk_done(pvmw);
	return false;
}

static void pvmw_init(struct page_vma_mapped_walk *pvmw, struct folio *folio,
		      struct vm_area_struct *vma, unsigned long address, unsigned int flags)
{
	*pvmw = (struct page_vma_mapped_walk){ .pfn = folio_pfn(folio),
					       .nr_pages = folio_nr_pages(folio),
					       .pgoff = folio->index,
					       .vma = vma,
					       .address = address,
					       .flags = flags };
}

/* ---- rmap_walk() ---- */

static void rmap_walk_anon(struct folio *folio, struct rmap_walk_control *rwc, bool locked)
{
	struct anon_vma *av, *ref = NULL;
	pgoff_t pgoff = folio->index;
	unsigned long nr = folio_nr_pages(folio);
	struct anon_vma_chain *avc;

	if (rwc->anon_unlocked) {
		ref = av = folio_get_anon_vma(folio);
		if (!av)
			return; /* not mapped any more */
	} else {
		av = READ_ONCE(folio->mapping);
		VM_BUG_ON(!folio_test_locked(folio) || !av);
	}
	if (!locked) {
		if (!rwc->try_lock) {
			anon_vma_lock_read(av);
		} else if (!down_read_trylock(&av->root->rwsem)) {
			rwc->contended = true;
			goto out;
		}
	}
	list_for_each_entry(avc, &av->rb_root, rb)
	{
		struct vm_area_struct *vma = avc->vma;
		unsigned long address = vma_address(vma, pgoff, nr);

		if (address == (unsigned long)-EFAULT)
			continue;
		if (!rwc->rmap_one(folio, vma, address, rwc->arg))
			break;
		if (rwc->done && rwc->done(folio))
			break;
	}
	if (!locked)
		anon_vma_unlock_read(av);
out:
	if (ref)
		put_anon_vma(ref);
}

static void rmap_walk_file(struct folio *folio, struct rmap_walk_control *rwc, bool locked)
{
	struct address_space *mapping = folio_mapping(folio);
	pgoff_t pgoff = folio->index;
	unsigned long nr = folio_nr_pages(folio);
	struct list_head *pos;

	if (!mapping)
		return;
	if (!locked) {
		if (!rwc->try_lock) {
			i_mmap_lock_read(mapping);
		} else if (!down_read_trylock(&mapping->i_mmap_rwsem)) {
			rwc->contended = true;
			return;
		}
	}
	/* not list_for_each_entry(): a VMA is cache-line aligned, the list head is not */
	list_for_each (pos, &mapping->i_mmap) {
		struct vm_area_struct *vma = list_entry(pos, struct vm_area_struct, shared);
		unsigned long address = vma_address(vma, pgoff, nr);

		if (address == (unsigned long)-EFAULT)
			continue;
		if (!rwc->rmap_one(folio, vma, address, rwc->arg))
			break;
		if (rwc->done && rwc->done(folio))
			break;
	}
	if (!locked)
		i_mmap_unlock_read(mapping);
}

/**
 * rmap_walk() - call @rwc->rmap_one for every VMA that may map @folio, at
 * the address where it would, until it returns false or @rwc->done says
 * so. Takes the anon_vma or i_mmap lock for reading.
 * Context: @folio is locked.
 */
void rmap_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	if (folio_test_anon(folio))
		rmap_walk_anon(folio, rwc, false);
	else
		rmap_walk_file(folio, rwc, false);
}

/* rmap_walk_locked() - the same, with the anon_vma or i_mmap lock already held. */
void rmap_walk_locked(struct folio *folio, struct rmap_walk_control *rwc)
{
	if (folio_test_anon(folio))
		rmap_walk_anon(folio, rwc, true);
	else
		rmap_walk_file(folio, rwc, true);
}

static int folio_not_mapped(struct folio *folio)
{
	return !folio_mapped(folio);
}

/* ---- try_to_migrate(): every mapping of an anon folio becomes a migration entry ---- */

static bool try_to_migrate_one(struct folio *folio, struct vm_area_struct *vma,
			       unsigned long address, void *arg)
{
	unsigned long flags = (unsigned long)arg;
	struct page_vma_mapped_walk pvmw;
	bool cleared = false;

	/* the split wants the PMD mapping frozen: 512 migration entries at once */
	if (flags & TTU_SPLIT_HUGE_PMD)
		cleared = split_huge_pmd_address(vma, address, true, folio);
	pvmw_init(&pvmw, folio, vma, address, 0);
	while (page_vma_mapped_walk(&pvmw)) {
		struct page *subpage;
		bool anon_exclusive;
		pteval_t pteval;
		swp_entry_t entry;

		/* PMD migration entries come with THP migration (compaction, NUMA) */
		VM_BUG_ON(pvmw.pmd);
		subpage = folio_page(folio, pte_pfn(READ_ONCE(*pvmw.pte)) - folio_pfn(folio));
		anon_exclusive = folio_test_anon(folio) && PageAnonExclusive(subpage);
		pteval = ptep_get_and_clear(pvmw.pte);
		cleared = true;
		if (pteval & _PAGE_DIRTY)
			folio_set_dirty(folio);
		/* folio_try_share_anon_rmap_pte(): no GUP pins in the model, so it succeeds */
		if (anon_exclusive)
			fl_clear_bit(PG_anon_exclusive, &subpage->flags);
		if (pteval & _PAGE_RW)
			entry = make_writable_migration_entry(page_to_pfn(subpage));
		else if (anon_exclusive)
			entry = make_readable_exclusive_migration_entry(page_to_pfn(subpage));
		else
			entry = make_readable_migration_entry(page_to_pfn(subpage));
		if (pteval & _PAGE_ACCESSED)
			entry = make_migration_entry_young(entry);
		if (pteval & _PAGE_DIRTY)
			entry = make_migration_entry_dirty(entry);
		entry_store(pvmw.pte, swp_entry_to_pte(entry));
		folio_remove_rmap_ptes(folio, subpage, 1, vma);
		fl_cost(FL_COST_MIGRATE_PTE);
		folio_put(folio); /* the mapping's reference; the caller holds one */
	}
	/* try_to_unmap_flush(): no CPU may still write through the old entries */
	if (cleared)
		flush_tlb_range(vma->vm_mm, address, address + folio_size(folio));
	return true;
}

/**
 * try_to_migrate() - replace every mapping of the locked anon @folio by a
 * migration entry. @flags: TTU_SPLIT_HUGE_PMD, TTU_RMAP_LOCKED.
 */
void try_to_migrate(struct folio *folio, unsigned long flags)
{
	struct rmap_walk_control rwc = { .rmap_one = try_to_migrate_one,
					 .arg = (void *)flags,
					 .done = folio_not_mapped };

	if (flags & TTU_RMAP_LOCKED)
		rmap_walk_locked(folio, &rwc);
	else
		rmap_walk(folio, &rwc);
}

/*
 * ---- try_to_unmap(): every mapping goes. A file folio faults back in; an
 * anon swap-cache folio leaves swap entries; a lazy-free one is discarded
 * unless it was written to since MADV_FREE ----
 */

struct ttu_arg {
	unsigned long flags;
	bool ret; /* false: a mapping had to stay (the walk stopped) */
};

/*
 * A lazy-free large folio's PTEs in this table, from @pvmw's, cleared as
 * one batch (folio_unmap_pte_batch(), 6.15): how many, and the bits they
 * had together in *@bits.
 */
static int lazyfree_pte_batch(struct page_vma_mapped_walk *pvmw, struct folio *folio,
			      unsigned long pfn, pteval_t *bits)
{
	unsigned long end = folio_pfn(folio) + folio_nr_pages(folio);
	unsigned long table_end = ALIGN_DOWN(pvmw->address, PMD_SIZE) + PMD_SIZE;
	int nr = 1, max = (int)(end - pfn), i;

	if ((unsigned long)max > (table_end - pvmw->address) >> PAGE_SHIFT)
		max = (int)((table_end - pvmw->address) >> PAGE_SHIFT);
	if ((unsigned long)max > (pvmw->vma->vm_end - pvmw->address) >> PAGE_SHIFT)
		max = (int)((pvmw->vma->vm_end - pvmw->address) >> PAGE_SHIFT);
	while (nr < max) {
		pteval_t v = READ_ONCE(pvmw->pte[nr]);

		if (!(v & _PAGE_PRESENT) || pte_pfn(v) != pfn + (unsigned long)nr)
			break;
		nr++;
	}
	*bits = 0;
	for (i = 0; i < nr; i++)
		*bits |= ptep_get_and_clear(&pvmw->pte[i]);
	return nr;
}

static bool try_to_unmap_one(struct folio *folio, struct vm_area_struct *vma, unsigned long address,
			     void *arg)
{
	struct ttu_arg *ta = arg;
	struct mm_struct *mm = vma->vm_mm;
	struct page_vma_mapped_walk pvmw;
	bool cleared = false;

	if (ta->flags & TTU_SPLIT_HUGE_PMD)
		cleared = split_huge_pmd_address(vma, address, false, folio);
	pvmw_init(&pvmw, folio, vma, address, 0);
	while (page_vma_mapped_walk(&pvmw)) {
		unsigned long pfn = pte_pfn(READ_ONCE(*pvmw.pte));
		struct page *subpage = folio_page(folio, pfn - folio_pfn(folio));
		pteval_t pteval;
		int nr = 1, i;

		VM_BUG_ON(pvmw.pmd);
		if (folio_test_anon(folio) && !folio_test_swapbacked(folio)) {
			/*
			 * lazy-free: written again since MADV_FREE (droppable
			 * memory is dropped written or not), or held, it stays
			 */
			bool redirtied;

			nr = lazyfree_pte_batch(&pvmw, folio, pfn, &pteval);
			cleared = true;
			if (pteval & _PAGE_DIRTY)
				folio_set_dirty(folio);
			redirtied = folio_test_dirty(folio) && !(vma->vm_flags & VM_DROPPABLE);
			if (redirtied || folio_ref_count(folio) != 1 + folio_mapcount(folio)) {
				for (i = 0; i < nr; i++)
					entry_store(&pvmw.pte[i],
						    pfn_pte(pfn + (unsigned long)i,
							    pteval & ~(pteval_t)PTE_PFN_MASK));
				if (redirtied)
					folio_set_swapbacked(folio);
				ta->ret = false;
				page_vma_mapped_walk_done(&pvmw);
				break;
			}
			add_mm_counter(mm, MM_ANONPAGES, -nr);
		} else if (folio_test_anon(folio)) {
			/* a swap-cache folio: the PTE names its slot (swap_duplicate()) */
			swp_entry_t entry =
				folio_swap_entry(folio, (unsigned long)(pfn - folio_pfn(folio)));
			bool exclusive = PageAnonExclusive(subpage);

			VM_BUG_ON(!folio_test_swapcache(folio));
			pteval = ptep_get_and_clear(pvmw.pte);
			cleared = true;
			if (pteval & _PAGE_DIRTY)
				folio_set_dirty(folio);
			swap_duplicate(entry);
			if (exclusive)
				fl_clear_bit(PG_anon_exclusive, &subpage->flags);
			entry_store(pvmw.pte,
				    swp_entry_to_pte(exclusive ? make_swap_entry_exclusive(entry)
							       : entry));
			add_mm_counter(mm, MM_ANONPAGES, -1);
			add_mm_counter(mm, MM_SWAPENTS, 1);
		} else {
			pteval = ptep_get_and_clear(pvmw.pte);
			cleared = true;
			if (pteval & _PAGE_DIRTY)
				folio_set_dirty(folio);
			add_mm_counter(mm, mm_counter_file(folio), -1);
		}
		folio_remove_rmap_ptes(folio, subpage, nr, vma);
		fl_cost_n(FL_COST_MIGRATE_PTE, (uint64_t)nr);
		folio_put_refs(folio, nr);
	}
	if (cleared)
		flush_tlb_range(vma->vm_mm, address, address + folio_size(folio));
	return ta->ret;
}

/**
 * try_to_unmap() - take every mapping of the locked @folio away (see
 * above); the caller tells success by folio_mapped().
 * @flags: TTU_SPLIT_HUGE_PMD, TTU_RMAP_LOCKED.
 */
void try_to_unmap(struct folio *folio, unsigned long flags)
{
	struct ttu_arg ta = { .flags = flags, .ret = true };
	struct rmap_walk_control rwc = { .rmap_one = try_to_unmap_one,
					 .arg = &ta,
					 .done = folio_not_mapped };

	if (flags & TTU_RMAP_LOCKED)
		rmap_walk_locked(folio, &rwc);
	else
		rmap_walk(folio, &rwc);
}

/* ---- folio_referenced(): were the folio's pages used since last asked? ---- */

struct folio_referenced_arg {
	int mapcount; /* mappings not yet seen: the walk stops at 0 */
	int referenced;
	unsigned long vm_flags;
};

/*
 * folio_referenced_one(): test and clear the accessed bit of every entry
 * in @vma that maps the folio (x86 flushes no TLB for a PTE's bit: a
 * stale entry only delays the next setting), then PG_young. A VMA with any
 * young entry counts once, however many entries were young.
 */
static bool folio_referenced_one(struct folio *folio, struct vm_area_struct *vma,
				 unsigned long address, void *arg)
{
	struct folio_referenced_arg *pra = arg;
	struct page_vma_mapped_walk pvmw;
	int referenced = 0, ptes = 0;

	pvmw_init(&pvmw, folio, vma, address, 0);
	while (page_vma_mapped_walk(&pvmw)) {
		pteval_t *slot = pvmw.pmd ? &pvmw.pmdt->e[pmd_index(pvmw.address)] : pvmw.pte;

		if (vma->vm_flags & VM_LOCKED) {
			ptes++;
			pra->mapcount--;
			/* only a fully mapped folio counts as mlocked */
			if (pvmw.pte && ptes != (int)pvmw.nr_pages)
				continue;
			page_vma_mapped_walk_done(&pvmw);
			pra->vm_flags |= VM_LOCKED;
			return false;
		}
		/*
		 * 6.18: an unshared swap-backed folio of an mm that is exiting
		 * (mm_users 0: exit_mmap() will free it) is not worth swapping
		 * out: -1, which folio_check_references() keeps. (6.18 also
		 * asks check_stable_address_space(): the model has no OOM reaper.)
		 */
		if (!fl_atomic_load(&vma->vm_mm->mm_users, __ATOMIC_ACQUIRE) &&
		    folio_test_anon(folio) && folio_test_swapbacked(folio) &&
		    !folio_maybe_mapped_shared(folio)) {
			pra->referenced = -1;
			page_vma_mapped_walk_done(&pvmw);
			return false;
		}
		if (fl_atomic_fetch_and(slot, ~_PAGE_ACCESSED, __ATOMIC_RELAXED) & _PAGE_ACCESSED)
			referenced++;
		pra->mapcount--;
	}
	if (referenced)
		folio_clear_idle(folio);
	if (folio_test_clear_young(folio))
		referenced++;
	if (referenced) {
		pra->referenced++;
		pra->vm_flags |= vma->vm_flags & ~VM_LOCKED;
	}
	return pra->mapcount > 0;
}

/**
 * folio_referenced() - how many VMAs map @folio with an accessed bit set,
 * clearing the bits.
 * @is_locked: the caller holds the folio lock (else an anon folio is
 * walked unlocked and any other one is trylocked).
 * @vm_flags: the flags of those VMAs (VM_LOCKED: one of them is mlocked).
 * Return: the count, or -1 if a lock the walk only tries was held.
 * Context: the caller holds a reference.
 */
int folio_referenced(struct folio *folio, bool is_locked, unsigned long *vm_flags)
{
	/* acquire: a swap-cache folio's first mapping publishes its rmap with it */
	struct folio_referenced_arg pra = {
		.mapcount = folio_test_large(folio)
				    ? folio_mapcount(folio)
				    : fl_atomic_load(&folio->_mapcount, __ATOMIC_ACQUIRE)
	};
	struct rmap_walk_control rwc = { .rmap_one = folio_referenced_one,
					 .arg = &pra,
					 .try_lock = true };
	bool we_locked = false;

	*vm_flags = 0;
	if (!pra.mapcount || !READ_ONCE(folio->mapping))
		return 0;
	if (!is_locked) {
		if (folio_test_anon(folio)) {
			rwc.anon_unlocked = true;
		} else {
			we_locked = folio_trylock(folio);
			if (!we_locked)
				return 1;
		}
	}
	rmap_walk(folio, &rwc);
	*vm_flags = pra.vm_flags;
	if (we_locked)
		folio_unlock(folio);
	return rwc.contended ? -1 : pra.referenced;
}

/* ---- remove_migration_ptes(): map the pages again ---- */

struct rmap_walk_arg {
	struct folio *folio;
	bool map_unused_to_zeropage;
};

/*
 * A zero-filled order-0 piece of a split THP need not be kept: map the
 * shared zero page instead (how splitting an underused THP frees memory).
 * Not for mlocked memory, nor where the zero page is forbidden (the model
 * treats its no_zero_page knob, our hosts' pvm_no_zero_page=1, as the
 * kernel's mm_forbids_zeropage()).
 */
static bool try_to_map_unused_to_zeropage(struct page_vma_mapped_walk *pvmw, struct folio *folio,
					  unsigned long idx)
{
	struct page *page = folio_page(folio, idx);

	if (folio_test_large(folio))
		return false;
	if (folio_test_mlocked(folio) || (pvmw->vma->vm_flags & VM_LOCKED) ||
	    mm_forbids_zeropage(pvmw->vma->vm_mm))
		return false;
	if (page_tag(page_to_pfn(page)) != 0) /* the model's memchr_inv(page, 0) */
		return false;
	add_mm_counter(pvmw->vma->vm_mm, MM_ANONPAGES, -1);
	entry_store(pvmw->pte, pfn_pte(fl__zero_pfn, _PAGE_PRESENT | _PAGE_SPECIAL));
	return true;
}

static bool remove_migration_pte(struct folio *folio, struct vm_area_struct *vma,
				 unsigned long address, void *arg)
{
	struct rmap_walk_arg *rmap_arg = arg;
	struct page_vma_mapped_walk pvmw;

	pvmw_init(&pvmw, rmap_arg->folio, vma, address, PVMW_SYNC | PVMW_MIGRATION);
	while (page_vma_mapped_walk(&pvmw)) {
		unsigned long idx = linear_page_index(vma, pvmw.address) - pvmw.pgoff;
		swp_entry_t entry = pte_to_swp_entry(READ_ONCE(*pvmw.pte));
		struct page *new = folio_page(folio, idx);
		pteval_t pte;

		VM_BUG_ON(pvmw.pmd);
		fl_cost(FL_COST_MIGRATE_PTE);
		if (rmap_arg->map_unused_to_zeropage &&
		    try_to_map_unused_to_zeropage(&pvmw, folio, idx))
			continue;
		folio_get(folio);
		pte = pfn_pte(page_to_pfn(new), _PAGE_PRESENT);
		if (is_migration_entry_young(entry))
			pte |= _PAGE_ACCESSED;
		if (folio_test_dirty(folio) && is_migration_entry_dirty(entry))
			pte |= _PAGE_DIRTY;
		if (is_writable_migration_entry(entry) && (vma->vm_flags & VM_WRITE))
			pte |= _PAGE_RW;
		if (folio_test_anon(folio))
			folio_add_anon_rmap_ptes(folio, new, 1, vma,
						 swp_type(entry) != SWP_MIGRATION_READ
							 ? RMAP_EXCLUSIVE
							 : 0);
		else
			folio_add_file_rmap_ptes(folio, new, 1, vma);
		entry_store(pvmw.pte, pte);
	}
	return true;
}

/**
 * remove_migration_ptes() - map @dst again wherever migration entries
 * stand for the pages of @src (the same folio, or a piece of it after a
 * split). @flags: RMP_LOCKED (the anon_vma is held), RMP_USE_SHARED_ZEROPAGE.
 */
void remove_migration_ptes(struct folio *src, struct folio *dst, int flags)
{
	struct rmap_walk_arg arg = { .folio = src,
				     .map_unused_to_zeropage = flags & RMP_USE_SHARED_ZEROPAGE };
	struct rmap_walk_control rwc = { .rmap_one = remove_migration_pte, .arg = &arg };

	if (flags & RMP_LOCKED)
		rmap_walk_locked(dst, &rwc);
	else
		rmap_walk(dst, &rwc);
}
