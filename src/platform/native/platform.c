// SPDX-License-Identifier: GPL-2.0-only
/*
 * native/platform.c - the native platform's table of operations: one
 * pthread per model CPU (thread.c), the host's clocks (clock.c), futexes
 * and pthread rwlocks (lock.c). It is in force unless a run starts the
 * simulator (sim/platform.c), which falls back on it for what the host
 * thread does between runs.
 */
#include "../lock.h"
#include "native.h"

const struct fl_platform_ops fl__native_ops = {
	.name = "native",
	.clock_ns = fl__native_clock_ns,
	.cpu_work = fl__native_cpu_work,
	.cpu_wait = fl__native_cpu_wait,
	.yield = fl__native_yield,
	.membarrier = fl__native_membarrier,
	.thread_start = fl__native_thread_start,
	.thread_join = fl__native_thread_join,
	.word_wait = fl__native_word_wait,
	.waitq_sleep = fl__native_waitq_sleep,
	.waitq_sleep_timeout = fl__native_waitq_sleep_timeout,
	.waitq_wake_all = fl__native_waitq_wake_all,
	.rwsem_lock = fl__native_rwsem_lock,
	.rwsem_read_trylock = fl__native_rwsem_read_trylock,
	.rwsem_unlock = fl__native_rwsem_unlock,
	.rwsem_downgrade = fl__native_rwsem_downgrade,
};
