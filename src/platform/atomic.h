/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * atomic.h - the read-modify-write atomics of model code, which drop the
 * LOCK prefix while one thread runs the model.
 *
 * The kernel does the same on x86: a SMP kernel booted on one CPU patches
 * the LOCK prefixes of its atomics out (SMP alternatives, X86_FEATURE_UP),
 * because with nobody to race against they cost time and buy nothing. A
 * locked RMW costs about 20 cycles on the machines we run on, and a 4K
 * fault+zap does about ten of the kernel's own (PTE lock, pcp lock, VMA
 * refcount, folio refcount, mapcount, PG_lru, ...): they were 42% of the
 * 1-thread microbenchmark's time.
 *
 * While fl__uniproc is set, each RMW below is a relaxed load and a relaxed
 * store: the same result, because no other thread runs model code between
 * the two. The platform sets it only around runs in which exactly one
 * thread runs model code (fl__uniproc_begin()); everything else, and every
 * test that starts its own threads, gets the locked instructions.
 *
 * Conventions in this file: fl_atomic_X(p, ...) takes the arguments of
 * GCC's __atomic_X builtin and returns what it returns; @p is evaluated
 * once.
 */
#ifndef FL_PLATFORM_ATOMIC_H
#define FL_PLATFORM_ATOMIC_H

#include "compiler.h"

/* true while one thread at a time runs model code; see fl__uniproc_begin() */
extern bool fl__uniproc;

static __always_inline bool fl_uniproc(void)
{
	return fl__uniproc; /* written only while no other thread runs model code */
}

/* the unlocked RMW: old value in, new value out, returns @ret (old_ or new_) */
#define FL__UP_RMW(p, v, op, ret)                                                                  \
	__extension__({                                                                            \
		__typeof__(*(p)) old_ = __atomic_load_n((p), __ATOMIC_RELAXED);                    \
		__typeof__(*(p)) new_ = (__typeof__(*(p)))(old_ op(v));                            \
		__atomic_store_n((p), new_, __ATOMIC_RELAXED);                                     \
		ret;                                                                               \
	})

#define FL__RMW(p, v, mo, op, builtin, ret)                                                        \
	__extension__({                                                                            \
		__typeof__(p) p_ = (p);                                                            \
		likely(fl_uniproc()) ? FL__UP_RMW(p_, v, op, ret) : builtin(p_, (v), (mo));        \
	})

#define fl_atomic_fetch_add(p, v, mo) FL__RMW(p, v, mo, +, __atomic_fetch_add, old_)
#define fl_atomic_fetch_sub(p, v, mo) FL__RMW(p, v, mo, -, __atomic_fetch_sub, old_)
#define fl_atomic_fetch_or(p, v, mo) FL__RMW(p, v, mo, |, __atomic_fetch_or, old_)
#define fl_atomic_fetch_and(p, v, mo) FL__RMW(p, v, mo, &, __atomic_fetch_and, old_)
#define fl_atomic_add_fetch(p, v, mo) FL__RMW(p, v, mo, +, __atomic_add_fetch, new_)
#define fl_atomic_sub_fetch(p, v, mo) FL__RMW(p, v, mo, -, __atomic_sub_fetch, new_)

/* plain loads and stores of shared words, with the memory order named */
#define fl_atomic_load(p, mo) __atomic_load_n((p), (mo))
#define fl_atomic_store(p, v, mo) __atomic_store_n((p), (v), (mo))

/* __atomic_exchange_n(): the old value; unlocked while one thread runs */
#define fl_atomic_xchg(p, v, mo)                                                                   \
	__extension__({                                                                            \
		__typeof__(p) px_ = (p);                                                           \
		__typeof__(*px_) vx_ = (v), ox_;                                                   \
		if (likely(fl_uniproc())) {                                                        \
			ox_ = __atomic_load_n(px_, __ATOMIC_RELAXED);                              \
			__atomic_store_n(px_, vx_, __ATOMIC_RELAXED);                              \
		} else {                                                                           \
			ox_ = __atomic_exchange_n(px_, vx_, (mo));                                 \
		}                                                                                  \
		ox_;                                                                               \
	})

/* __atomic_compare_exchange_n(): on failure *@e receives the current value */
#define fl_atomic_cmpxchg(p, e, d, weak, mo_ok, mo_fail)                                           \
	__extension__({                                                                            \
		__typeof__(p) p_ = (p);                                                            \
		__typeof__(e) e_ = (e);                                                            \
		bool ok_;                                                                          \
		if (likely(fl_uniproc())) {                                                        \
			__typeof__(*p_) cur_ = __atomic_load_n(p_, __ATOMIC_RELAXED);              \
			ok_ = cur_ == *e_;                                                         \
			if (ok_)                                                                   \
				__atomic_store_n(p_, (d), __ATOMIC_RELAXED);                       \
			else                                                                       \
				*e_ = cur_;                                                        \
		} else {                                                                           \
			ok_ = __atomic_compare_exchange_n(p_, e_, (d), (weak), (mo_ok),            \
							  (mo_fail));                              \
		}                                                                                  \
		ok_;                                                                               \
	})

/**
 * fl__uniproc_begin() - promise that until fl__uniproc_end() one thread at a
 * time runs model code, each handing over to the next through a call that
 * orders memory (pthread_create(), pthread_join()).
 * Context: no other thread runs model code; called by the thread that will
 * hand over and then wait.
 */
void fl__uniproc_begin(void);
/** fl__uniproc_end() - back to locked atomics. Context: as fl__uniproc_begin(). */
void fl__uniproc_end(void);

#endif /* FL_PLATFORM_ATOMIC_H */
