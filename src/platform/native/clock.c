// SPDX-License-Identifier: GPL-2.0-only
/*
 * native/clock.c - monotonic nanoseconds, process CPU times, and user-mode
 * work of a given CPU time, from the host's clocks.
 *
 * Lock wait accounting reads the clock only on the contended path, so a
 * vDSO clock_gettime (about 30 ns here) never touches the fast path.
 *
 * Conventions in this file: all times are CLOCK_MONOTONIC unless they say
 * they are a thread's CPU time.
 */
#include <time.h>
#include <sys/resource.h>
#include "native.h"

uint64_t fl__native_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void fl_cpu_times(double *user_s, double *sys_s)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	*sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The thread's own CPU time, so that time spent preempted (more tasks
 * than CPUs) is not counted as work; read every 256 rounds of arithmetic
 * (a few hundred ns), the work itself in user mode
 */
void fl__native_cpu_work(uint64_t ns)
{
	volatile uint64_t x = ns;
	uint64_t end;
	int i;

	if (!ns)
		return;
	end = thread_cpu_ns() + ns;
	do {
		for (i = 0; i < 256; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	} while (thread_cpu_ns() < end);
}
