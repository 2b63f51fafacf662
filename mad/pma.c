/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "mad/pma.h"

/* IBA 13.4.3: the common MAD header; IBA 16.1.1: PerfMgt data starts after 40 reserved bytes. */
#define MAD_HDR 24
#define PMA_DATA (MAD_HDR + 40)
#define PC_SIZE 44 /* PortCounters through PortXmitWait (IBA 16.1.3.5) */
#define PC_DATA 24 /* PortCounters: PortXmitData, PortRcvData, PortXmitPkts, PortRcvPkts, 32 bits */
/* PortCountersExtended: the data counters at 8, 64 bits each; then (IBA 1.3, the
 * additional counters) the error counters from 72 in enum pma_counter's order. */
#define PCE_DATA 8
#define PCE_DATA_END 40
#define PCE_ERRORS 72
#define PCE_ERRORS_END (PCE_ERRORS + 8 * _PMA_COUNTER_MAX)
#define CPI_SIZE 8
#define METHOD_GET 0x01
#define METHOD_GET_RESP 0x81
#define METHOD_SET 0x02

static const struct {
	const char *name;
	uint8_t off, bits; /* offset in the attribute; width (4 bits: high nibble at off, or low) */
	uint8_t shift;
	uint16_t thresh; /* infiniband-diags' suggestion */
} field[_PMA_COUNTER_MAX] = {
	[PMA_SYMBOL_ERRORS] = { "SymbolErrorCounter", 4, 16, 0, 10 },
	[PMA_LINK_ERROR_RECOVERY] = { "LinkErrorRecoveryCounter", 6, 8, 0, 10 },
	[PMA_LINK_DOWNED] = { "LinkDownedCounter", 7, 8, 0, 10 },
	[PMA_RCV_ERRORS] = { "PortRcvErrors", 8, 16, 0, 10 },
	[PMA_RCV_REMOTE_PHYS_ERRORS] = { "PortRcvRemotePhysicalErrors", 10, 16, 0, 100 },
	[PMA_RCV_SWITCH_RELAY_ERRORS] = { "PortRcvSwitchRelayErrors", 12, 16, 0, 100 },
	[PMA_XMIT_DISCARDS] = { "PortXmitDiscards", 14, 16, 0, 100 },
	[PMA_XMIT_CONSTRAINT_ERRORS] = { "PortXmitConstraintErrors", 16, 8, 0, 100 },
	[PMA_RCV_CONSTRAINT_ERRORS] = { "PortRcvConstraintErrors", 17, 8, 0, 100 },
	[PMA_LOCAL_LINK_INTEGRITY_ERRORS] = { "LocalLinkIntegrityErrors", 19, 4, 4, 10 },
	[PMA_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = { "ExcessiveBufferOverrunErrors", 19, 4, 0, 10 },
	[PMA_VL15_DROPPED] = { "VL15Dropped", 22, 16, 0, 100 },
	[PMA_XMIT_WAIT] = { "PortXmitWait", 40, 32, 0, 1000 },
};

const char *pma_counter_name(enum pma_counter c)
{
	return c < _PMA_COUNTER_MAX ? field[c].name : "?";
}

uint32_t pma_counter_max(enum pma_counter c)
{
	if (c >= _PMA_COUNTER_MAX)
		return 0;
	return field[c].bits == 32 ? UINT32_MAX : (1u << field[c].bits) - 1;
}

uint32_t pma_counter_threshold(enum pma_counter c)
{
	return c < _PMA_COUNTER_MAX ? field[c].thresh : 0;
}

int pma_counter_by_name(const char *name, size_t len)
{
	for (unsigned c = 0; c < _PMA_COUNTER_MAX; c++)
		if (strlen(field[c].name) == len && !strncmp(field[c].name, name, len))
			return (int)c;
	return -EINVAL;
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint64_t get_be(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

static void encode_hdr(uint8_t method, uint16_t attr, uint64_t tid, uint8_t mad[MAD_SIZE])
{
	memset(mad, 0, MAD_SIZE);
	mad[0] = 1; /* BaseVersion */
	mad[1] = PMA_CLASS;
	mad[2] = PMA_CLASS_VERSION;
	mad[3] = method;
	for (unsigned i = 0; i < 8; i++)
		mad[8 + i] = (uint8_t)(tid >> (56 - 8 * i));
	put_be16(mad + 16, attr);
}

static void encode(uint8_t method, uint8_t port_select, uint64_t tid, uint8_t mad[MAD_SIZE])
{
	encode_hdr(method, PMA_ATTR_PORT_COUNTERS, tid, mad);
	mad[PMA_DATA + 1] = port_select;
	/*
	 * CounterSelect: a Get ignores it (IBA 16.1.3.5; all ones as perfquery
	 * sends); a Set writes the selected counters, all of them, to the zeros
	 * the rest of the attribute holds. PortXmitWait and the counters IBA
	 * 1.2.1 added are selected by CounterSelect2 (ib_port_counters_t's
	 * counter_select2, byte 18): all of them too.
	 */
	put_be16(mad + PMA_DATA + 2, 0xffff);
	if (method == METHOD_SET)
		mad[PMA_DATA + 18] = 0xff;
}

void pma_encode_port_counters(uint8_t port_select, uint64_t tid, uint8_t mad[MAD_SIZE])
{
	encode(METHOD_GET, port_select, tid, mad);
}

void pma_encode_port_counters_clear(uint8_t port_select, uint64_t tid, uint8_t mad[MAD_SIZE])
{
	encode(METHOD_SET, port_select, tid, mad);
}

uint64_t pma_tid(const uint8_t *mad, size_t len)
{
	uint64_t tid = 0;

	if (len < MAD_HDR)
		return 0;
	for (unsigned i = 0; i < 8; i++)
		tid = tid << 8 | mad[8 + i];
	return tid;
}

/* An answer of attr for tid, size bytes of attribute at least: 0, -EPROTO, -EREMOTEIO. */
static int check_answer(const uint8_t *mad, size_t len, uint16_t attr, uint64_t tid, size_t size)
{
	if (len < PMA_DATA + size || mad[1] != PMA_CLASS || mad[3] != METHOD_GET_RESP ||
	    pma_tid(mad, len) != tid || get_be(mad + 16, 2) != attr)
		return -EPROTO;
	/* IBA 13.4.7: the status; the high bit of its first byte is class-specific. */
	if (get_be(mad + 4, 2) & 0x7fff)
		return -EREMOTEIO;
	return 0;
}

int pma_decode_port_counters(const uint8_t *mad, size_t len, uint8_t port_select, uint64_t tid,
			     struct pma_counters *c)
{
	const uint8_t *d = mad + PMA_DATA;
	struct pma_counters out = { 0 };
	int r = check_answer(mad, len, PMA_ATTR_PORT_COUNTERS, tid, PC_SIZE);

	if (r < 0)
		return r;
	if (d[1] != port_select)
		return -EPROTO;
	for (unsigned i = 0; i < _PMA_COUNTER_MAX; i++) {
		if (field[i].bits == 4)
			out.v[i] = (uint64_t)(d[field[i].off] >> field[i].shift) & 0xf;
		else
			out.v[i] = get_be(d + field[i].off, field[i].bits / 8u);
	}
	for (unsigned i = 0; i < _PMA_DATA_MAX; i++)
		out.data[i] = get_be(d + PC_DATA + 4 * i, 4);
	*c = out;
	return 0;
}

void pma_encode_class_port_info(uint64_t tid, uint8_t mad[MAD_SIZE])
{
	encode_hdr(METHOD_GET, PMA_ATTR_CLASS_PORT_INFO, tid, mad);
}

int pma_decode_class_port_info(const uint8_t *mad, size_t len, uint64_t tid,
			       struct pma_class_info *ci)
{
	const uint8_t *d = mad + PMA_DATA;
	int r = check_answer(mad, len, PMA_ATTR_CLASS_PORT_INFO, tid, CPI_SIZE);

	if (r < 0)
		return r;
	/* IBA 13.4.8.1: CapabilityMask at 2; CapabilityMask2 the high 27 bits of 4-7. */
	*ci = (struct pma_class_info){ .cap = (uint16_t)get_be(d + 2, 2),
				       .cap2 = (uint32_t)(get_be(d + 4, 4) >> 5) };
	return 0;
}

void pma_encode_port_counters_ext(uint8_t port_select, uint64_t tid, bool clear,
				  uint8_t mad[MAD_SIZE])
{
	encode_hdr(clear ? METHOD_SET : METHOD_GET, PMA_ATTR_PORT_COUNTERS_EXT, tid, mad);
	mad[PMA_DATA + 1] = port_select;
	/* CounterSelect and, for the additional counters, CounterSelect2: all of them. */
	put_be16(mad + PMA_DATA + 2, 0xffff);
	if (clear)
		memset(mad + PMA_DATA + 4, 0xff, 4);
}

int pma_decode_port_counters_ext(const uint8_t *mad, size_t len, uint8_t port_select,
				 uint64_t tid, bool errors, struct pma_counters *c)
{
	const uint8_t *d = mad + PMA_DATA;
	int r = check_answer(mad, len, PMA_ATTR_PORT_COUNTERS_EXT, tid,
			     errors ? PCE_ERRORS_END : PCE_DATA_END);

	if (r < 0)
		return r;
	if (d[1] != port_select)
		return -EPROTO;
	for (unsigned i = 0; i < _PMA_DATA_MAX; i++)
		c->data[i] = get_be(d + PCE_DATA + 8 * i, 8);
	c->wide_data = true;
	if (errors) {
		for (unsigned i = 0; i < _PMA_COUNTER_MAX; i++)
			c->v[i] = get_be(d + PCE_ERRORS + 8 * i, 8);
		c->wide_errors = true;
	}
	return 0;
}

bool pma_saturated(const struct pma_counters *c, enum pma_counter i)
{
	if (i >= _PMA_COUNTER_MAX)
		return false;
	return c->v[i] == (c->wide_errors ? UINT64_MAX : pma_counter_max(i));
}

bool pma_data_saturated(const struct pma_counters *c, enum pma_data d)
{
	if (d >= _PMA_DATA_MAX)
		return false;
	return c->data[d] == (c->wide_data ? UINT64_MAX : UINT32_MAX);
}

const char *pma_data_name(enum pma_data d)
{
	static const char *const name[_PMA_DATA_MAX] = {
		[PMA_XMIT_DATA] = "PortXmitData", [PMA_RCV_DATA] = "PortRcvData",
		[PMA_XMIT_PKTS] = "PortXmitPkts", [PMA_RCV_PKTS] = "PortRcvPkts",
	};

	return d < _PMA_DATA_MAX ? name[d] : "?";
}
