// SPDX-License-Identifier: GPL-2.0
/*
 * rt_spin CPU SECONDS: run on CPU as SCHED_FIFO, priority 50, and never
 * sleep for SECONDS, so that nothing of a lower scheduling class runs on
 * that cpu meanwhile, its kworkers included, once RT throttling is off
 * (/proc/sys/kernel/sched_rt_runtime_us = -1).  rt_starve_test.sh's
 * spinner.
 *
 * Before it spins it makes and closes PIPES pipes on that cpu, so that
 * the slab caches of files and pipes keep freed objects in the cpu's
 * per-cpu state, which the starved cpu can then never give back itself.
 *
 * Prints "rt_spin: cpu CPU fifo 50 for SECONDS s" once it spins there,
 * and exits 0 after; 1 if it could not bind itself or raise its class,
 * 2 on a bad command line.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define RT_SPIN_PRIO	50
#define PIPES		64

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = RT_SPIN_PRIO };
	double secs, end;
	int cpu, i, fd[2];
	cpu_set_t set;

	if (argc != 3) {
		fprintf(stderr, "usage: rt_spin CPU SECONDS\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	secs = atof(argv[2]);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("rt_spin: sched_setaffinity");
		return 1;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("rt_spin: sched_setscheduler");
		return 1;
	}
	if (sched_getcpu() != cpu) {
		fprintf(stderr, "rt_spin: runs on cpu %d, not %d\n", sched_getcpu(), cpu);
		return 1;
	}
	for (i = 0; i < PIPES; i++) {
		if (pipe(fd)) {
			perror("rt_spin: pipe");
			return 1;
		}
		close(fd[0]);
		close(fd[1]);
	}
	printf("rt_spin: cpu %d fifo %d for %g s\n", cpu, RT_SPIN_PRIO, secs);
	fflush(stdout);
	end = now() + secs;
	while (now() < end)
		;
	return 0;
}
