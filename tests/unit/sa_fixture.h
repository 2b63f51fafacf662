/* SPDX-License-Identifier: MIT */
#ifndef LOOM_TESTS_SA_FIXTURE_H
#define LOOM_TESTS_SA_FIXTURE_H

/*
 * DOC: tests/unit/sa_fixture.c — what the SA tests share (sa_req_test,
 * sa_node_test, sa_src_test, sa_inform_test, sa_mcm_test, sa_service_test,
 * sa_path_test, sa_tables_test, sa_mirror_test): two hand-built fabrics, the one place that
 * builds the sa_src they are asked through, partitions, and a request sent
 * through sa_answer as a client sends it.
 * Every helper fails the running cmocka test on an error instead of
 * returning it.
 */

#include <stddef.h>
#include <stdint.h>

#include <iba/ib_types.h>

#include "config/config.h"
#include "fabric/prog_priv.h"
#include "sa/sa_priv.h"

/* The link-local subnet prefix every fabric here uses. */
#define SFX_PREFIX 0xfe80000000000000ULL

/* A fabric and the SA view of it; node indices by role. */
struct sa_fab {
	struct subnet *sn;
	struct disc_live live;
	struct prog_cache *lfts;  /* the path fabric: LFTs as programmed; else NULL */
	struct route_out ro;      /* the path fabric: the engine's SLs; else empty */
	struct config *qos;       /* the path fabric: the default QoS classes; else NULL */
	struct sa_services svc;   /* sa_fix_services, sa_fix_mirror only */
	struct sa_events ev;      /* sa_fix_mirror only: subscriptions */
	struct mcast *mc;         /* sa_fix_mcm only: the multicast groups; else NULL */
	/* sa_fix_partitions' tables */
	uint32_t off[64];
	uint16_t key[64];
	struct pkey_plan plan;
	struct sa_src src;
	uint32_t sw1, sw2, h1, h2, h3; /* node indices (sw2, h3: the path fabric only) */
};

/*
 * cmocka setups, *state a struct sa_fab:
 *  - sa_fix_star: a switch sw1 (LID 1) with CA h1 (LID 2, port GUID 0x201)
 *    on port 1 and CA h2 (LID 3, 0x301) on port 2; PortInfo read from every
 *    port (M_Key 0x1234, Active where linked, else Down); the SM on h1
 *    (GUID 0x201, priority 5, state 3);
 *  - sa_fix_services: the same, with services kept, the SM_Key
 *    SFX_SM_KEY and the clock at 1000 ms;
 *  - sa_fix_mcm: the star, with the SM_Key SFX_SM_KEY, an empty set of
 *    multicast groups (f->mc), and h1's and h2's links 4x SDR (rate 3)
 *    with a 2048-byte MTU (code 4);
 *  - sa_fix_mirror: sa_fix_mcm's star with every store an SA keeps:
 *    groups, services and subscriptions (f->ev), the clock at 1000 ms;
 *  - sa_fix_path: sw1 (LID 1) and sw2 (LID 4) joined by port 3, h1 (LID 2)
 *    on sw1 port 1, h2 (LID 3) and h3 (LID 5) on sw2 ports 1 and 2; 4x DDR,
 *    NeighborMTU 2048 but 1024 on h3's link, h1's link SDR; LFTs as
 *    programmed, the engine's SLs (at sw1: LID 3 SL 1, LID 5 SL 2; at sw2:
 *    LID 2 SL 3), SL n on VL n % 4, the default QoS classes; the SM on h1.
 */
#define SFX_SM_KEY 0x5151515151515151ULL
int sa_fix_star(void **state);
int sa_fix_services(void **state);
int sa_fix_mcm(void **state);
int sa_fix_mirror(void **state);
int sa_fix_path(void **state);
int sa_fix_teardown(void **state);

/* Model port num of node. */
uint32_t sa_fix_port(const struct sa_fab *f, uint32_t node, unsigned num);

/* The P_Keys of one port, in table order, up to the first 0. */
struct sa_fix_pkeys {
	uint32_t port;
	uint16_t key[4];
};

/* Ports p[0..n) hold those keys, every other port none: into *s (f->src or a copy). */
void sa_fix_partitions(struct sa_fab *f, struct sa_src *s, const struct sa_fix_pkeys *p,
		       unsigned n);

/* The path fabric's partitions: 0x0001 with h1 and h2 limited, h3 full; the
 * default partition for h1, h3 and the switches; h3 also in 0x8001. */
void sa_fix_path_partitions(struct sa_fab *f);

/*
 * An SA request as saquery builds it (TID 0xabcdef), record zeroed:
 * mad must hold MAD_SIZE bytes. The record, to fill in.
 */
void *sa_fix_req(uint8_t *mad, uint8_t method, uint16_t attr, uint64_t mask);
/* The request carries SM_Key key (IBA 15.2.1.1). */
void sa_fix_key(uint8_t *mad, uint64_t key);
/* The big-endian 16-bit field at byte rec_off of the request's record. */
void sa_fix_set16(uint8_t *mad, size_t rec_off, uint16_t v);

/* sa_answer's answer. */
struct sa_ans {
	int r;
	uint16_t status;
	size_t len;
	uint8_t *out;
};

/* Ask s with len bytes of mad, from LID lid (QP 1) at P_Key index pkey_index. */
struct sa_ans sa_fix_ask(const struct sa_src *s, const uint8_t *mad, size_t len, uint16_t lid,
			 uint16_t pkey_index);
/* The answer's SA header. */
static inline const ib_sa_mad_t *sa_fix_hdr(const struct sa_ans *a)
{
	return (const ib_sa_mad_t *)a->out;
}
/* Record i of the answer, size bytes each. */
static inline const void *sa_fix_rec(const struct sa_ans *a, size_t size, size_t i)
{
	return a->out + SA_HDR_SIZE + i * size;
}
/* How many records of size bytes the answer holds. */
static inline unsigned sa_fix_nrecs(const struct sa_ans *a, size_t size)
{
	return (unsigned)((a->len - SA_HDR_SIZE) / size);
}

#endif
