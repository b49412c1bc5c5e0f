// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_mem.c - one host process's memory as the target API sees it: real
 * mmap, munmap, madvise, stores and loads of this process, with every
 * mapping recorded, so a store or load outside one returns -EFAULT rather
 * than killing the run, and what a workload leaves mapped is unmapped at
 * its process's exit.
 *
 * Conventions in this file: @m is the calling process's mapping record.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "target.h"
#include "host.h"

#ifndef MAP_DROPPABLE
#define MAP_DROPPABLE 0x08
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

void fl__host_maps_init(struct host_maps *m)
{
	pthread_mutex_init(&m->lock, NULL);
	m->nr = 0;
}

void fl__host_maps_destroy(struct host_maps *m, bool unmap)
{
	int i;

	for (i = 0; unmap && i < m->nr; i++)
		munmap((void *)(uintptr_t)m->v[i].addr, (size_t)m->v[i].len);
	m->nr = 0;
	pthread_mutex_destroy(&m->lock);
}

static int maps_add(struct host_maps *m, uint64_t addr, uint64_t len, int prot)
{
	int ret = 0;

	pthread_mutex_lock(&m->lock);
	if (m->nr == HOST_MAX_MAPPINGS)
		ret = -ENOMEM;
	else
		m->v[m->nr++] = (struct host_mapping){ addr, len, prot };
	pthread_mutex_unlock(&m->lock);
	return ret;
}

/* Is [addr, addr + len) inside one recorded mapping that allows @prot? */
static bool maps_cover(struct host_maps *m, uint64_t addr, uint64_t len, int prot)
{
	bool ok = false;
	int i;

	pthread_mutex_lock(&m->lock);
	for (i = 0; i < m->nr && !ok; i++) {
		const struct host_mapping *r = &m->v[i];

		ok = addr >= r->addr && addr + len <= r->addr + r->len && addr + len >= addr &&
		     (r->prot & prot) == prot;
	}
	pthread_mutex_unlock(&m->lock);
	return ok;
}

int fl__host_mem_mmap(struct host_maps *m, uint64_t len, int prot, int flags, uint64_t *addr)
{
	return fl__host_mem_mmap_fd(m, len, prot, flags, -1, 0, addr);
}

/* A mapping of @fd from @off (anonymous for @fd -1), recorded in @m. */
int fl__host_mem_mmap_fd(struct host_maps *m, uint64_t len, int prot, int flags, int fd,
			 uint64_t off, uint64_t *addr)
{
	int p = 0, f = MAP_PRIVATE | MAP_ANONYMOUS;
	void *a;
	int ret;

	if (!len)
		return -EINVAL;
	if (prot & FL_PROT_READ)
		p |= PROT_READ;
	if (prot & FL_PROT_WRITE)
		p |= PROT_READ | PROT_WRITE;
	if (flags & FL_MAP_DROPPABLE)
		f = MAP_DROPPABLE | MAP_ANONYMOUS;
	if (fd >= 0)
		f = flags & FL_MAP_SHARED ? MAP_SHARED : MAP_PRIVATE;
	a = mmap(NULL, (size_t)len, p, f, fd, (off_t)off);
	if (a == MAP_FAILED)
		return -errno;
	ret = maps_add(m, (uint64_t)(uintptr_t)a, (len + 4095) & ~4095ull,
		       prot & FL_PROT_WRITE ? FL_PROT_READ | FL_PROT_WRITE : prot);
	if (ret) {
		munmap(a, (size_t)len);
		return ret;
	}
	*addr = (uint64_t)(uintptr_t)a;
	return 0;
}

/*
 * Unmap [addr, addr + len), which must lie inside one recorded mapping: the
 * whole of it, its head, its tail, or a middle part (the record splits in
 * two, as the kernel's VMA does).
 */
int fl__host_mem_munmap(struct host_maps *maps, uint64_t addr, uint64_t len)
{
	uint64_t end;
	int i, ret = -EINVAL;

	len = (len + 4095) & ~4095ull;
	end = addr + len;
	if (!len || addr % 4096 || end < addr)
		return -EINVAL;
	pthread_mutex_lock(&maps->lock);
	for (i = 0; i < maps->nr; i++) {
		struct host_mapping *m = &maps->v[i];
		uint64_t m_end = m->addr + m->len;

		if (addr < m->addr || end > m_end)
			continue;
		ret = 0;
		if (addr == m->addr && end == m_end) {
			*m = maps->v[--maps->nr];
		} else if (addr == m->addr) {
			m->addr = end;
			m->len = m_end - end;
		} else if (end == m_end) {
			m->len = addr - m->addr;
		} else if (maps->nr == HOST_MAX_MAPPINGS) {
			ret = -ENOMEM;
		} else {
			maps->v[maps->nr++] = (struct host_mapping){ end, m_end - end, m->prot };
			m->len = addr - m->addr;
		}
		break;
	}
	pthread_mutex_unlock(&maps->lock);
	if (ret)
		return ret;
	return munmap((void *)(uintptr_t)addr, (size_t)len) ? -errno : 0;
}

int fl__host_mem_madvise(struct host_maps *m, uint64_t addr, uint64_t len, int advice)
{
	static const int map[] = {
		[FL_MADV_DONTNEED] = MADV_DONTNEED, [FL_MADV_FREE] = MADV_FREE,
		[FL_MADV_COLD] = MADV_COLD,	    [FL_MADV_PAGEOUT] = MADV_PAGEOUT,
		[FL_MADV_HUGEPAGE] = MADV_HUGEPAGE, [FL_MADV_NOHUGEPAGE] = MADV_NOHUGEPAGE,
		[FL_MADV_COLLAPSE] = MADV_COLLAPSE,
	};

	if (advice < 0 || advice >= (int)(sizeof(map) / sizeof(map[0])))
		return -EINVAL;
	if (!maps_cover(m, addr, len, 0))
		return -ENOMEM; /* what madvise says of an unmapped range */
	return madvise((void *)(uintptr_t)addr, (size_t)len, map[advice]) ? -errno : 0;
}

int fl__host_mem_write(struct host_maps *m, uint64_t addr, uint64_t len, uint64_t stride,
		       uint64_t tag, uint64_t tag_step)
{
	uint64_t i, n;

	if (!stride || stride % 8)
		return -EINVAL;
	n = len / stride;
	if (!maps_cover(m, addr, n * stride, FL_PROT_WRITE))
		return -EFAULT;
	for (i = 0; i < n; i++)
		*(volatile uint64_t *)(uintptr_t)(addr + i * stride) = tag + i * tag_step;
	return 0;
}

int fl__host_mem_read(struct host_maps *m, uint64_t addr, uint64_t len, uint64_t stride,
		      uint64_t *tags, uint64_t *sum)
{
	uint64_t i, n, s = 0;

	if (!stride || stride % 8)
		return -EINVAL;
	n = len / stride;
	if (!maps_cover(m, addr, n * stride, FL_PROT_READ))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		uint64_t v = *(volatile uint64_t *)(uintptr_t)(addr + i * stride);

		if (tags)
			tags[i] = v;
		s += v;
	}
	if (sum)
		*sum = s;
	return 0;
}
