/* SPDX-License-Identifier: MIT */
/*
 * SA requests off the wire: every check a request must pass before any
 * record is looked at, and the component-mask comparison (IBA 15.2.1.1:
 * each mask bit names one field of the record; a set bit means the
 * template's value of that field must match).
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "sa/sa_priv.h"

/* IBA 13.4.2: the common MAD header, all a status answer needs from a request. */
#define MAD_COMMON_HDR 24

unsigned sa_method_bit(uint8_t method)
{
	switch (method) {
	case IB_MAD_METHOD_GET: return SA_M_GET;
	case IB_MAD_METHOD_GETTABLE: return SA_M_GETTABLE;
	case IB_MAD_METHOD_SET: return SA_M_SET;
	case IB_MAD_METHOD_DELETE: return SA_M_DELETE;
	/* GetMulti: MultiPathRecord; GetTraceTable: defined, served by nothing. */
	case IB_MAD_METHOD_GETTRACETABLE:
	case IB_MAD_METHOD_GETMULTI: return SA_M_GETMULTI;
	default: return 0;
	}
}

static uint64_t be64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

int sa_req_decode(const uint8_t *mad, size_t len, struct sa_req *q)
{
	const size_t off_sm_key = offsetof(ib_sa_mad_t, sm_key);
	uint16_t v16;
	uint32_t v32;

	if (len < MAD_COMMON_HDR)
		return -EPROTO;
	/* Not ours, or an answer (IBA 13.4.5: the R bit): nothing to say back. */
	if (mad[1] != IB_MCLASS_SUBN_ADM || (mad[3] & IB_MAD_METHOD_RESP_MASK))
		return -EPROTO;
	memset(q, 0, sizeof(*q));
	q->method = mad[3];
	memcpy(&v16, mad + offsetof(ib_sa_mad_t, attr_id), 2);
	q->attr_id = be16toh(v16);
	memcpy(&v32, mad + offsetof(ib_sa_mad_t, attr_mod), 4);
	q->attr_mod = be32toh(v32);
	/* IBA 13.4.4: a version we do not speak is answered with "bad version". */
	if (mad[0] != 1 || mad[2] != SA_CLASS_VERSION)
		return SA_ST_BAD_VERSION;
	if (!sa_method_bit(q->method))
		return SA_ST_UNSUP_METHOD;
	/* Every SA MAD is 256 bytes (IBA 13.4); a short one is not a request we can read. */
	if (len < MAD_SIZE)
		return SA_ST_REQ_INVALID;
	/*
	 * IBA 15.2.1.1 and 13.6.2: a request that fits one MAD has RMPP
	 * inactive; a multi-segment one (only MultiPathRecord may be) would
	 * come reassembled and longer. Anything else is a broken sender.
	 */
	if ((mad[offsetof(ib_sa_mad_t, rmpp_flags)] & IB_RMPP_FLAG_ACTIVE) &&
	    mad[offsetof(ib_sa_mad_t, rmpp_type)] != IB_RMPP_TYPE_DATA)
		return SA_ST_REQ_INVALID;
	/* The status field of a request must be zero (IBA 13.4.7). */
	memcpy(&v16, mad + offsetof(ib_sa_mad_t, status), 2);
	if (v16)
		return SA_ST_INVALID_FIELD;
	q->sm_key = be64_at(mad + off_sm_key);
	q->comp_mask = be64_at(mad + offsetof(ib_sa_mad_t, comp_mask));
	memcpy(q->rec, mad + SA_HDR_SIZE, SA_DATA_SIZE);
	q->data = mad + SA_HDR_SIZE;
	q->data_len = len - SA_HDR_SIZE;
	return 0;
}

/* Bits [bit, bit + width) of a and b equal? Bit 0 is the MSB of byte 0. */
static bool bits_eq(const uint8_t *a, const uint8_t *b, unsigned bit, unsigned width)
{
	if (bit % 8 == 0 && width % 8 == 0)
		return !memcmp(a + bit / 8, b + bit / 8, width / 8);
	for (unsigned i = bit; i < bit + width; i++) {
		unsigned m = 0x80u >> (i % 8);

		if ((a[i / 8] & m) != (b[i / 8] & m))
			return false;
	}
	return true;
}

bool sa_match(const struct sa_field *f, unsigned n, uint64_t mask, const uint8_t *tmpl,
	      const uint8_t *rec)
{
	/* Bits beyond the record's fields select nothing (IBA: reserved, ignored). */
	for (unsigned i = 0; i < n && i < 64; i++)
		if ((mask >> i & 1) && f[i].width && !bits_eq(tmpl, rec, f[i].bit, f[i].width))
			return false;
	return true;
}
