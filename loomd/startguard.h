/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOOMD_STARTGUARD_H
#define LOOM_LOOMD_STARTGUARD_H

#include <pthread.h>
#include <stdbool.h>

/*
 * SIGTERM and SIGINT while loomd starts. main() blocks them before any
 * thread exists (sd-event takes them later through a signalfd), so a
 * library call that never returns (libibumad, or umad2sim waiting for a
 * simulator that does not answer) would keep loomd deaf to them. A thread
 * takes them during setup() and ends loomd; it also ends a step that
 * outlasts its deadline. Stopped, it leaves later signals pending for
 * the signalfd.
 */
struct startguard {
	pthread_t t;
	pthread_mutex_t lock;
	char doing[160];  /* what setup() is doing, for the log line */
	long long since_ns; /* CLOCK_MONOTONIC: when that step began */
	unsigned limit_s;   /* how long it may take; 0: no limit */
	bool stop, started, said_slow;
};

/* Start the guard (SIGTERM and SIGINT must be blocked already); -errno. */
int startguard_start(struct startguard *g);
/* What setup() does now; timeout_s 0: no deadline, else the step ends loomd after it. */
void startguard_doing(struct startguard *g, unsigned timeout_s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Stop it; signals that come later stay pending. Safe on a guard never started. */
void startguard_stop(struct startguard *g);

#endif
