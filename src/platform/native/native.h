/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * native.h - the native platform's operations (platform.h: struct
 * fl_platform_ops), for its table (platform.c) and for one another.
 */
#ifndef FL_PLATFORM_NATIVE_H
#define FL_PLATFORM_NATIVE_H

#include <stdbool.h>
#include <stdint.h>
#include "../platform.h"

/* clock.c */
uint64_t fl__native_clock_ns(void);
void fl__native_cpu_work(uint64_t ns);

/* thread.c */
struct fl_thread_handle *fl__native_thread_start(void (*fn)(void *), void *arg, int cpu,
						 int pin_host_cpu, int *err);
void fl__native_thread_join(struct fl_thread_handle *h);
void fl__native_yield(void);
void fl__native_cpu_wait(unsigned int *spins);
void fl__native_membarrier(void);

/* lock.c */
void fl__native_word_wait(unsigned long *word, unsigned long val);
void fl__native_waitq_sleep(struct fl_waitq *wq, unsigned long seen);
bool fl__native_waitq_sleep_timeout(struct fl_waitq *wq, unsigned long seen, uint64_t ns);
void fl__native_waitq_wake_all(struct fl_waitq *wq);
void fl__native_rwsem_lock(struct fl_rwsem *sem, struct fl_lock_site *s, bool write);
bool fl__native_rwsem_read_trylock(struct fl_rwsem *sem, struct fl_lock_site *s);
void fl__native_rwsem_unlock(struct fl_rwsem *sem, bool write);
void fl__native_rwsem_downgrade(struct fl_rwsem *sem, struct fl_lock_site *s);

#endif /* FL_PLATFORM_NATIVE_H */
