// SPDX-License-Identifier: GPL-2.0-only
/*
 * alloc.c - the one allocation wrapper of the core, with fault injection.
 *
 * The core never aborts on OOM: every caller handles NULL. After
 * fl__fail_alloc_after(N) the Nth allocation from then on returns NULL, so
 * tests can walk error paths (the model's knob foliolab/fail_alloc_after).
 *
 * Conventions in this file: fail_countdown 0 means injection is off.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include "platform.h"

static long fail_countdown;

void fl__fail_alloc_after(long n)
{
	__atomic_store_n(&fail_countdown, n > 0 ? n : 0, __ATOMIC_RELAXED);
}

static bool should_fail(void)
{
	if (likely(__atomic_load_n(&fail_countdown, __ATOMIC_RELAXED) == 0))
		return false;
	/* only the allocation that moves the countdown 1 -> 0 fails */
	return __atomic_sub_fetch(&fail_countdown, 1, __ATOMIC_RELAXED) == 0;
}

void *fl_malloc(size_t size)
{
	return should_fail() ? NULL : malloc(size);
}

void *fl_calloc(size_t n, size_t size)
{
	return should_fail() ? NULL : calloc(n, size);
}

void *fl_aligned_alloc(size_t align, size_t size)
{
	if (should_fail())
		return NULL;
	return aligned_alloc(align, ALIGN_UP(size, align));
}

void fl_free(void *p)
{
	free(p);
}

void *fl_reserve(size_t size, bool hugepage_hint)
{
	void *p;

	if (should_fail())
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (hugepage_hint)
		madvise(p, size, MADV_HUGEPAGE);
	return p;
}

void fl_unreserve(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}
