/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "lib/par.h"

/* Items taken at once: enough to keep the counter cold, few enough that
 * the last chunks even out the workers' finishing times. */
#define PAR_CHUNK 8

struct par_job {
	_Atomic uint64_t next;
	uint64_t n;
	void (*fn)(void *ctx, uint64_t i, unsigned worker);
	void *ctx;
};

struct par_worker {
	struct par_job *job;
	unsigned id;
};

unsigned par_workers(unsigned threads, uint64_t n)
{
	uint64_t w = threads;

	if (!w) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		w = c > 0 ? (uint64_t)c : 1;
	}
	if (w > PAR_MAX_WORKERS)
		w = PAR_MAX_WORKERS;
	if (w > n)
		w = n;
	return w ? (unsigned)w : 1;
}

static void par_run(struct par_job *job, unsigned id)
{
	for (;;) {
		uint64_t i = atomic_fetch_add_explicit(&job->next, PAR_CHUNK, memory_order_relaxed);
		uint64_t end = i + PAR_CHUNK < job->n ? i + PAR_CHUNK : job->n;

		if (i >= job->n)
			return;
		for (; i < end; i++)
			job->fn(job->ctx, i, id);
	}
}

static void *par_thread(void *arg)
{
	struct par_worker *w = arg;

	par_run(w->job, w->id);
	return NULL;
}

void par_for(uint64_t n, unsigned workers, void (*fn)(void *ctx, uint64_t i, unsigned worker),
	     void *ctx)
{
	struct par_job job = { .n = n, .fn = fn, .ctx = ctx };
	struct par_worker w[PAR_MAX_WORKERS];
	pthread_t t[PAR_MAX_WORKERS];
	unsigned started = 0;

	atomic_init(&job.next, 0);
	if (workers > PAR_MAX_WORKERS)
		workers = PAR_MAX_WORKERS;
	/* Worker 0 is the caller; a thread that cannot start leaves its ids
	 * unused and the running ones take its items. */
	for (unsigned k = 1; k < workers; k++) {
		w[started] = (struct par_worker){ .job = &job, .id = started + 1 };
		if (pthread_create(&t[started], NULL, par_thread, &w[started]) != 0)
			break;
		started++;
	}
	par_run(&job, 0);
	for (unsigned k = 0; k < started; k++)
		pthread_join(t[k], NULL);
}
