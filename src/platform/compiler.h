/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compiler.h - the small set of compiler helpers every layer uses.
 *
 * The kernel spells these likely()/READ_ONCE()/container_of(); we keep the
 * spellings so model code reads like mm/ code. READ_ONCE/WRITE_ONCE are
 * relaxed atomics, which costs nothing on x86 and keeps ThreadSanitizer
 * quiet about the racy-by-design reads the kernel also does.
 *
 * Conventions in this file: none beyond the kernel's meaning of each name.
 */
#ifndef FL_PLATFORM_COMPILER_H
#define FL_PLATFORM_COMPILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* A full barrier. ThreadSanitizer models no fences: there a seq_cst RMW of a
 * thread-local word stands in (a locked instruction on x86 all the same). */
static inline void smp_mb(void)
{
#ifdef __SANITIZE_THREAD__
	static _Thread_local int fl_mb_word;

	__atomic_fetch_add(&fl_mb_word, 0, __ATOMIC_SEQ_CST);
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d) (((n) + (d)-1) / (d))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a)-1))
#define ALIGN_UP(x, a) (((x) + ((__typeof__(x))(a)-1)) & ~((__typeof__(x))(a)-1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a)-1)) == 0)

#define FL_CACHELINE 128 /* two lines: x86 adjacent-line prefetch */
#define __cacheline_aligned __attribute__((aligned(FL_CACHELINE)))
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
/* a slow path kept out of its caller's code (the kernel's noinline) */
#ifndef noinline
#define noinline __attribute__((noinline))
#endif

#define FL_API __attribute__((visibility("default")))

static inline unsigned long fl_min_ul(unsigned long a, unsigned long b)
{
	return a < b ? a : b;
}

static inline unsigned long fl_max_ul(unsigned long a, unsigned long b)
{
	return a > b ? a : b;
}

/* Plain per-CPU counter update: the owning CPU is the only writer. */
static inline void fl_this_cpu_add_u64(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

static inline void fl_this_cpu_add_s64(int64_t *p, int64_t v)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

#endif /* FL_PLATFORM_COMPILER_H */
