/* SPDX-License-Identifier: MIT */
/*
 * The checker's LIDs, in the order a single thread judges them, cut into
 * one contiguous share per worker thread. Each worker walks its
 * share with its own working arrays and counts; then the shares are merged
 * in order: sums and maxima, loads added, dependency bits ORed, and the
 * messages each worker named taken in LID order up to max_msgs, the rest
 * counted as unnamed: the report and the messages are those of one thread.
 * (Not lib/par.c's par_for: it hands items out 8 at a time, so a handful of
 * big shares would all go to its first thread.)
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "lib/cleanup.h"
#include "lib/par.h"
#include "check_priv.h"

/* With threads 0: a worker for every so many LIDs at most. */
#define CK_LIDS_PER_WORKER 512

/* Every destination LID in order, skip_lid left out (and counted). */
static int list_lids(struct ck *k)
{
	const struct check_opts *o = k->o;
	uint64_t n = 0;

	for (uint32_t i = 0; i < k->n_dests; i++)
		n += k->dests[i].nlids;
	k->lids = malloc((n + 1) * sizeof(*k->lids));
	k->lid_dest = malloc((n + 1) * sizeof(*k->lid_dest));
	if (!k->lids || !k->lid_dest)
		return -ENOMEM;
	for (uint32_t i = 0; i < k->n_dests; i++) {
		const struct ck_dest *dd = &k->dests[i];

		for (uint32_t l = dd->lid; l < (uint32_t)dd->lid + dd->nlids; l++) {
			if (o && o->skip_lid && l == o->skip_lid) {
				k->rep->lids_skipped++;
				continue;
			}
			k->lids[k->n_lids] = l;
			k->lid_dest[k->n_lids++] = i;
		}
	}
	return 0;
}

struct ck_share {
	const struct ck *k;
	struct ck *w;   /* its worker */
	uint64_t a, b;  /* k->lids[a .. b-1] */
	pthread_t t;
	bool started;
};

static void *share_run(void *arg)
{
	struct ck_share *j = arg;

	ck_judge(j->w, j->k->lids + j->a, j->k->lid_dest + j->a, j->b - j->a);
	return NULL;
}

/* Share i on its own thread (the caller runs share 0, and any share
 * whose thread cannot be started). */
static void run_shares(struct ck_share *sh, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		sh[i].started = pthread_create(&sh[i].t, NULL, share_run, &sh[i]) == 0;
	share_run(&sh[0]);
	for (unsigned i = 1; i < n; i++) {
		if (sh[i].started)
			pthread_join(sh[i].t, NULL);
		else
			share_run(&sh[i]);
	}
}

/* Bitmap or array *to (k's) gets from's: taken if k has none, else added. */
static void merge_bits(uint8_t **to, uint8_t **from, size_t n)
{
	if (!*from)
		return;
	if (!*to) {
		*to = *from;
		*from = NULL;
		return;
	}
	for (size_t i = 0; i < n; i++)
		(*to)[i] |= (*from)[i];
}

static void merge_sums(uint64_t **to, uint64_t **from, size_t n)
{
	if (!*to) {
		*to = *from;
		*from = NULL;
		return;
	}
	for (size_t i = 0; i < n; i++)
		(*to)[i] += (*from)[i];
}

/* What worker w found, after the workers before it. */
static void merge(struct ck *k, struct ck *w)
{
	struct check_report *r = k->rep, *x = w->rep;
	size_t bits = (size_t)k->dep_off[k->n_chan] / 8 + 1;

	for (unsigned v = 0; v < CK_VLS; v++)
		for (unsigned u = 0; u < CK_VLS; u++)
			merge_bits(&k->dep_vl[v][u], &w->dep_vl[v][u], bits);
	k->dep = k->dep_vl[0][0];
	merge_sums(&k->load_a, &w->load_a, k->n_chan);
	merge_sums(&k->load_s, &w->load_s, k->n_chan);
	merge_sums(&k->stretch_num, &w->stretch_num, k->n_sw);
	k->oom |= w->oom;
	k->hop_sum += w->hop_sum;
	k->short_a += w->short_a;
	k->short_s += w->short_s;
	r->pairs += x->pairs;
	r->delivered += x->delivered;
	r->unreachable += x->unreachable;
	r->loops += x->loops;
	r->sw_pairs += x->sw_pairs;
	r->sw_bad += x->sw_bad;
	r->shift.routes += x->shift.routes;
	r->vls_used |= x->vls_used;
	r->hops_max = x->hops_max > r->hops_max ? x->hops_max : r->hops_max;
	r->extra_max = x->extra_max > r->extra_max ? x->extra_max : r->extra_max;
	r->stretch_max = x->stretch_max > r->stretch_max ? x->stretch_max : r->stretch_max;
	/* A message w named is one k names while it is within max_msgs. */
	for (unsigned i = 0; i < w->wd.n; i++) {
		if (k->msgs >= k->max_msgs) {
			k->unnamed++;
			continue;
		}
		diag_msg(k->d, "%s", w->wd.msg[i]);
		k->msgs++;
	}
	k->unnamed += w->unnamed;
}

int ck_judge_all(struct ck *k)
{
	const struct check_opts *o = k->o;
	_cleanup_free_ struct ck *w = NULL;
	_cleanup_free_ struct check_report *wr = NULL;
	_cleanup_free_ struct ck_share *sh = NULL;
	unsigned n = 0, nw;
	int r;

	r = list_lids(k);
	if (r < 0)
		return r;
	if (o && o->threads)
		nw = par_workers(o->threads, k->n_lids);
	else
		nw = par_workers(0, k->n_lids / CK_LIDS_PER_WORKER);
	w = calloc(nw, sizeof(*w));
	wr = calloc(nw, sizeof(*wr));
	sh = calloc(nw, sizeof(*sh));
	if (!w || !wr || !sh)
		return -ENOMEM;
	for (; n < nw && r == 0; n++)
		r = ck_worker_setup(k, &w[n], &wr[n]);
	if (r == 0) {
		for (unsigned i = 0; i < nw; i++)
			sh[i] = (struct ck_share){ .k = k, .w = &w[i], .a = k->n_lids * i / nw,
						   .b = k->n_lids * (i + 1) / nw };
		run_shares(sh, nw);
		for (unsigned i = 0; i < nw; i++)
			merge(k, &w[i]);
	}
	for (unsigned i = 0; i < n; i++)
		ck_worker_free(&w[i]);
	return r;
}
