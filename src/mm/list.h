/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * list.h - circular doubly linked lists, as include/linux/list.h offers
 * them (our own implementation of the same interface).
 *
 * Conventions in this file: @head is the list anchor, @entry a member.
 * ->next is written with WRITE_ONCE, as the kernel's list.h does: in a
 * struct page it overlays compound_head, which others read without the
 * list's lock.
 */
#ifndef FL_MM_LIST_H
#define FL_MM_LIST_H

#include "../platform/compiler.h"

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)                                                                       \
	{                                                                                          \
		&(name), &(name)                                                                   \
	}

#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	WRITE_ONCE(l->next, l);
	l->prev = l;
}

static inline void list_insert_between(struct list_head *entry, struct list_head *prev,
				       struct list_head *next)
{
	next->prev = entry;
	WRITE_ONCE(entry->next, next);
	entry->prev = prev;
	WRITE_ONCE(prev->next, entry);
}

static inline void list_add(struct list_head *entry, struct list_head *head)
{
	list_insert_between(entry, head, head->next);
}

static inline void list_add_tail(struct list_head *entry, struct list_head *head)
{
	list_insert_between(entry, head->prev, head);
}

static inline void list_del(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	WRITE_ONCE(entry->prev->next, entry->next);
	WRITE_ONCE(entry->next, (struct list_head *)NULL);
	entry->prev = NULL;
}

static inline void list_del_init(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	WRITE_ONCE(entry->prev->next, entry->next);
	INIT_LIST_HEAD(entry);
}

static inline bool list_empty(const struct list_head *head)
{
	return READ_ONCE(head->next) == head;
}

static inline void list_move(struct list_head *entry, struct list_head *head)
{
	list_del(entry);
	list_add(entry, head);
}

static inline void list_move_tail(struct list_head *entry, struct list_head *head)
{
	list_del(entry);
	list_add_tail(entry, head);
}

/* list_splice() - put @list's entries at the front of @head (@list is left as it was). */
static inline void list_splice(const struct list_head *list, struct list_head *head)
{
	struct list_head *first = list->next, *last = list->prev, *at = head->next;

	if (first == list)
		return;
	first->prev = head;
	WRITE_ONCE(head->next, first);
	WRITE_ONCE(last->next, at);
	at->prev = last;
}

/* list_splice_init() - list_splice(), then @list is empty. */
static inline void list_splice_init(struct list_head *list, struct list_head *head)
{
	list_splice(list, head);
	INIT_LIST_HEAD(list);
}

/* list_splice_tail() - put @list's entries at the end of @head (@list is left as it was). */
static inline void list_splice_tail(const struct list_head *list, struct list_head *head)
{
	struct list_head *first = list->next, *last = list->prev, *at = head->prev;

	if (first == list)
		return;
	first->prev = at;
	WRITE_ONCE(at->next, first);
	WRITE_ONCE(last->next, head);
	head->prev = last;
}

static inline void list_splice_tail_init(struct list_head *list, struct list_head *head)
{
	list_splice_tail(list, head);
	INIT_LIST_HEAD(list);
}

/*
 * list_cut_before() - move @head's entries before @entry (not @entry
 * itself) to the empty @list; @entry == @head moves them all.
 */
static inline void list_cut_before(struct list_head *list, struct list_head *head,
				   struct list_head *entry)
{
	if (head->next == entry) {
		INIT_LIST_HEAD(list);
		return;
	}
	list->next = head->next;
	list->next->prev = list;
	list->prev = entry->prev;
	list->prev->next = list;
	WRITE_ONCE(head->next, entry);
	entry->prev = head;
}

static inline bool list_is_singular(const struct list_head *head)
{
	return !list_empty(head) && head->next == head->prev;
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_last_entry(head, type, member) list_entry((head)->prev, type, member)
#define list_next_entry(pos, member) list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_for_each(pos, head) for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)
#define list_for_each_safe(pos, n, head)                                                           \
	for ((pos) = (head)->next, (n) = (pos)->next; (pos) != (head);                             \
	     (pos) = (n), (n) = (pos)->next)
#define list_for_each_entry(pos, head, member)                                                     \
	for ((pos) = list_entry((head)->next, __typeof__(*(pos)), member);                         \
	     &(pos)->member != (head);                                                             \
	     (pos) = list_entry((pos)->member.next, __typeof__(*(pos)), member))
#define list_for_each_entry_safe(pos, n, head, member)                                             \
	for ((pos) = list_entry((head)->next, __typeof__(*(pos)), member),                         \
	    (n) = list_entry((pos)->member.next, __typeof__(*(pos)), member);                      \
	     &(pos)->member != (head);                                                             \
	     (pos) = (n), (n) = list_entry((n)->member.next, __typeof__(*(n)), member))

#endif /* FL_MM_LIST_H */
