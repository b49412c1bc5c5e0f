/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * folio_batch.h - a fixed array of folio pointers (include/linux/
 * folio_batch.h, once pagevec.h, in the kernel), plus the page-counting
 * add of the "lru cache for smaller large folios" seed.
 *
 * Conventions in this file: @fb is a batch; ->nr is read without the owner's
 * lock by lru_add_drain_all()'s needs-drain check, so it is written with
 * WRITE_ONCE.
 */
#ifndef FL_MM_FOLIO_BATCH_H
#define FL_MM_FOLIO_BATCH_H

#include "folio.h"

static inline void folio_batch_init(struct folio_batch *fb)
{
	WRITE_ONCE(fb->nr, 0);
	fb->i = 0;
	fb->nr_pages = 0;
	fb->percpu_pvec_drained = false;
}

static inline void folio_batch_reinit(struct folio_batch *fb)
{
	WRITE_ONCE(fb->nr, 0);
	fb->i = 0;
	fb->nr_pages = 0;
}

static inline unsigned int folio_batch_count(const struct folio_batch *fb)
{
	return READ_ONCE(fb->nr);
}

static inline unsigned int folio_batch_space(const struct folio_batch *fb)
{
	return FOLIO_BATCH_SIZE - fb->nr;
}

/**
 * folio_batch_add() - append @folio.
 * Return: slots left; 0 means the batch is now full and must be flushed.
 * Context: the batch must not be full.
 */
static inline unsigned int folio_batch_add(struct folio_batch *fb, struct folio *folio)
{
	fb->folios[fb->nr] = folio;
	WRITE_ONCE(fb->nr, fb->nr + 1);
	return folio_batch_space(fb);
}

static inline struct folio *folio_batch_next(struct folio_batch *fb)
{
	if (fb->i == fb->nr)
		return NULL;
	return fb->folios[fb->i++];
}

#endif /* FL_MM_FOLIO_BATCH_H */
