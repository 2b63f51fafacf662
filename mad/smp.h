/* SPDX-License-Identifier: MIT */
#ifndef LOOM_MAD_SMP_H
#define LOOM_MAD_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/mad.h"

/* IBA 14.2.5: SMP attribute ids. */
enum smp_attr {
	SMP_ATTR_NODE_DESC = 0x0010,
	SMP_ATTR_NODE_INFO = 0x0011,
	SMP_ATTR_SWITCH_INFO = 0x0012,
	SMP_ATTR_PORT_INFO = 0x0015,
	SMP_ATTR_LFT = 0x0019,
	SMP_ATTR_MFT = 0x001b,
	SMP_ATTR_PKEY_TABLE = 0x0016,
	SMP_ATTR_SL2VL = 0x0017,
	SMP_ATTR_VLARB = 0x0018,
	SMP_ATTR_NOTICE = 0x0002,
	SMP_ATTR_SM_INFO = 0x0020,
};

enum smp_method {
	SMP_GET = 0x01,
	SMP_SET = 0x02,
	SMP_TRAP = 0x05,
	SMP_TRAP_REPRESS = 0x07,
	SMP_GET_RESP = 0x81,
};

/* IBA 14.2.5.6 PortInfo:PortState. */
enum smp_port_state {
	SMP_PORT_NOP = 0, /* in a Set: no change */
	SMP_PORT_DOWN = 1,
	SMP_PORT_INIT = 2,
	SMP_PORT_ARMED = 3,
	SMP_PORT_ACTIVE = 4,
};

/* IBA 14.2.5.11: an LFT block is 64 one-byte egress ports. */
#define SMP_LFT_BLOCK 64

/* IBA 14.2.1.2: an initial path has at most 63 hops (bytes 1..63). */
#define SMP_MAX_HOPS 63
/* IBA 14.2.1.1: the SMP data field. */
#define SMP_DATA_SIZE 64

/* A directed-route request, host order. path[1..hops] are egress ports. */
struct smp_req {
	uint8_t method;   /* SMP_GET or SMP_SET */
	uint16_t attr_id;
	uint32_t attr_mod;
	uint8_t hops;
	uint8_t path[SMP_MAX_HOPS + 1];
	uint64_t m_key;
	uint8_t data[SMP_DATA_SIZE]; /* Set payload, wire format */
};

/* What the transaction layer needs from any reply, before it knows the request. */
struct smp_hdr {
	uint8_t mgmt_class, method;
	uint16_t status; /* D bit (DR direction) masked off */
	uint32_t tid;    /* low 32 bits: the kernel owns the high half */
	uint16_t attr_id;
	uint32_t attr_mod;
};

struct smp_node_info {
	uint8_t base_version, class_version, node_type, num_ports;
	uint64_t sys_guid, node_guid, port_guid;
	uint16_t partition_cap, device_id;
	uint32_t revision;
	uint8_t local_port;
	uint32_t vendor_id; /* 24 bits */
};

struct smp_port_info {
	uint64_t m_key, subnet_prefix;
	uint16_t lid, sm_lid;
	uint8_t mkey_protect; /* M_KeyProtectBits */
	uint16_t mkey_lease;  /* M_KeyLeasePeriod, seconds */
	uint32_t cap_mask;
	uint8_t local_port;
	uint8_t lmc;
	uint8_t state;      /* IB_LINK_DOWN .. IB_LINK_ACTIVE (1..4) */
	uint8_t phys_state; /* IB_PORT_PHYS_STATE_* */
	uint8_t width_enabled, width_supported, width_active;
	uint8_t speed_supported, speed_enabled, speed_active;
	/* Only meaningful when cap_mask has IB_PORT_CAP_HAS_EXT_SPEEDS. */
	uint8_t ext_speed_supported, ext_speed_enabled, ext_speed_active;
	uint8_t neighbor_mtu, mtu_cap, vl_cap, op_vls;
	uint8_t sm_sl;
};

struct smp_switch_info {
	uint16_t lin_cap, rand_cap, mcast_cap, lin_top;
	uint8_t def_port, def_mcast_pri_port, def_mcast_not_port;
	uint8_t life_state;
	uint16_t lids_per_port, enforce_cap;
	uint8_t flags;
	uint16_t mcast_top;
};

/* Fill a 256-byte DR SMP from r with TID tid. -EINVAL on a bad request. */
int smp_encode(const struct smp_req *r, uint32_t tid, uint8_t mad[MAD_SIZE]);
/* Read the common header of a received MAD; -EPROTO if too short. */
int smp_peek(const uint8_t *mad, size_t len, struct smp_hdr *h);
/*
 * Check that a received MAD answers the request: GetResp, same class, TID,
 * attribute and modifier, status 0. -EPROTO on any mismatch, -EREMOTEIO on a
 * non-zero status (the node said no).
 */
int smp_check_resp(const uint8_t *mad, size_t len, const uint8_t *req);

/* Decoders of a checked response's data field. */
int smp_decode_node_info(const uint8_t *mad, size_t len, struct smp_node_info *ni);
/* desc gets the 64-byte NodeString, NUL-terminated. */
int smp_decode_node_desc(const uint8_t *mad, size_t len, char desc[SMP_DATA_SIZE + 1]);
int smp_decode_port_info(const uint8_t *mad, size_t len, struct smp_port_info *pi);
int smp_decode_switch_info(const uint8_t *mad, size_t len, struct smp_switch_info *si);
/* The raw data field of a checked response (what a later Set starts from). */
int smp_data(const uint8_t *mad, size_t len, uint8_t data[SMP_DATA_SIZE]);

/* ---- Set payloads (smp_set.c) ------------------------------------------------ */

/*
 * What the SM changes in a port's PortInfo; everything else goes back as
 * read, and the fields whose 0 means "no change" (PortPhysicalState,
 * LinkSpeedEnabled, LinkWidthEnabled, LinkDownDefaultState) are sent as 0,
 * so a Set never renegotiates a link by accident.
 */
struct smp_port_set {
	uint16_t lid, sm_lid;
	uint8_t lmc;
	uint8_t state;        /* enum smp_port_state; SMP_PORT_NOP leaves it */
	uint8_t neighbor_mtu; /* IB_MTU_LEN_*; 0 leaves it */
	uint8_t op_vls;       /* IBA encoding (1: VL0 .. 5: VL0-14); 0 leaves it */
	uint8_t enforce;      /* partition enforcement, in and out: SMP_ENFORCE_* */
	/* Credit and timeout knobs: which to write (SMP_KNOB_*), and their values. */
	uint8_t knobs;
	uint8_t vl_high_limit; /* PortInfo:VLHighLimit */
	uint8_t hoq_life;      /* PortInfo:HOQLife code, 0-20 (4.096 us x 2^code; 20: infinite) */
	uint8_t vl_stall;      /* PortInfo:VLStallCount, 0-7 */
	uint64_t subnet_prefix;
	/*
	 * IBA 14.2.5.6: ClientReregister: the port's clients register with the
	 * SA again (multicast joins, services, subscriptions), IBA 14.4.11.
	 */
	bool client_rereg;
	/*
	 * IBA 14.2.4: with mkey, the Set writes M_Key, M_KeyProtectBits and
	 * M_KeyLeasePeriod; without, M_Key 0 as always. mkey_match: the port
	 * holds them (a CA port, switch port 0), so a match compares them.
	 */
	bool mkey, mkey_match;
	uint8_t mkey_protect;
	uint16_t mkey_lease;
	uint64_t m_key;
};

enum { SMP_KNOB_VL_HIGH = 1, SMP_KNOB_HOQ = 2, SMP_KNOB_STALL = 4 };
/* Knobs that a Set asked for (sent) and the answer does not hold (got):
 * the node does not keep them (ibsim keeps HOQLife only). */
uint8_t smp_port_info_knobs_dropped(const uint8_t sent[SMP_DATA_SIZE],
				    const uint8_t got[SMP_DATA_SIZE]);

enum { SMP_ENFORCE_LEAVE, SMP_ENFORCE_OFF, SMP_ENFORCE_ON };
/* A PortInfo Set payload: raw (as read) with s applied. */
void smp_port_info_set(const uint8_t raw[SMP_DATA_SIZE], const struct smp_port_set *s,
		       uint8_t out[SMP_DATA_SIZE]);
/* Whether a PortInfo has partition enforcement on, inbound and outbound. */
bool smp_port_info_enforces(const uint8_t raw[SMP_DATA_SIZE]);
/* Whether raw already holds what s would set (ignoring state, checked apart). */
bool smp_port_info_matches(const uint8_t raw[SMP_DATA_SIZE], const struct smp_port_set *s);
/*
 * A SwitchInfo Set payload: raw with LinearFDBTop set and, when clear_change,
 * PortStateChange written as 1 (IBA 14.2.5.4: writing 1 clears it).
 */
void smp_switch_info_set(const uint8_t raw[SMP_DATA_SIZE], uint16_t lin_top, bool clear_change,
			 uint8_t out[SMP_DATA_SIZE]);

/*
 * A SwitchInfo Set payload: raw with MulticastFDBTop set (IBA 14.2.5.4: the
 * highest MLID whose MFT entry is valid; 0xBFFF: none), PortStateChange left.
 */
void smp_switch_info_mcast_top(const uint8_t raw[SMP_DATA_SIZE], uint16_t mcast_top,
			       uint8_t out[SMP_DATA_SIZE]);
/* PortInfo:CapabilityMask IsMulticastFDBTopSupported (IBA 14.2.5.6). */
#define SMP_CAP_MCAST_FDB_TOP 0x40000000u
/*
 * SwitchInfo (IBA 1.2.1 14.2.5.4) OptimizedSLtoVLMappingProgramming, in
 * smp_switch_info.life_state (bit 0, as iba/ib_types.h reads it): the switch
 * takes one SLtoVLMappingTable Set for many tables, AttributeModifier
 * SMP_SL2VL_ALL_IN (every input port; the input port field is ignored) and/or
 * SMP_SL2VL_ALL_OUT (every output port) (14.2.5.8).
 */
#define SMP_SI_OPT_SL2VL 0x01
#define SMP_SL2VL_ALL_IN 0x20000u
#define SMP_SL2VL_ALL_OUT 0x10000u
/* SwitchInfo byte 17 (smp_switch_info.flags) EnhancedPort0 (IBA 14.2.5.4). */
#define SMP_SI_ENHANCED_PORT0 0x08
/*
 * PortInfo:CapabilityMask IsSLMappingSupported (IBA 14.2.5.6), host order: the
 * port has SLtoVLMappingTables (a switch: read on port 0).
 */
#define SMP_CAP_SL_MAP 0x00000040u
/* PortInfo:CapabilityMask IsExtendedSpeedsSupported (IBA 14.2.5.6), host order. */
#define SMP_CAP_EXT_SPEEDS 0x00004000u

/* ---- partition and QoS tables (smp_tables.c) ------------------------------- */

#define SMP_PKEY_BLOCK 32  /* P_Keys a P_KeyTable block */
#define SMP_NUM_SL 16
#define SMP_VLARB_BLOCK 32 /* entries a VLArbitrationTable block */

enum smp_vlarb_block {
	SMP_VLARB_LOW_0_31 = 1,
	SMP_VLARB_LOW_32_63 = 2,
	SMP_VLARB_HIGH_0_31 = 3,
	SMP_VLARB_HIGH_32_63 = 4,
};

struct smp_vlarb {
	uint8_t vl;     /* 0-14 */
	uint8_t weight; /* 0: the entry is skipped */
};

/* AttributeModifiers: P_Key block of a (switch) port; SL2VL input/output port; VLArb block. */
uint32_t smp_pkey_mod(uint8_t port, uint16_t block);
uint32_t smp_sl2vl_mod(uint8_t in_port, uint8_t out_port);
uint32_t smp_vlarb_mod(uint8_t port, enum smp_vlarb_block block);
int smp_decode_pkeys(const uint8_t *mad, size_t len, uint16_t pkeys[SMP_PKEY_BLOCK]);
void smp_encode_pkeys(const uint16_t pkeys[SMP_PKEY_BLOCK], uint8_t data[SMP_DATA_SIZE]);
int smp_decode_sl2vl(const uint8_t *mad, size_t len, uint8_t vl[SMP_NUM_SL]);
/* -EINVAL if a VL is over 15. */
int smp_encode_sl2vl(const uint8_t vl[SMP_NUM_SL], uint8_t data[SMP_DATA_SIZE]);
int smp_decode_vlarb(const uint8_t *mad, size_t len, struct smp_vlarb e[SMP_VLARB_BLOCK]);
int smp_encode_vlarb(const struct smp_vlarb e[SMP_VLARB_BLOCK], uint8_t data[SMP_DATA_SIZE]);

/* ---- multicast forwarding tables (smp_tables.c) ----------------------------- */

/* IBA 14.2.5.12: a MulticastForwardingTable block is 32 MLIDs x 16 ports. */
#define SMP_MFT_BLOCK 32
#define SMP_MFT_POSITIONS 16

/* AttributeModifier: port position (16 ports each) in bits 31..28, block in 8..0. */
uint32_t smp_mft_mod(uint32_t block, unsigned position);
int smp_decode_mft(const uint8_t *mad, size_t len, uint16_t mask[SMP_MFT_BLOCK]);
void smp_encode_mft(const uint16_t mask[SMP_MFT_BLOCK], uint8_t data[SMP_DATA_SIZE]);

/* ---- the SM's own attributes (smp_agent.c) ---------------------------------- */

/* IBA 14.2.5.13 SMInfo:SMState. */
enum smp_sm_state {
	SMP_SM_NOT_ACTIVE = 0,
	SMP_SM_DISCOVERING = 1,
	SMP_SM_STANDBY = 2,
	SMP_SM_MASTER = 3,
};

struct smp_sm_info {
	uint64_t guid, sm_key;
	uint32_t act_count;
	uint8_t priority; /* 0..15 */
	uint8_t state;    /* enum smp_sm_state */
};

/* IBA 14.2.5.1 Notice, the parts an SM acts on. */
struct smp_notice {
	bool generic;
	uint8_t type;
	uint16_t trap_num;   /* generic: the trap number (128: link state change) */
	uint16_t issuer_lid;
	uint32_t producer;   /* generic: node type of the producer */
};

int smp_encode_sm_info(const struct smp_sm_info *si, uint8_t data[SMP_DATA_SIZE]);
int smp_decode_sm_info(const uint8_t *mad, size_t len, struct smp_sm_info *si);
int smp_decode_notice(const uint8_t *mad, size_t len, struct smp_notice *n);
/*
 * The answer to a received request: same header and TID, Method GetResp
 * (TrapRepress for a Trap, IBA 13.4.6.5), status, data (NULL: as received).
 * A directed-route answer gets the D bit (IBA 14.2.2.2). -EPROTO if req is
 * not a whole SMP request.
 */
int smp_make_resp(const uint8_t *req, size_t len, uint16_t status,
		  const uint8_t data[SMP_DATA_SIZE], uint8_t out[MAD_SIZE]);
/*
 * Trap 144 (IBA 14.2.5.1, "local changes": CapabilityMask, SM priority) as
 * a CA port sends it to the master's LID: a LID-routed SMP Trap(Notice),
 * generic, informational, producer CA, issued by lid. A standby that
 * outranks the master sends it with the SM-priority-changed flag, so that
 * the master sweeps, finds it and hands over (IBA 14.4.1).
 */
void smp_make_trap144(uint64_t tid, uint16_t lid, uint32_t cap_mask, uint16_t change_flags,
		      uint8_t out[MAD_SIZE]);
#define SMP_TRAP144_SM_PRIORITY 0x0008 /* ChangeFlags: SM priority changed */

#endif
