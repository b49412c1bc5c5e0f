/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bug.h - BUG_ON, VM_BUG_ON and VM_WARN_ON_ONCE for the model.
 *
 * FL_DEBUG works like mimalloc's levels: 0 = release (BUG_ON only),
 * 1 = cheap VM_BUG_ON checks, 2 = internal asserts and lock-order witness,
 * 3 = full validators (assert_expensive).
 *
 * Conventions in this file: a "warn once" site keeps its own static flag.
 */
#ifndef FL_PLATFORM_BUG_H
#define FL_PLATFORM_BUG_H

#include "compiler.h"

#ifndef FL_DEBUG
#define FL_DEBUG 0
#endif

void fl__bug(const char *file, int line, const char *cond) __attribute__((noreturn, cold));
void fl__warn(const char *file, int line, const char *cond) __attribute__((cold));

#define BUG() fl__bug(__FILE__, __LINE__, "BUG")
#define BUG_ON(c)                                                                                  \
	do {                                                                                       \
		if (unlikely(c))                                                                   \
			fl__bug(__FILE__, __LINE__, #c);                                           \
	} while (0)

#if FL_DEBUG >= 1
#define VM_BUG_ON(c) BUG_ON(c)
#else
#define VM_BUG_ON(c)                                                                               \
	do {                                                                                       \
		(void)sizeof(c);                                                                   \
	} while (0)
#endif

#if FL_DEBUG >= 3
#define assert_expensive(c) BUG_ON(!(c))
#else
#define assert_expensive(c)                                                                        \
	do {                                                                                       \
		(void)sizeof(c);                                                                   \
	} while (0)
#endif

/* Survivable "impossible" state: log once, evaluate to the condition. */
#define VM_WARN_ON_ONCE(c)                                                                         \
	__extension__({                                                                            \
		static bool fl_warned_;                                                            \
		bool fl_c_ = !!(c);                                                                \
		if (unlikely(fl_c_) && !__atomic_exchange_n(&fl_warned_, true, __ATOMIC_RELAXED))  \
			fl__warn(__FILE__, __LINE__, #c);                                          \
		fl_c_;                                                                             \
	})

#endif /* FL_PLATFORM_BUG_H */
