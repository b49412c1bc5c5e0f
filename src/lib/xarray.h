/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xarray.h - the XArray: a radix tree of 64-slot nodes mapping an unsigned
 * long index to a pointer, as the kernel's lib/xarray.c and
 * include/linux/xarray.h define it, for the page cache of the model.
 *
 * Entries: a pointer with the two low bits clear (a folio), a value entry
 * (bit 0 set: shadow and swap entries), or an internal entry (low bits
 * 10): a node, a sibling (the offset of the canonical slot, < 62), the
 * retry entry or the zero entry. An entry of order N covers 2^N aligned
 * indices: it sits in the canonical (first) slot of the node whose slots
 * each cover 2^(N - N % 6) indices, and the next 2^(N % 6) - 1 slots hold
 * siblings naming that slot. Loading any index of the range gives the
 * entry and leaves the state on the canonical slot.
 *
 * The advanced API works on an xa_state (index, order, where it is in the
 * tree); the normal API (xa_load, xa_store, xa_erase) makes one per call
 * and walks from the root. Writers hold xa_lock. Readers in the model hold
 * it too: the platform has no RCU yet, so a node is freed at once and a
 * lockless reader could walk freed memory.
 *
 * Model-only accounting, kept in the xa_state so the library needs no
 * per-CPU state: xa_visits (nodes a walk entered or stepped through),
 * xa_stores (slots written), xa_nodes_alloc and xa_nodes_free. Callers
 * add them to the counters they report (the page cache: fl_xa_*).
 *
 * Conventions in this file: "offset" is a slot number in a node (0..63),
 * "shift" the index bits below a node's slots (0 for a leaf).
 */
#ifndef FL_LIB_XARRAY_H
#define FL_LIB_XARRAY_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include "../platform/platform.h"
#include "../platform/lock.h"

#define XA_CHUNK_SHIFT 6
#define XA_CHUNK_SIZE (1ul << XA_CHUNK_SHIFT)
#define XA_CHUNK_MASK (XA_CHUNK_SIZE - 1)

struct xarray {
	struct fl_spinlock xa_lock;
	void *xa_head;
};

struct xa_node {
	unsigned char shift;	 /* index bits below each slot */
	unsigned char offset;	 /* our slot in the parent */
	unsigned char count;	 /* slots that are not NULL */
	unsigned char nr_values; /* slots holding value entries */
	struct xa_node *parent;	 /* NULL at the top; the chain of spares in xa_alloc */
	struct xarray *array;
	void *slots[XA_CHUNK_SIZE];
};

/* ---- entries ---- */

static inline void *xa_mk_internal(unsigned long v)
{
	return (void *)((v << 2) | 2);
}

static inline unsigned long xa_to_internal(const void *entry)
{
	return (unsigned long)entry >> 2;
}

static inline bool xa_is_internal(const void *entry)
{
	return ((unsigned long)entry & 3) == 2;
}

static inline void *xa_mk_value(unsigned long v)
{
	return (void *)((v << 1) | 1);
}

static inline unsigned long xa_to_value(const void *entry)
{
	return (unsigned long)entry >> 1;
}

static inline bool xa_is_value(const void *entry)
{
	return (unsigned long)entry & 1;
}

/* A node pointer is an internal entry above the small ones (4096). */
static inline bool xa_is_node(const void *entry)
{
	return xa_is_internal(entry) && (unsigned long)entry > 4096;
}

static inline struct xa_node *xa_to_node(const void *entry)
{
	return (struct xa_node *)((unsigned long)entry - 2);
}

static inline void *xa_mk_node(const struct xa_node *node)
{
	return (void *)((unsigned long)node | 2);
}

static inline void *xa_mk_sibling(unsigned int offset)
{
	return xa_mk_internal(offset);
}

static inline unsigned long xa_to_sibling(const void *entry)
{
	return xa_to_internal(entry);
}

static inline bool xa_is_sibling(const void *entry)
{
	return xa_is_internal(entry) && entry < xa_mk_sibling(XA_CHUNK_SIZE - 1);
}

#define XA_RETRY_ENTRY xa_mk_internal(256)
#define XA_ZERO_ENTRY xa_mk_internal(257)

static inline bool xa_is_retry(const void *entry)
{
	return entry == XA_RETRY_ENTRY;
}

static inline bool xa_is_zero(const void *entry)
{
	return entry == XA_ZERO_ENTRY;
}

/* An errno as an internal entry, for the normal API's returns. */
static inline bool xa_is_err(const void *entry)
{
	return xa_is_internal(entry) && entry >= xa_mk_internal((unsigned long)-4095);
}

static inline int xa_err(const void *entry)
{
	return xa_is_err(entry) ? (int)((long)entry >> 2) : 0;
}

/* ---- the state of a walk ---- */

struct xa_state {
	struct xarray *xa;
	unsigned long xa_index;
	unsigned char xa_shift; /* the level the entry lives at: order - order % 6 */
	unsigned char xa_sibs;	/* siblings after the canonical slot: 2^(order % 6) - 1 */
	unsigned char xa_offset;
	struct xa_node *xa_node;  /* where we are; or one of XAS_* or an error */
	struct xa_node *xa_alloc; /* spare nodes (a chain through ->parent) */
	/* model-only accounting */
	unsigned long xa_visits, xa_stores, xa_nodes_alloc, xa_nodes_free;
};

/* xa_node values that are no node: beyond the tree, or start from the top */
#define XAS_BOUNDS ((struct xa_node *)1ul)
#define XAS_RESTART ((struct xa_node *)3ul)

#define XA_STATE(name, array, index)                                                               \
	struct xa_state name = { .xa = (array), .xa_index = (index), .xa_node = XAS_RESTART }

#define XA_STATE_ORDER(name, array, index, order)                                                  \
	struct xa_state name = { .xa = (array),                                                    \
				 .xa_index = (index) >> (order) << (order),                        \
				 .xa_shift = (order) - (order) % XA_CHUNK_SHIFT,                   \
				 .xa_sibs = (1u << ((order) % XA_CHUNK_SHIFT)) - 1,                \
				 .xa_node = XAS_RESTART }

static inline int xas_error(const struct xa_state *xas)
{
	return xa_err(xas->xa_node);
}

static inline void xas_set_err(struct xa_state *xas, long err)
{
	xas->xa_node = (struct xa_node *)xa_mk_internal((unsigned long)err);
}

/* Not on a node: an error, out of bounds or restarting (low bits set). */
static inline bool xas_invalid(const struct xa_state *xas)
{
	return (unsigned long)xas->xa_node & 3;
}

static inline bool xas_valid(const struct xa_state *xas)
{
	return !xas_invalid(xas);
}

/* A node, or the root (NULL). */
static inline bool xas_is_node(const struct xa_state *xas)
{
	return xas_valid(xas) && xas->xa_node;
}

static inline void xas_reset(struct xa_state *xas)
{
	xas->xa_node = XAS_RESTART;
}

static inline void xas_set(struct xa_state *xas, unsigned long index)
{
	xas->xa_index = index;
	xas->xa_node = XAS_RESTART;
}

static inline void xas_set_order(struct xa_state *xas, unsigned long index, unsigned int order)
{
	xas->xa_index = order < 8 * sizeof(long) ? index >> order << order : 0;
	xas->xa_shift = (unsigned char)(order - order % XA_CHUNK_SHIFT);
	xas->xa_sibs = (unsigned char)((1u << (order % XA_CHUNK_SHIFT)) - 1);
	xas->xa_node = XAS_RESTART;
}

#define xas_lock(xas) spin_lock(&(xas)->xa->xa_lock)
#define xas_unlock(xas) spin_unlock(&(xas)->xa->xa_lock)
#define xa_lock(xa) spin_lock(&(xa)->xa_lock)
#define xa_unlock(xa) spin_unlock(&(xa)->xa_lock)

/* ---- the advanced API (xa_lock held for anything that writes) ---- */

void *xas_load(struct xa_state *xas);
void *xas_store(struct xa_state *xas, void *entry);
bool xas_nomem(struct xa_state *xas);
void xas_destroy(struct xa_state *xas);
void *xas_find(struct xa_state *xas, unsigned long max);
void *xas_next(struct xa_state *xas);
void *xas_prev(struct xa_state *xas);
void *xas_prev_canonical(struct xa_state *xas);
unsigned int xas_get_order(struct xa_state *xas);

void xas_split_alloc(struct xa_state *xas, void *entry, unsigned int order);
void xas_split(struct xa_state *xas, void *entry, unsigned int order);
void xas_try_split(struct xa_state *xas, void *entry, unsigned int order);
unsigned int xas_try_split_min_order(unsigned int order);

/* ---- the normal API: one walk from the root per call ---- */

void xa_init(struct xarray *xa);
void xa_init_class(struct xarray *xa, const struct fl_lock_class *cls);
void *xa_load(struct xarray *xa, unsigned long index);
void *__xa_store(struct xarray *xa, unsigned long index, void *entry);
void *xa_store(struct xarray *xa, unsigned long index, void *entry);
void *__xa_erase(struct xarray *xa, unsigned long index);
void *xa_erase(struct xarray *xa, unsigned long index);
void *xa_store_order(struct xarray *xa, unsigned long index, unsigned int order, void *entry);
int xa_get_order(struct xarray *xa, unsigned long index);
/** xa_destroy() - free every node; the entries are the caller's. Return: nodes freed. */
unsigned long xa_destroy(struct xarray *xa);
/** xa_node_cache_shrink() - give the freed nodes the library keeps back to the host. */
void xa_node_cache_shrink(void);

static inline bool xa_empty(const struct xarray *xa)
{
	return xa->xa_head == NULL;
}

#endif /* FL_LIB_XARRAY_H */
