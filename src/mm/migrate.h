/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * migrate.h - folio migration (include/linux/migrate.h and
 * include/linux/migrate_mode.h in the kernel): what compaction calls.
 *
 * Conventions in this file: the folios handed to migrate_pages() are
 * isolated from the LRU by the caller (folio_isolate_lru(), which takes a
 * reference) and counted in NR_ISOLATED_ANON/FILE by it, and linked
 * through folio->lru, as 6.18's isolate_migratepages_block() leaves them.
 */
#ifndef FL_MM_MIGRATE_H
#define FL_MM_MIGRATE_H

#include "internal.h"

struct address_space;

/* include/linux/migrate_mode.h */
enum migrate_mode {
	MIGRATE_ASYNC,	    /* never block: trylock only, no writeback wait */
	MIGRATE_SYNC_LIGHT, /* may block, but not on I/O */
	MIGRATE_SYNC,	    /* may block on everything */
};

/* the reasons the model has callers for (6.18 lists more) */
enum migrate_reason {
	MR_COMPACTION,
	MR_MEMORY_FAILURE, /* the source is not put: the poison handler keeps it */
	MR_SYSCALL,	   /* move_pages(), migrate_pages() */
	MR_NUMA_MISPLACED, /* a large folio is not split to retry */
	MR_TYPES
};

/* allocate the destination of @folio (NULL: none to be had, -ENOMEM) */
typedef struct folio *new_folio_t(struct folio *folio, unsigned long private);
/* give back a destination that was not used (NULL callback: folio_put()) */
typedef void free_folio_t(struct folio *folio, unsigned long private);

#define NR_MAX_MIGRATE_PAGES_RETRY 10

int migrate_pages(struct list_head *from, new_folio_t get_new_folio, free_folio_t put_new_folio,
		  unsigned long private, enum migrate_mode mode, int reason,
		  unsigned int *ret_succeeded);
void putback_movable_pages(struct list_head *l);
int folio_migrate_mapping(struct address_space *mapping, struct folio *newfolio,
			  struct folio *folio, int extra_count);
void folio_migrate_flags(struct folio *newfolio, struct folio *folio);

/* folio_putback_lru() - an isolated folio goes back, and the isolation's reference with it */
static inline void folio_putback_lru(struct folio *folio)
{
	folio_add_lru(folio);
	folio_put(folio);
}

/* the NR_ISOLATED_* item an isolated folio counts in (folio_is_file_lru()) */
static inline enum node_stat_item folio_isolated_item(const struct folio *folio)
{
	return folio_test_swapbacked(folio) ? NR_ISOLATED_ANON : NR_ISOLATED_FILE;
}

#endif /* FL_MM_MIGRATE_H */
