/* SPDX-License-Identifier: MIT */
/*
 * mkey.h: the M_Key rules of IBA 14.2.4 as pure functions, for the rig's
 * M_Key proxy (mkey_proxy.c; see tests/rig/README, "M_Key").
 *
 * One struct mkey_port per protected port: a channel adapter's or router's
 * port, or a switch as a whole (IBA: the M_Key of switch port 0 governs every
 * SMP to the switch; the M_Key components of its external ports are
 * undefined). The table learns a port's M_Key, M_KeyProtectBits and
 * M_KeyLeasePeriod from the PortInfo Sets it lets through, and answers, for
 * each SubnGet/SubnSet reaching that port, what IBA says the port does:
 *
 *   - PortInfo:M_Key 0: no check at all (every key matches);
 *   - the SMP's M_Key equals the port's: the check passes and a running
 *     lease countdown stops;
 *   - otherwise a SubnGet passes at protect level 0, passes with
 *     PortInfo:M_Key read as 0 at level 1, and at levels 2 and 3 it fails as
 *     a SubnSet fails at every level: no answer, M_KeyViolations + 1, the
 *     lease countdown starts (when M_KeyLeasePeriod is not 0 and it is not
 *     running already), trap 256 (Bad M_Key) to the port's master SM;
 *   - when the countdown reaches 0, M_KeyProtectBits becomes 0 (the key
 *     stays).
 *
 * Time is whatever the caller says, in milliseconds. Fields are host order;
 * the byte offsets of the wire structures are ib_types.h's.
 */
#ifndef LOOM_RIG_MKEY_H
#define LOOM_RIG_MKEY_H

#include <stdbool.h>
#include <stdint.h>

#define MKEY_MAX_PORTS 4096

struct mkey_port {
	uint64_t guid;      /* CA/router: the port GUID; switch: port 0's GUID */
	uint64_t key;       /* PortInfo:M_Key; 0 = no protection */
	uint8_t protect;    /* M_KeyProtectBits, 0-3 */
	uint16_t lease;     /* M_KeyLeasePeriod, seconds; 0 = never expires */
	uint16_t violations; /* M_KeyViolations, saturates at 0xffff */
	int64_t lease_end;  /* ms when protect drops to 0; 0 = no countdown */
	uint16_t lid;       /* the port's LID, for the trap's IssuerLID */
	uint16_t sm_lid;    /* PortInfo:MasterSMLID: where trap 256 goes */
	bool is_switch;
};

struct mkey_table {
	struct mkey_port port[MKEY_MAX_PORTS];
	unsigned n;
};

enum mkey_verdict {
	MKEY_PASS,        /* answer as usual */
	MKEY_PASS_HIDDEN, /* answer, but PortInfo:M_Key reads as 0 */
	MKEY_FAIL,        /* violation: no answer, counted, trap 256 */
};

/* SMP methods the check applies to (IBA 14.2.4.1). */
#define MKEY_METHOD_GET 0x01
#define MKEY_METHOD_SET 0x02
#define MKEY_METHOD_TRAP_REPRESS 0x07

struct mkey_port *mkey_find(struct mkey_table *t, uint64_t guid);
/* Find or add; NULL when the table is full. */
struct mkey_port *mkey_get(struct mkey_table *t, uint64_t guid, bool is_switch);

/* The countdown: drop protection once its end has passed. */
void mkey_expire(struct mkey_port *p, int64_t now_ms);

/* Check an SMP with key `smp_key` and `method` arriving at port p (NULL: a
 * port never given a key). Counts violations and starts/stops the lease. */
enum mkey_verdict mkey_check(struct mkey_port *p, uint64_t smp_key, uint8_t method,
			     int64_t now_ms);

/* A PortInfo Set (64-byte attribute, wire order) was accepted: keep its M_Key
 * components, LID and MasterSMLID. A Set writing M_KeyViolations 0 resets the
 * counter. */
void mkey_store(struct mkey_port *p, const uint8_t pi[64]);

/* A PortInfo answer for port p (wire order): put the port's M_Key components
 * in (M_Key as 0 when hidden), and note its LID and MasterSMLID. */
void mkey_show(struct mkey_port *p, uint8_t pi[64], bool hidden);

/* Does a PortInfo payload carry any M_Key component? */
bool mkey_pi_has_key(const uint8_t pi[64]);

/* Trap 256 (Bad M_Key, IBA 14.2.5.1 Notice) for a failed check at port p:
 * the 64 bytes of the Notice that fit an SMP's data. `smp` is the offending
 * SMP (256 bytes, wire order), `req_lid` the requester's LID. */
void mkey_trap256(const struct mkey_port *p, const uint8_t smp[256], uint16_t req_lid,
		  uint8_t notice[64]);

#endif
