/* SPDX-License-Identifier: MIT */
/*
 * DOC: tests/rig/ — pieces of the test rig that the simulator lacks.
 *   rmpp.c       RMPP (IBA 13.6) as pure functions: segment a message,
 *                reassemble one, the sender's ACK window, ACK/ABORT MADs
 *   rmpp_shim.c  LD_PRELOAD library stacked over umad2sim: does with rmpp.c
 *                what the kernel's MAD layer does for agents registered with
 *                rmpp_version 1 (sends, receives, ACKs, timers)
 *   mkey.c       M_Key rules (IBA 14.2.4) as pure functions: check, lease,
 *                PortInfo's M_Key fields, trap 256's Notice
 *   mkey_sim.c   mkeyproxy's sockets: ibsim's protocol on both sides, the loop
 *   mkey_proxy.c mkeyproxy's work on each SMP: find its port, check, trap
 * Data flows: client write() -> rmpp_tx -> segments -> umad2sim -> ibsim;
 *             ibsim -> umad2sim -> segments -> rmpp_rx -> client read();
 *             client -> umad2sim -> mkeyproxy (mkey_check) -> ibsim and back.
 *
 * Nothing here does I/O, keeps time or allocates except the reassembly
 * buffer: the shim owns sockets, clocks and locks.
 *
 * Wire layout of an RMPP MAD (IBA 13.6.2.1): the 24-byte common MAD header,
 * then RMPPVersion, RMPPType, RRespTime(5 bits)|RMPPFlags(3 bits),
 * RMPPStatus, SegmentNumber (32 bits), PayloadLength/NewWindowLast (32
 * bits), then the class header (SA: 20 bytes) and the data. Every segment
 * repeats the headers; the data is cut in (256 - header) byte pieces.
 */
#ifndef LOOM_RIG_RMPP_H
#define LOOM_RIG_RMPP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RMPP_MAD_SIZE 256 /* one MAD on the wire */
#define RMPP_HDR_END 36   /* common MAD header + RMPP header */
#define RMPP_SEG_PAYLOAD (RMPP_MAD_SIZE - RMPP_HDR_END) /* 220: what PayloadLength counts */
#define RMPP_VERSION 1
#define RMPP_MAX_SEGS 16384 /* a reassembly larger than this is refused (STOP, RESX) */

enum rmpp_type {
	RMPP_TYPE_DATA = 1,
	RMPP_TYPE_ACK = 2,
	RMPP_TYPE_STOP = 3,
	RMPP_TYPE_ABORT = 4,
};

enum rmpp_flag {
	RMPP_FLAG_ACTIVE = 0x01,
	RMPP_FLAG_FIRST = 0x02,
	RMPP_FLAG_LAST = 0x04,
};

/* RMPPStatus (IBA table 176); ABORT carries 118..127, STOP carries RESX. */
enum rmpp_status {
	RMPP_ST_OK = 0,
	RMPP_ST_RESX = 1,        /* resources exhausted */
	RMPP_ST_T2L = 118,       /* total time too long */
	RMPP_ST_BAD_LEN = 119,   /* inconsistent Last and PayloadLength */
	RMPP_ST_BAD_SEG = 120,   /* inconsistent First and SegmentNumber */
	RMPP_ST_BADT = 121,      /* bad RMPPType */
	RMPP_ST_W2S = 122,       /* NewWindowLast too small */
	RMPP_ST_S2B = 123,       /* SegmentNumber too big */
	RMPP_ST_BAD_STATUS = 124, /* illegal status */
	RMPP_ST_UNV = 125,       /* unsupported version */
	RMPP_ST_TMR = 126,       /* too many retries */
	RMPP_ST_UNSPEC = 127,
};

#define RMPP_ST_ABORT_MIN RMPP_ST_T2L
#define RMPP_ST_ABORT_MAX RMPP_ST_UNSPEC

/* The RMPP header of a MAD, host order. */
struct rmpp_hdr {
	uint8_t version;
	uint8_t type;
	uint8_t rtime_flags; /* RRespTime << 3 | RMPPFlags */
	uint8_t status;
	uint32_t seg_num;
	uint32_t paylen_newwin;
};

/* Reads the RMPP header of MAD (len bytes); -EPROTO if shorter than 36. */
int rmpp_hdr_get(const uint8_t *mad, size_t len, struct rmpp_hdr *h);
/* Writes H into bytes 24..35 of MAD (which has at least 36 bytes). */
void rmpp_hdr_put(uint8_t *mad, const struct rmpp_hdr *h);
/* Is RMPP Active set in MAD (len bytes)? */
bool rmpp_active(const uint8_t *mad, size_t len);
/* Classes whose MADs carry an RMPP header: SA, DevMgt, DevAdm, BIS, vendor 0x30-0x4f. */
bool rmpp_class(uint8_t mgmt_class);
/* Bytes of headers repeated in every segment (SA 56, vendor range 2 40, ...). */
unsigned rmpp_hdr_len(uint8_t mgmt_class);

/*
 * Sender: one message cut into segments, and the window the receiver's
 * ACKs open. The message (headers + data) is borrowed, not copied.
 */
struct rmpp_tx {
	const uint8_t *mad;
	size_t len;          /* message bytes, headers included */
	unsigned hdr_len;    /* rmpp_hdr_len() of its class */
	unsigned seg_size;   /* data bytes per segment: 256 - hdr_len */
	unsigned pad;        /* zero bytes after the data in the last segment */
	uint32_t nseg;       /* segments in all (at least 1) */
	uint32_t seg_sent;   /* highest segment sent since the last rewind */
	uint32_t last_ack;   /* highest segment the receiver acknowledged */
	uint32_t newwin;     /* highest segment the receiver lets us send */
	unsigned retries;    /* rewinds allowed after a silence, reset by progress */
	unsigned retries_left;
	uint8_t version;     /* RMPPVersion to send (the agent's rmpp_version) */
};

/* -EINVAL if MAD is shorter than its class's headers, its class has no RMPP
 * header, or it needs more than RMPP_MAX_SEGS segments. */
int rmpp_tx_init(struct rmpp_tx *tx, const uint8_t *mad, size_t len, uint8_t version,
		 unsigned retries);
/* The next segment number the window allows (and counts it sent), or 0. */
uint32_t rmpp_tx_next(struct rmpp_tx *tx);
/* The 256 wire bytes of segment SEG (1..nseg). */
void rmpp_tx_segment(const struct rmpp_tx *tx, uint32_t seg, uint8_t out[RMPP_MAD_SIZE]);
bool rmpp_tx_done(const struct rmpp_tx *tx);

enum rmpp_ack_result {
	RMPP_ACK_OLD,   /* stale or repeated: nothing to do */
	RMPP_ACK_MORE,  /* window moved: send what rmpp_tx_next() gives */
	RMPP_ACK_DONE,  /* every segment acknowledged */
	RMPP_ACK_ABORT, /* protocol error: abort the send with *status */
};

/* An ACK (SegmentNumber SEG, NewWindowLast NEWWIN, RMPPStatus ST) arrived. */
enum rmpp_ack_result rmpp_tx_ack(struct rmpp_tx *tx, uint32_t seg, uint32_t newwin, uint8_t st,
				 uint8_t *status);
/* No ACK in time: go back to the last acknowledged segment (0) or give up
 * (-ETIMEDOUT, retries used up). */
int rmpp_tx_timeout(struct rmpp_tx *tx);

/*
 * Receiver: segments of one message in order, glued into one buffer laid out
 * as the kernel hands it to user space: the first segment whole, then each
 * later segment's data (its headers dropped), cut to the length the last
 * segment's PayloadLength gives.
 */
struct rmpp_rx {
	uint8_t *buf;       /* malloc'd; the message once done */
	size_t cap;
	size_t len;         /* bytes so far; the message length once done */
	unsigned hdr_len;
	uint32_t seg_num;   /* highest segment received in order */
	uint32_t last_ack;  /* highest segment acknowledged */
	uint32_t newwin;    /* highest segment the sender may send */
	uint32_t window;    /* segments granted per ACK */
	bool done;
};

enum rmpp_rx_result {
	RMPP_RX_DROP,  /* out of order or outside the window: ignore */
	RMPP_RX_KEEP,  /* taken; no ACK due yet */
	RMPP_RX_ACK,   /* taken (or a repeat): send rmpp_rx_ack_mad() */
	RMPP_RX_DONE,  /* the last segment: deliver buf/len, send the ACK */
	RMPP_RX_ABORT, /* protocol error: send ABORT (or STOP for RESX) with *status */
};

/* Checks a DATA segment's header before it starts or continues a message:
 * RMPP_ST_OK or the ABORT status to answer with. */
uint8_t rmpp_data_check(const struct rmpp_hdr *h);
/* SEG is segment 1 (First set). WINDOW (>= 1) segments are granted per ACK. */
enum rmpp_rx_result rmpp_rx_start(struct rmpp_rx *rx, const uint8_t *seg, size_t len,
				  uint32_t window, uint8_t *status);
/* A later segment of the same message (or a repeat of the first). */
enum rmpp_rx_result rmpp_rx_add(struct rmpp_rx *rx, const uint8_t *seg, size_t len,
				uint8_t *status);
void rmpp_rx_free(struct rmpp_rx *rx);

/* The ACK for the state of RX, answering segment SEG (its headers are
 * copied, Method's response bit flipped). OUT gets 256 bytes. */
void rmpp_rx_ack_mad(struct rmpp_rx *rx, const uint8_t *seg, uint8_t out[RMPP_MAD_SIZE]);
/* An ABORT (or STOP) answering MAD with STATUS; OUT gets 256 bytes. */
void rmpp_abort_mad(const uint8_t *mad, uint8_t type, uint8_t status,
		    uint8_t out[RMPP_MAD_SIZE]);

#endif
