/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SA_PRIV_H
#define LOOM_SA_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <iba/ib_types.h>

#include "sa/sa.h"

/* IBA 15.2.1.1: the SA header ends where the data starts; 200 bytes of data. */
#define SA_HDR_SIZE IB_SA_MAD_HDR_SIZE
#define SA_DATA_SIZE IB_SA_DATA_SIZE
#define SA_CLASS_VERSION 2

/* MAD status, host order (IBA 13.4.7; SA codes in bits 8-14, IBA 15.2.1.1). */
enum sa_status {
	SA_ST_OK = 0x0000,
	SA_ST_BUSY = 0x0001,
	SA_ST_BAD_VERSION = 0x0004,
	SA_ST_UNSUP_METHOD = 0x0008,
	SA_ST_UNSUP_METHOD_ATTR = 0x000c,
	SA_ST_INVALID_FIELD = 0x001c,
	SA_ST_NO_RESOURCES = 0x0100,
	SA_ST_REQ_INVALID = 0x0200,
	SA_ST_NO_RECORDS = 0x0300,
	SA_ST_TOO_MANY_RECORDS = 0x0400,
	SA_ST_INVALID_GID = 0x0500,
	SA_ST_INSUF_COMPS = 0x0600,
	SA_ST_DENIED = 0x0700,
};

/* IBA 15.4 methods, as a set an attribute supports. */
enum {
	SA_M_GET = 1 << 0,
	SA_M_GETTABLE = 1 << 1,
	SA_M_SET = 1 << 2,
	SA_M_DELETE = 1 << 3,
	SA_M_GETMULTI = 1 << 7, /* what sa_method_bit says of GetMulti (and GetTraceTable) */
};

/* A decoded request, host order; the template record stays in wire format. */
struct sa_req {
	uint8_t method;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint64_t sm_key;
	uint64_t comp_mask;
	uint8_t rec[SA_DATA_SIZE];
	/*
	 * All the data after the SA header, as received: one MAD's 200 bytes,
	 * or more for a request that came in RMPP segments (MultiPathRecord's
	 * GID list). Borrowed from the caller of sa_answer.
	 */
	const uint8_t *data;
	size_t data_len;
};

/*
 * Check and decode. 0: a request to serve; > 0: a MAD status to answer
 * with (the request is malformed or unsupported as a whole); -EPROTO: no
 * answer is due.
 */
int sa_req_decode(const uint8_t *mad, size_t len, struct sa_req *q);
/* SA_M_* of a request method, 0 if the SA defines no such request. */
unsigned sa_method_bit(uint8_t method);

/*
 * A record field a component-mask bit selects: bit offset from the
 * record's start (IBA numbering: bit 0 is the MSB of byte 0) and width;
 * width 0 for reserved bits, which never fail a match.
 */
struct sa_field {
	uint16_t bit, width;
};

/* Does rec agree with tmpl on every field mask selects (bit i -> f[i])? */
bool sa_match(const struct sa_field *f, unsigned n, uint64_t mask, const uint8_t *tmpl,
	      const uint8_t *rec);

struct sa_attr;

/* One query being answered: the records found so far. */
struct sa_query {
	const struct sa_src *src;
	const struct sa_req *req;
	const struct sa_attr *attr;
	uint32_t requester; /* model port the request came from */
	const struct mad_addr *from; /* where it came from (its QP: InformInfo keeps it) */
	bool trusted;       /* the request carried our SM_Key (IBA 15.2.1.1, C15-0.1.5) */
	uint64_t mask;      /* what sa_emit compares; families clear bits they match themselves */
	unsigned limit;     /* stop after this many (Get: 2 tells "too many"); 0: no limit */
	uint8_t *buf;
	size_t n, cap;      /* records in buf, room */
	int err;
	uint16_t status;    /* a family's own answer for the whole request (SA_ST_*); 0: none */
};

/* Keep rec (attr->size bytes) if it matches; false: stop walking (enough, or no memory). */
bool sa_emit(struct sa_query *q, const void *rec);

/*
 * A record family: its attribute, record size (a multiple of 8, IBA 15.2.1.1
 * AttributeOffset), the methods it serves, its component-mask fields and the
 * walk that offers every record to sa_emit. New families (PathRecord,
 * MCMemberRecord, ServiceRecord, InformInfo) add one of these in a file of
 * their own and a line in sa.c's table.
 */
/* IBA 15.4: P_KeyTableRecords only in answer to a trusted request. */
#define SA_A_TRUSTED_ONLY 0x01

struct sa_attr {
	uint16_t id;
	const char *name;
	uint16_t size;
	uint8_t methods;
	uint8_t flags;      /* SA_A_* */
	const struct sa_field *fields;
	uint8_t n_fields;
	void (*walk)(struct sa_query *q);
};

extern const struct sa_attr sa_attr_class_port_info, sa_attr_node, sa_attr_port_info,
	sa_attr_guid_info, sa_attr_link, sa_attr_switch_info, sa_attr_lft, sa_attr_mft,
	sa_attr_sm_info, sa_attr_pkey_table, sa_attr_sl2vl, sa_attr_vlarb, sa_attr_path,
	sa_attr_multipath,
	sa_attr_mcm, sa_attr_inform, sa_attr_inform_rec, sa_attr_service;

/* ---- the view (sa_src.c) ---- */

/* The port owning a unicast LID (LMC ranges included), SUBNET_NONE if none. */
uint32_t sa_port_of_lid(const struct sa_src *s, uint16_t lid);
/*
 * The ports a record family must look at for a query whose LID field
 * (bit 0 of the mask, by_lid) asks for lid: [*first, *end), the ports of
 * the node owning the LID; every port when the query names no LID or the
 * LIDs are ambiguous. The caller still tests each port's LID.
 */
void sa_lid_ports(const struct sa_src *s, bool by_lid, uint16_t lid, uint32_t *first,
		  uint32_t *end);
/* An end port with a LID: a switch's port 0, a CA's or router's port (not port 0). */
bool sa_lid_endport(const struct sa_src *s, uint32_t pi);
/* The PortGUID that names port pi in records: a switch's port 0 GUID for all its ports. */
uint64_t sa_port_guid(const struct sa_src *s, uint32_t pi);
/* The end port with a LID (sa_lid_endport) named by guid, SUBNET_NONE if none. */
uint32_t sa_port_of_guid(const struct sa_src *s, uint64_t guid);
/* The LID that names port pi in records: a switch's port 0 LID for all its ports. */
uint16_t sa_endport_lid(const struct sa_src *s, uint32_t pi, uint8_t *lmc);
/* The P_Keys port pi holds (a switch: its port 0's); *n of them. */
const uint16_t *sa_port_pkeys(const struct sa_src *s, uint32_t pi, uint32_t *n);
/*
 * May the requester see records about port pi? As OpenSM by default: only
 * if the two share a partition, one of them a full member (IBA 10.9.1).
 */
bool sa_visible(const struct sa_query *q, uint32_t pi);
/* Do ports a and b share a partition, one of them a full member? */
bool sa_ports_share(const struct sa_src *s, uint32_t a, uint32_t b);
/* Does port pi hold pkey (either membership)? */
bool sa_port_holds(const struct sa_src *s, uint32_t pi, uint16_t pkey);
/* The component-mask LID test, LMC-aware: lid in [base, base + 2^lmc). */
bool sa_lid_in(uint16_t lid, uint16_t base, uint8_t lmc);
/* The template's big-endian 16-bit field at byte off. */
uint16_t sa_tmpl16(const struct sa_query *q, size_t off);

#endif
