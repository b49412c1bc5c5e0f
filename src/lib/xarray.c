// SPDX-License-Identifier: GPL-2.0-only
/*
 * xarray.c - the XArray of lib/xarray.c: loads, stores (multi-index
 * entries included), walks forwards and backwards, and the splits of a
 * multi-index entry the page cache needs when a large folio splits
 * (xas_split_alloc + xas_split for a uniform split, xas_try_split for the
 * one-level-at-a-time non-uniform one), plus the seed's
 * xas_prev_canonical().
 *
 * Conventions in this file: the caller holds xa_lock for anything that
 * writes (xarray.h says why readers do too); "top" means the root slot
 * xa_head, which holds either a lone entry for index 0 or the top node.
 */
#include <string.h>
#include "../platform/cost.h"
#include "xarray.h"

static const struct fl_lock_class xa_lock_class = { .name = "xa->xa_lock",
						    .rank = 0,
						    .kind = FL_LOCK_SPIN };

void xa_init_class(struct xarray *xa, const struct fl_lock_class *cls)
{
	fl_spin_lock_init(&xa->xa_lock, cls);
	xa->xa_head = NULL;
}

void xa_init(struct xarray *xa)
{
	xa_init_class(xa, &xa_lock_class);
}

/* The highest index a node (or a lone top entry) covers. */
static unsigned long max_index(const void *entry)
{
	if (!xa_is_node(entry))
		return 0;
	return (XA_CHUNK_SIZE << xa_to_node(entry)->shift) - 1;
}

/* The highest index the state's entry would cover. */
static unsigned long xas_max(const struct xa_state *xas)
{
	unsigned long max = xas->xa_index;

	if (xas->xa_shift || xas->xa_sibs) {
		unsigned long mask = ((xas->xa_sibs + 1ul) << xas->xa_shift) - 1;

		max |= mask;
		if (mask == max)
			max++;
	}
	return max;
}

/* The first index of slot @offset of @node, for the state's index. */
static unsigned long slot_index(unsigned long index, const struct xa_node *node,
				unsigned int offset)
{
	unsigned long base = index & ~((XA_CHUNK_SIZE << node->shift) - 1);

	return base + ((unsigned long)offset << node->shift);
}

static void *set_bounds(struct xa_state *xas)
{
	xas->xa_node = XAS_BOUNDS;
	return NULL;
}

/* ---- nodes ---- */

/*
 * The node cache (the kernel's radix_tree_node slab): freed nodes are kept
 * for the next allocation rather than given back to the host, up to
 * NODE_CACHE_MAX of them, so a workload that builds and drops page caches
 * does not pay the host's page faults for every node. A raw lock: it is no
 * lock of the kernel's.
 */
#define NODE_CACHE_MAX 65536
static struct {
	struct fl_spinlock lock;
	struct xa_node *free; /* a chain through ->parent */
	unsigned long nr;
} node_cache;

static struct xa_node *node_cache_get(void)
{
	struct xa_node *node;

	fl_raw_spin_lock(&node_cache.lock);
	node = node_cache.free;
	if (node) {
		node_cache.free = node->parent;
		node_cache.nr--;
	}
	fl_raw_spin_unlock(&node_cache.lock);
	return node ? node : fl_malloc(sizeof(*node));
}

static void node_cache_put(struct xa_node *node)
{
	fl_raw_spin_lock(&node_cache.lock);
	if (node_cache.nr < NODE_CACHE_MAX) {
		node->parent = node_cache.free;
		node_cache.free = node;
		node_cache.nr++;
		node = NULL;
	}
	fl_raw_spin_unlock(&node_cache.lock);
	fl_free(node);
}

/** xa_node_cache_shrink() - give every cached node back to the host. */
void xa_node_cache_shrink(void)
{
	for (;;) {
		struct xa_node *node;

		fl_raw_spin_lock(&node_cache.lock);
		node = node_cache.free;
		if (node) {
			node_cache.free = node->parent;
			node_cache.nr--;
		}
		fl_raw_spin_unlock(&node_cache.lock);
		if (!node)
			return;
		fl_free(node);
	}
}

/* A zeroed node, counted as an allocation. */
static struct xa_node *node_alloc_zeroed(struct xa_state *xas)
{
	struct xa_node *node = node_cache_get();

	if (!node)
		return NULL;
	memset(node, 0, sizeof(*node));
	xas->xa_nodes_alloc++;
	return node;
}

static struct xa_node *node_new(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_alloc;

	if (node) {
		xas->xa_alloc = node->parent;
		memset(node, 0, sizeof(*node));
		return node;
	}
	node = node_alloc_zeroed(xas);
	if (!node)
		xas_set_err(xas, -ENOMEM);
	return node;
}

static void node_free(struct xa_state *xas, struct xa_node *node)
{
	node_cache_put(node);
	xas->xa_nodes_free++;
}

/*
 * A node of @shift in the state's current slot (or at the top when the
 * state is at the top); the parent counts one more slot in use.
 */
static struct xa_node *xas_alloc(struct xa_state *xas, unsigned int shift)
{
	struct xa_node *parent = xas->xa_node;
	struct xa_node *node = node_new(xas);

	if (!node)
		return NULL;
	node->shift = (unsigned char)shift;
	node->array = xas->xa;
	if (parent) {
		node->offset = xas->xa_offset;
		node->parent = parent;
		parent->count++;
	}
	return node;
}

/* Free @top and every node below it (their entries are not ours). */
static void xas_free_nodes(struct xa_state *xas, struct xa_node *top)
{
	struct xa_node *node = top;
	unsigned int offset = 0;

	for (;;) {
		void *entry = offset < XA_CHUNK_SIZE ? node->slots[offset] : NULL;

		if (offset < XA_CHUNK_SIZE && xa_is_node(entry)) {
			node = xa_to_node(entry);
			offset = 0;
			continue;
		}
		if (offset < XA_CHUNK_SIZE) {
			offset++;
			continue;
		}
		/* every slot of @node done: free it, go on in the parent */
		{
			struct xa_node *parent = node->parent;
			unsigned int next = node->offset + 1u;

			node_free(xas, node);
			if (node == top)
				return;
			node = parent;
			offset = next;
		}
	}
}

/* ---- loads ---- */

/* Move into @node: the slot for the state's index, the canonical one for a sibling. */
static void *xas_descend(struct xa_state *xas, struct xa_node *node)
{
	unsigned int offset = (unsigned int)(xas->xa_index >> node->shift) & XA_CHUNK_MASK;
	void *entry = node->slots[offset];

	if (xa_is_sibling(entry)) {
		offset = (unsigned int)xa_to_sibling(entry);
		entry = node->slots[offset];
	}
	xas->xa_node = node;
	xas->xa_offset = (unsigned char)offset;
	xas->xa_visits++;
	fl_cost_xa_node(node);
	return entry;
}

/* Where a load starts: the current slot again, or the top. */
static void *xas_start(struct xa_state *xas)
{
	void *entry;

	if (xas_is_node(xas))
		return xas_descend(xas, xas->xa_node);
	if (xas_error(xas))
		return NULL;
	entry = xas->xa->xa_head;
	if (!xa_is_node(entry)) {
		if (xas->xa_index)
			return set_bounds(xas);
	} else if ((xas->xa_index >> xa_to_node(entry)->shift) > XA_CHUNK_MASK) {
		return set_bounds(xas);
	}
	xas->xa_node = NULL;
	return entry;
}

/**
 * xas_load() - the entry at the state's index, walking down to the level
 * of the state's order. The state is left on the entry's canonical slot.
 * Return: the entry, or NULL (also beyond the tree: xa_node XAS_BOUNDS).
 */
void *xas_load(struct xa_state *xas)
{
	void *entry = xas_start(xas);

	while (xa_is_node(entry)) {
		struct xa_node *node = xa_to_node(entry);

		if (xas->xa_shift > node->shift)
			break;
		entry = xas_descend(xas, node);
		if (!node->shift)
			break;
	}
	return entry;
}

/**
 * xas_get_order() - the order of the entry the state is on: the level's
 * shift plus the log2 of its slot and the siblings after it.
 */
unsigned int xas_get_order(struct xa_state *xas)
{
	unsigned int order, offset;
	struct xa_node *node = xas->xa_node;

	if (!xas_is_node(xas))
		return 0;
	order = node->shift;
	for (;;) {
		offset = xas->xa_offset + (1u << (order - node->shift));
		if (offset >= XA_CHUNK_SIZE || !xa_is_sibling(node->slots[offset]))
			break;
		order++;
	}
	return order;
}

/* ---- stores ---- */

/*
 * Grow the tree upwards until the top node covers the state's range.
 * Return: the shift a node below the top must have to hold the range's
 * slot (0 for an entry that fits in xa_head), or -ENOMEM.
 */
static int xas_expand(struct xa_state *xas, void *head)
{
	struct xarray *xa = xas->xa;
	struct xa_node *node = NULL;
	unsigned long max = xas_max(xas);
	unsigned int shift = 0;

	if (!head) {
		if (max == 0)
			return 0;
		while ((max >> shift) >= XA_CHUNK_SIZE)
			shift += XA_CHUNK_SHIFT;
		return (int)(shift + XA_CHUNK_SHIFT);
	}
	if (xa_is_node(head)) {
		node = xa_to_node(head);
		shift = node->shift + XA_CHUNK_SHIFT;
	}
	xas->xa_node = NULL;
	while (max > max_index(head)) {
		node = xas_alloc(xas, shift);
		if (!node)
			return -ENOMEM;
		node->count = 1;
		node->nr_values = xa_is_value(head);
		node->slots[0] = head;
		if (xa_is_node(head)) {
			xa_to_node(head)->offset = 0;
			xa_to_node(head)->parent = node;
		}
		head = xa_mk_node(node);
		__atomic_store_n(&xa->xa_head, head, __ATOMIC_RELEASE);
		xas->xa_stores++;
		shift += XA_CHUNK_SHIFT;
	}
	xas->xa_node = node;
	return (int)shift;
}

/*
 * Make the path down to the slot the state's entry goes in, creating
 * nodes as needed; stop early at a lone entry covering a larger range
 * (the store then replaces it). @allow_root: an entry for index 0 alone
 * may sit in xa_head.
 * Return: what the slot holds now.
 */
static void *xas_create(struct xa_state *xas, bool allow_root)
{
	struct xarray *xa = xas->xa;
	struct xa_node *node = xas->xa_node;
	unsigned int order = xas->xa_shift;
	void *entry, **slot;
	int shift;

	if (!xas_is_node(xas)) {
		if (xas_error(xas))
			return NULL;
		xas->xa_node = NULL;
		entry = xa->xa_head;
		shift = xas_expand(xas, entry);
		if (shift < 0)
			return NULL;
		if (!shift && !allow_root)
			shift = XA_CHUNK_SHIFT;
		xas->xa_node = NULL;
		entry = xa->xa_head;
		slot = &xa->xa_head;
	} else {
		shift = node->shift;
		entry = node->slots[xas->xa_offset];
		slot = &node->slots[xas->xa_offset];
	}
	while ((unsigned int)shift > order) {
		shift -= XA_CHUNK_SHIFT;
		if (!entry) {
			node = xas_alloc(xas, (unsigned int)shift);
			if (!node)
				break;
			__atomic_store_n(slot, xa_mk_node(node), __ATOMIC_RELEASE);
			xas->xa_stores++;
		} else if (xa_is_node(entry)) {
			node = xa_to_node(entry);
		} else {
			break;
		}
		entry = xas_descend(xas, node);
		slot = &node->slots[xas->xa_offset];
	}
	return entry;
}

/* Drop the empty node the state is in, and its empty ancestors. */
static void xas_delete_node(struct xa_state *xas);

/* With one entry left in slot 0 of the top node, let xa_head hold it. */
static void xas_shrink(struct xa_state *xas)
{
	struct xarray *xa = xas->xa;
	struct xa_node *node = xas->xa_node;

	for (;;) {
		void *entry;

		if (node->count != 1)
			break;
		entry = node->slots[0];
		if (!entry || (!xa_is_node(entry) && node->shift))
			break;
		xas->xa_node = XAS_BOUNDS;
		__atomic_store_n(&xa->xa_head, entry, __ATOMIC_RELEASE);
		xas->xa_stores++;
		node_free(xas, node);
		if (!xa_is_node(entry))
			break;
		node = xa_to_node(entry);
		node->parent = NULL;
	}
}

static void xas_delete_node(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;

	for (;;) {
		struct xa_node *parent;

		if (node->count)
			break;
		parent = node->parent;
		xas->xa_node = parent;
		xas->xa_offset = node->offset;
		node_free(xas, node);
		if (!parent) {
			__atomic_store_n(&xas->xa->xa_head, NULL, __ATOMIC_RELEASE);
			xas->xa_node = XAS_BOUNDS;
			return;
		}
		__atomic_store_n(&parent->slots[xas->xa_offset], NULL, __ATOMIC_RELEASE);
		parent->count--;
		node = parent;
	}
	if (!node->parent)
		xas_shrink(xas);
}

/**
 * xas_store() - put @entry at the state's index and order (NULL erases):
 * the canonical slot gets @entry and the next xa_sibs slots siblings.
 * Storing where a larger entry lies replaces its canonical slot only;
 * erasing a canonical slot erases its siblings too. Nodes the store makes
 * unreachable, or empty, are freed.
 * Return: the entry that was there, or NULL (check xas_error()).
 */
void *xas_store(struct xa_state *xas, void *entry)
{
	struct xa_node *node;
	void **slot, *first, *next;
	unsigned int offset, max;
	int count = 0, values = 0;

	if (entry)
		first = xas_create(xas, !xa_is_node(entry) && !xa_is_zero(entry));
	else
		first = xas_load(xas);
	if (xas_invalid(xas))
		return first;
	node = xas->xa_node;
	if (node && xas->xa_shift < node->shift)
		xas->xa_sibs = 0;
	if (first == entry && !xas->xa_sibs)
		return first;
	offset = xas->xa_offset;
	max = offset + xas->xa_sibs;
	next = first;
	slot = node ? &node->slots[offset] : &xas->xa->xa_head;
	for (;;) {
		__atomic_store_n(slot, entry, __ATOMIC_RELEASE);
		xas->xa_stores++;
		if (xa_is_node(next) && (!node || node->shift))
			xas_free_nodes(xas, xa_to_node(next));
		if (!node)
			break;
		count += !next - !entry;
		values += !xa_is_value(first) - !xa_is_value(entry);
		if (entry) {
			if (offset == max)
				break;
			if (!xa_is_sibling(entry))
				entry = xa_mk_sibling(xas->xa_offset);
		} else if (offset == XA_CHUNK_MASK) {
			break;
		}
		next = node->slots[++offset];
		if (!xa_is_sibling(next)) {
			if (!entry && offset > max)
				break;
			first = next;
		}
		slot++;
	}
	if (node && (count || values)) {
		node->count = (unsigned char)(node->count + count);
		node->nr_values = (unsigned char)(node->nr_values + values);
		if (count < 0)
			xas_delete_node(xas);
	}
	return first;
}

/**
 * xas_nomem() - after an -ENOMEM, allocate a spare node and say to retry.
 * Return: true to retry the operation.
 */
bool xas_nomem(struct xa_state *xas)
{
	struct xa_node *node;

	if (xas_error(xas) != -ENOMEM) {
		xas_destroy(xas);
		return false;
	}
	node = node_alloc_zeroed(xas);
	if (!node)
		return false;
	node->parent = xas->xa_alloc;
	xas->xa_alloc = node;
	xas->xa_node = XAS_RESTART;
	return true;
}

/** xas_destroy() - free the spare nodes the state still holds. */
void xas_destroy(struct xa_state *xas)
{
	while (xas->xa_alloc) {
		struct xa_node *node = xas->xa_alloc;

		xas->xa_alloc = node->parent;
		node_free(xas, node);
	}
}

/* ---- walks ---- */

/*
 * From the slot the state is on, step up while the slot is past either
 * end of its node, then down to the leaf holding the state's index.
 * Return: the raw slot (a sibling is returned as such), or NULL at the
 * ends of the tree (xa_node XAS_BOUNDS).
 */
static void *xas_step_slow(struct xa_state *xas, int dir)
{
	struct xa_node *node = xas->xa_node;
	int offset = (int)xas->xa_offset + dir;
	void *entry;

	while (offset < 0 || offset >= (int)XA_CHUNK_SIZE) {
		offset = (int)node->offset + dir;
		node = node->parent;
		if (!node)
			return set_bounds(xas);
		xas->xa_visits++;
		fl_cost_xa_node(node);
	}
	for (;;) {
		entry = node->slots[offset];
		if (!xa_is_node(entry))
			break;
		node = xa_to_node(entry);
		offset = (int)(xas->xa_index >> node->shift) & (int)XA_CHUNK_MASK;
		xas->xa_visits++;
		fl_cost_xa_node(node);
	}
	xas->xa_node = node;
	xas->xa_offset = (unsigned char)offset;
	return entry;
}

/**
 * xas_next() - the slot after the current one (index + 1), raw: a sibling
 * comes back as a sibling. Within a leaf it is one step; at the node's
 * end it climbs and descends.
 */
void *xas_next(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;

	if (!xas_is_node(xas)) {
		if (!node) {
			xas->xa_index++;
			return set_bounds(xas);
		}
		if (node != XAS_BOUNDS)
			return xas_load(xas);
		return NULL;
	}
	xas->xa_index++;
	if (!node->shift && xas->xa_offset < XA_CHUNK_MASK) {
		xas->xa_offset++;
		return node->slots[xas->xa_offset];
	}
	return xas_step_slow(xas, 1);
}

/** xas_prev() - the slot before the current one (index - 1), raw. */
void *xas_prev(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;

	if (!xas_is_node(xas)) {
		if (!node) {
			xas->xa_index--;
			return set_bounds(xas);
		}
		if (node != XAS_BOUNDS)
			return xas_load(xas);
		return NULL;
	}
	xas->xa_index--;
	if (!node->shift && xas->xa_offset > 0) {
		xas->xa_offset--;
		return node->slots[xas->xa_offset];
	}
	return xas_step_slow(xas, -1);
}

/**
 * xas_prev_canonical() - the entry before the one the state is on (seed
 * 002): step to the previous slot, and from a sibling to its canonical
 * slot, so every step lands on the first index of an entry; climb and
 * descend (to the last slot of each node) across node boundaries. The
 * state's index becomes the entry's first index.
 * Return: the entry, NULL for an empty slot (or before index 0: the
 * state is then out of bounds).
 */
void *xas_prev_canonical(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;
	unsigned int offset;
	void *entry;

	if (!xas_is_node(xas))
		return xas_prev(xas);
	offset = xas->xa_offset;
	if (!slot_index(xas->xa_index, node, offset))
		return set_bounds(xas);
	while (!offset) {
		offset = node->offset;
		node = node->parent;
		xas->xa_visits++;
		fl_cost_xa_node(node);
	}
	offset--;
	for (;;) {
		entry = node->slots[offset];
		if (xa_is_sibling(entry)) {
			offset = (unsigned int)xa_to_sibling(entry);
			entry = node->slots[offset];
		}
		if (!xa_is_node(entry))
			break;
		/* the index moves into this slot's range before we enter it */
		xas->xa_index = slot_index(xas->xa_index, node, offset);
		node = xa_to_node(entry);
		offset = XA_CHUNK_MASK;
		xas->xa_visits++;
		fl_cost_xa_node(node);
	}
	xas->xa_index = slot_index(xas->xa_index, node, offset);
	xas->xa_node = node;
	xas->xa_offset = (unsigned char)offset;
	return entry;
}

/**
 * xas_find() - the first entry at or after the state's index, up to
 * @max, skipping empty slots and siblings (so only canonical entries).
 * Return: the entry, or NULL (the state is then out of bounds).
 */
void *xas_find(struct xa_state *xas, unsigned long max)
{
	void *entry;

	if (xas_error(xas) || xas->xa_node == XAS_BOUNDS)
		return NULL;
	if (xas->xa_index > max)
		return set_bounds(xas);
	if (!xas->xa_node) {
		xas->xa_index = 1;
		return set_bounds(xas);
	}
	if (xas->xa_node == XAS_RESTART) {
		entry = xas_load(xas);
		if (entry || !xas_is_node(xas))
			return entry;
	}
	/* on a slot already (or just loaded an empty one): move past it */
	for (;;) {
		struct xa_node *node = xas->xa_node;
		unsigned int offset = xas->xa_offset + 1u;

		while (offset == XA_CHUNK_SIZE) {
			offset = node->offset + 1u;
			node = node->parent;
			if (!node)
				return set_bounds(xas);
			xas->xa_visits++;
			fl_cost_xa_node(node);
		}
		xas->xa_index = slot_index(xas->xa_index, node, offset);
		if (xas->xa_index > max)
			return set_bounds(xas);
		xas->xa_node = node;
		xas->xa_offset = (unsigned char)offset;
		entry = node->slots[offset];
		while (xa_is_node(entry)) {
			node = xa_to_node(entry);
			xas->xa_node = node;
			xas->xa_offset = 0;
			xas->xa_visits++;
			fl_cost_xa_node(node);
			entry = node->slots[0];
		}
		if (entry && !xa_is_sibling(entry))
			return entry;
	}
}

/* ---- splitting a multi-index entry ---- */

/**
 * xas_split_alloc() - the nodes xas_split() will need to split an entry
 * of @order into entries of the state's order, filled in already: a
 * leaf level of 2^(order % 6) nodes when the new entries live a level
 * below the old one, none when they live at its level. Splits that span
 * more than one new level are not supported (-EINVAL).
 */
void xas_split_alloc(struct xa_state *xas, void *entry, unsigned int order)
{
	unsigned int sibs = (1u << (order % XA_CHUNK_SHIFT)) - 1;
	unsigned int mask = xas->xa_sibs, shift = xas->xa_shift;

	if (shift + XA_CHUNK_SHIFT > order)
		return;
	if (shift + 2 * XA_CHUNK_SHIFT <= order) {
		xas_set_err(xas, -EINVAL);
		return;
	}
	do {
		struct xa_node *node = node_cache_get();
		void *sibling = NULL;
		unsigned int i;

		if (!node) {
			xas_destroy(xas);
			xas_set_err(xas, -ENOMEM);
			return;
		}
		xas->xa_nodes_alloc++;
		/* every field is set here or by xas_split(), every slot below */
		node->nr_values = 0;
		node->array = xas->xa;
		for (i = 0; i < XA_CHUNK_SIZE; i++) {
			if ((i & mask) == 0) {
				node->slots[i] = entry;
				sibling = xa_mk_sibling(i);
			} else {
				node->slots[i] = sibling;
			}
		}
		node->parent = xas->xa_alloc;
		xas->xa_alloc = node;
	} while (sibs-- > 0);
}

/**
 * xas_split() - replace the entry of @order at the state's index by
 * entries of the state's order, every one still @entry: new leaf nodes
 * from xas_split_alloc() in the old entry's slots, or the old entry's
 * slots re-divided into canonical slots and siblings. Cannot fail. The
 * slots are written from the last to the first.
 */
void xas_split(struct xa_state *xas, void *entry, unsigned int order)
{
	unsigned int sibs = (1u << (order % XA_CHUNK_SHIFT)) - 1;
	unsigned int offset;
	struct xa_node *node;
	void *curr = xas_load(xas);
	int values = 0;

	if (!xas_is_node(xas))
		return;
	node = xas->xa_node;
	offset = xas->xa_offset + sibs;
	do {
		if (xas->xa_shift < node->shift) {
			struct xa_node *child = xas->xa_alloc;

			xas->xa_alloc = child->parent;
			child->shift = (unsigned char)(node->shift - XA_CHUNK_SHIFT);
			child->offset = (unsigned char)offset;
			child->count = XA_CHUNK_SIZE;
			child->nr_values = xa_is_value(entry) ? XA_CHUNK_SIZE : 0;
			child->parent = node;
			__atomic_store_n(&node->slots[offset], xa_mk_node(child), __ATOMIC_RELEASE);
			xas->xa_stores += 1 + XA_CHUNK_SIZE;
			values -= xa_is_value(curr);
		} else {
			unsigned int canon = offset - xas->xa_sibs;

			__atomic_store_n(&node->slots[canon], entry, __ATOMIC_RELEASE);
			xas->xa_stores++;
			while (offset > canon) {
				node->slots[offset--] = xa_mk_sibling(canon);
				xas->xa_stores++;
			}
			values += (xa_is_value(entry) - xa_is_value(curr)) * (xas->xa_sibs + 1);
		}
	} while (offset-- > xas->xa_offset);
	node->nr_values = (unsigned char)(node->nr_values + values);
}

/**
 * xas_try_split_min_order() - the lowest order one xas_try_split() call
 * reaches from @order: the bottom of the entry's own level, or, for an
 * entry filling one slot (order a multiple of 6), one order below it with
 * one new node.
 */
unsigned int xas_try_split_min_order(unsigned int order)
{
	if (order % XA_CHUNK_SHIFT == 0)
		return order ? order - 1 : 0;
	return order - order % XA_CHUNK_SHIFT;
}

/**
 * xas_try_split() - split the entry of @order at the state's index into
 * entries of the state's order, which must be at least
 * xas_try_split_min_order(@order). At the entry's own level the slots are
 * re-divided; an entry filling one slot gets one new node below it,
 * allocated without waiting (-ENOMEM on failure, nothing changed).
 */
void xas_try_split(struct xa_state *xas, void *entry, unsigned int order)
{
	unsigned int sibs = (1u << (order % XA_CHUNK_SHIFT)) - 1;
	unsigned int offset, canon, i;
	struct xa_node *node, *child;
	void *curr = xas_load(xas), *sibling = NULL;

	if (!xas_is_node(xas))
		return;
	node = xas->xa_node;
	if (xas->xa_shift == node->shift) {
		/* the same level: new canonical slots every xa_sibs + 1 */
		offset = xas->xa_offset + sibs;
		do {
			canon = offset - xas->xa_sibs;
			__atomic_store_n(&node->slots[canon], entry, __ATOMIC_RELEASE);
			xas->xa_stores++;
			while (offset > canon) {
				node->slots[offset--] = xa_mk_sibling(canon);
				xas->xa_stores++;
			}
		} while (offset-- > xas->xa_offset);
		node->nr_values = (unsigned char)(node->nr_values +
						  (xa_is_value(entry) - xa_is_value(curr)) *
							  (int)(sibs + 1));
		return;
	}
	if ((unsigned int)xas->xa_shift + XA_CHUNK_SHIFT != node->shift || sibs) {
		xas_set_err(xas, -EINVAL);
		return;
	}
	child = node_alloc_zeroed(xas);
	if (!child) {
		xas_set_err(xas, -ENOMEM);
		return;
	}
	child->array = xas->xa;
	child->shift = xas->xa_shift;
	child->offset = xas->xa_offset;
	child->count = XA_CHUNK_SIZE;
	child->nr_values = xa_is_value(entry) ? XA_CHUNK_SIZE : 0;
	child->parent = node;
	for (i = 0; i < XA_CHUNK_SIZE; i++) {
		if ((i & xas->xa_sibs) == 0) {
			child->slots[i] = entry;
			sibling = xa_mk_sibling(i);
		} else {
			child->slots[i] = sibling;
		}
	}
	__atomic_store_n(&node->slots[xas->xa_offset], xa_mk_node(child), __ATOMIC_RELEASE);
	xas->xa_stores += 1 + XA_CHUNK_SIZE;
	node->nr_values = (unsigned char)(node->nr_values - xa_is_value(curr));
}

/* ---- the normal API ---- */

void *xa_load(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);
	void *entry;

	do {
		entry = xas_load(&xas);
		if (xa_is_zero(entry))
			entry = NULL;
	} while (xa_is_retry(entry));
	return entry;
}

/* Store @entry with @xas, retrying after allocating; return the old entry or an error entry. */
static void *store_retry(struct xa_state *xas, void *entry)
{
	void *curr;

	do {
		curr = xas_store(xas, entry);
	} while (xas_nomem(xas));
	if (xas_error(xas))
		return xa_mk_internal((unsigned long)(long)xas_error(xas));
	return xa_is_zero(curr) ? NULL : curr;
}

/** __xa_store() - xa_lock held: one walk from the root, then the store. */
void *__xa_store(struct xarray *xa, unsigned long index, void *entry)
{
	XA_STATE(xas, xa, index);

	return store_retry(&xas, entry);
}

void *xa_store(struct xarray *xa, unsigned long index, void *entry)
{
	void *curr;

	xa_lock(xa);
	curr = __xa_store(xa, index, entry);
	xa_unlock(xa);
	return curr;
}

void *xa_store_order(struct xarray *xa, unsigned long index, unsigned int order, void *entry)
{
	XA_STATE_ORDER(xas, xa, index, order);
	void *curr;

	xa_lock(xa);
	curr = store_retry(&xas, entry);
	xa_unlock(xa);
	return curr;
}

void *__xa_erase(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);

	return xas_store(&xas, NULL);
}

void *xa_erase(struct xarray *xa, unsigned long index)
{
	void *entry;

	xa_lock(xa);
	entry = __xa_erase(xa, index);
	xa_unlock(xa);
	return entry;
}

int xa_get_order(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);
	int order = 0;

	xa_lock(xa);
	if (xas_load(&xas))
		order = (int)xas_get_order(&xas);
	xa_unlock(xa);
	return order;
}

unsigned long xa_destroy(struct xarray *xa)
{
	XA_STATE(xas, xa, 0);
	void *head;

	xa_lock(xa);
	head = xa->xa_head;
	xa->xa_head = NULL;
	if (xa_is_node(head))
		xas_free_nodes(&xas, xa_to_node(head));
	xa_unlock(xa);
	return xas.xa_nodes_free;
}
