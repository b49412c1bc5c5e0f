// SPDX-License-Identifier: GPL-2.0-only
/*
 * clock.c - monotonic nanoseconds and process CPU times.
 *
 * Lock wait accounting reads the clock only on the contended path, so a
 * vDSO clock_gettime (about 30 ns here) never touches the fast path.
 *
 * Conventions in this file: all times are CLOCK_MONOTONIC.
 */
#include <time.h>
#include <sys/resource.h>
#include "platform.h"
#include "sim.h"

uint64_t fl_clock_ns(void)
{
	struct timespec ts;

	/*
	 * On sim, virtual time (the simulator counts picoseconds): a task's
	 * CPU's clock; outside the tasks, the time the last of them ended
	 */
	if (fl__sim_active)
		return (fl_sim_in_task() ? fl_sim_now() : fl_sim_end_time()) / 1000;

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
