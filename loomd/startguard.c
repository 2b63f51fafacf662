/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "loomd/startguard.h"

/* How often the guard looks at its stop flag and its deadline. */
#define GUARD_TICK_NS 100000000LL
/* A step with a deadline that takes this long is said to be slow, once. */
#define GUARD_SLOW_S 5u

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Die of the signal, as a process without a handler would: the shell
 * sees 128 + its number, systemd a clean stop (SIGTERM). Only this
 * thread unblocks it, so it is delivered here.
 */
static void die_of(int sig)
{
	sigset_t ss;

	signal(sig, SIG_DFL);
	sigemptyset(&ss);
	sigaddset(&ss, sig);
	pthread_sigmask(SIG_UNBLOCK, &ss, NULL);
	raise(sig);
	_exit(128 + sig);
}

/*
 * sigtimedwait in short ticks rather than a sigwait that stop would have
 * to cancel: a cancel could land after a signal was taken and lose it.
 */
static void *guard(void *arg)
{
	struct startguard *g = arg;
	struct timespec tick = { 0, GUARD_TICK_NS };
	sigset_t ss;
	char doing[sizeof(g->doing)];

	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	for (;;) {
		int sig = sigtimedwait(&ss, NULL, &tick);
		bool late, slow;
		unsigned limit;
		long long took;

		pthread_mutex_lock(&g->lock);
		if (g->stop && sig < 0) {
			pthread_mutex_unlock(&g->lock);
			return NULL;
		}
		memcpy(doing, g->doing, sizeof(doing));
		took = now_ns() - g->since_ns;
		limit = g->limit_s;
		late = limit && took > limit * 1000000000LL;
		slow = limit > GUARD_SLOW_S && !g->said_slow && took > GUARD_SLOW_S * 1000000000LL;
		if (slow)
			g->said_slow = true;
		pthread_mutex_unlock(&g->lock);
		if (sig > 0) {
			log_info("%s while starting (%s); stopping before the first sweep",
				 sig == SIGTERM ? "SIGTERM" : "SIGINT", doing);
			die_of(sig);
		}
		if (slow)
			log_info("%s: no answer yet after %u s; waiting up to %u s (SIGTERM stops loomd)",
				 doing, GUARD_SLOW_S, limit);
		if (late) {
			log_err("%s: no answer after %u s; giving up (--open-timeout sets how "
				"long to wait). Is the HCA's driver (or the simulator) answering?",
				doing, limit);
			_exit(1);
		}
	}
}

int startguard_start(struct startguard *g)
{
	int r;

	pthread_mutex_init(&g->lock, NULL);
	snprintf(g->doing, sizeof(g->doing), "setting up");
	r = pthread_create(&g->t, NULL, guard, g);
	g->started = r == 0;
	return -r;
}

void startguard_doing(struct startguard *g, unsigned timeout_s, const char *fmt, ...)
{
	va_list ap;

	if (!g->started)
		return;
	pthread_mutex_lock(&g->lock);
	va_start(ap, fmt);
	vsnprintf(g->doing, sizeof(g->doing), fmt, ap);
	va_end(ap);
	g->limit_s = timeout_s;
	g->said_slow = false;
	g->since_ns = now_ns();
	pthread_mutex_unlock(&g->lock);
}

void startguard_stop(struct startguard *g)
{
	if (!g->started)
		return;
	pthread_mutex_lock(&g->lock);
	g->stop = true;
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->t, NULL);
	pthread_mutex_destroy(&g->lock);
	g->started = false;
}
