/* SPDX-License-Identifier: MIT */
/* Requests kept while a worker routes, handed back after (hold.h). */
#include <stdlib.h>
#include <string.h>

#include "loomd/hold.h"
#include "mad/smp.h"

bool hold_is_sminfo_get(const uint8_t *mad, size_t len)
{
	struct smp_hdr h;

	/* IBA 14.2.1: SMPs are class 0x01 (LID routed) or 0x81 (directed route). */
	return smp_peek(mad, len, &h) == 0 && (h.mgmt_class == 0x01 || h.mgmt_class == 0x81) &&
	       h.method == SMP_GET && h.attr_id == SMP_ATTR_SM_INFO;
}

bool hold_keep(struct hold *h, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct hold_mad *m;

	if (h->n >= HOLD_MAX)
		goto drop;
	m = &h->q[h->n];
	m->mad = malloc(len ? len : 1);
	if (!m->mad)
		goto drop;
	memcpy(m->mad, mad, len);
	m->len = len;
	m->have_from = from != NULL;
	if (from)
		m->from = *from;
	h->n++;
	return true;
drop:
	h->dropped++;
	return false;
}

void hold_replay(struct hold *h, hold_fn fn, void *arg)
{
	unsigned n = h->n;

	h->n = 0;
	for (unsigned i = 0; i < n; i++) {
		struct hold_mad *m = &h->q[i];

		fn(arg, m->mad, m->len, m->have_from ? &m->from : NULL);
		free(m->mad);
	}
	h->dropped = 0;
}
