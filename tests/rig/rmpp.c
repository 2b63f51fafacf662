/* SPDX-License-Identifier: MIT */
/*
 * RMPP (IBA 13.6) as pure functions; see rmpp.h. The rules follow what the
 * Linux kernel's MAD layer does for agents registered with rmpp_version 1
 * (drivers/infiniband/core/mad_rmpp.c), since that is what OpenSM, saquery
 * and osmtest meet on real hardware:
 *  - a send is cut into (256 - class header) byte pieces, each with the
 *    headers repeated; PayloadLength is the whole payload in the first
 *    segment and the last segment's share in the last (0 in between);
 *  - the sender starts with a window of one segment and sends up to the
 *    NewWindowLast each ACK grants; a silence rewinds it to the last ACK;
 *  - the receiver takes segments in order only, ACKs the first, every
 *    window's end and the last, and ACKs a repeat again (its ACK was lost).
 * Unlike the kernel, segments that arrive ahead of a gap are dropped rather
 * than kept: the sender's rewind sends them again (ibsim never reorders).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rig_mad.h"
#include "rmpp.h"

#define MAD_METHOD 3
#define MAD_RESP_BIT 0x80
#define RMPP_OFF 24

int rmpp_hdr_get(const uint8_t *mad, size_t len, struct rmpp_hdr *h)
{
	if (len < RMPP_HDR_END)
		return -EPROTO;
	h->version = mad[RMPP_OFF];
	h->type = mad[RMPP_OFF + 1];
	h->rtime_flags = mad[RMPP_OFF + 2];
	h->status = mad[RMPP_OFF + 3];
	h->seg_num = rig_mad_be32(mad + RMPP_OFF + 4);
	h->paylen_newwin = rig_mad_be32(mad + RMPP_OFF + 8);
	return 0;
}

void rmpp_hdr_put(uint8_t *mad, const struct rmpp_hdr *h)
{
	mad[RMPP_OFF] = h->version;
	mad[RMPP_OFF + 1] = h->type;
	mad[RMPP_OFF + 2] = h->rtime_flags;
	mad[RMPP_OFF + 3] = h->status;
	rig_mad_put_be32(mad + RMPP_OFF + 4, h->seg_num);
	rig_mad_put_be32(mad + RMPP_OFF + 8, h->paylen_newwin);
}

bool rmpp_active(const uint8_t *mad, size_t len)
{
	return len >= RMPP_HDR_END && (mad[RMPP_OFF + 2] & RMPP_FLAG_ACTIVE);
}

bool rmpp_class(uint8_t mgmt_class)
{
	return mgmt_class == 0x03 ||                       /* SubnAdm */
	       mgmt_class == 0x06 ||                       /* DevMgt */
	       mgmt_class == 0x10 || mgmt_class == 0x12 || /* DevAdm, BIS */
	       (mgmt_class >= 0x30 && mgmt_class <= 0x4f); /* vendor range 2 */
}

unsigned rmpp_hdr_len(uint8_t mgmt_class)
{
	if (mgmt_class == 0x03)
		return 56; /* + SA header: SM_Key, AttributeOffset, ComponentMask */
	if (mgmt_class == 0x06 || mgmt_class == 0x10 || mgmt_class == 0x12)
		return 64;
	if (mgmt_class >= 0x30 && mgmt_class <= 0x4f)
		return 40; /* + reserved byte and OUI */
	return 24;
}

/* ---- sender ---------------------------------------------------------------- */

int rmpp_tx_init(struct rmpp_tx *tx, const uint8_t *mad, size_t len, uint8_t version,
		 unsigned retries)
{
	unsigned hdr_len, seg_size;
	size_t data_len, nseg;

	if (len < RMPP_HDR_END || !rmpp_class(mad[1]))
		return -EINVAL;
	hdr_len = rmpp_hdr_len(mad[1]);
	if (len < hdr_len)
		return -EINVAL;
	seg_size = RMPP_MAD_SIZE - hdr_len;
	data_len = len - hdr_len;
	/* An empty message is still one segment: the headers alone. */
	nseg = data_len ? (data_len + seg_size - 1) / seg_size : 1;
	if (nseg > RMPP_MAX_SEGS)
		return -EINVAL;
	*tx = (struct rmpp_tx){
		.mad = mad,
		.len = len,
		.hdr_len = hdr_len,
		.seg_size = seg_size,
		.pad = (unsigned)(nseg * seg_size - data_len),
		.nseg = (uint32_t)nseg,
		.newwin = 1, /* until the receiver's first ACK opens it */
		.retries = retries,
		.retries_left = retries,
		.version = version,
	};
	return 0;
}

uint32_t rmpp_tx_next(struct rmpp_tx *tx)
{
	uint32_t limit = tx->newwin < tx->nseg ? tx->newwin : tx->nseg;

	if (tx->seg_sent >= limit)
		return 0;
	return ++tx->seg_sent;
}

void rmpp_tx_segment(const struct rmpp_tx *tx, uint32_t seg, uint8_t out[RMPP_MAD_SIZE])
{
	struct rmpp_hdr h = {
		.version = tx->version,
		.type = RMPP_TYPE_DATA,
		.rtime_flags = RMPP_FLAG_ACTIVE,
		.seg_num = seg,
	};
	size_t off = tx->hdr_len + (size_t)(seg - 1) * tx->seg_size, n = 0;

	memset(out, 0, RMPP_MAD_SIZE);
	memcpy(out, tx->mad, tx->hdr_len);
	if (seg == 1) {
		h.rtime_flags |= RMPP_FLAG_FIRST;
		h.paylen_newwin = tx->nseg * RMPP_SEG_PAYLOAD - tx->pad;
	}
	if (seg == tx->nseg) {
		h.rtime_flags |= RMPP_FLAG_LAST;
		h.paylen_newwin = RMPP_SEG_PAYLOAD - tx->pad;
	}
	rmpp_hdr_put(out, &h);
	if (off < tx->len)
		n = tx->len - off < tx->seg_size ? tx->len - off : tx->seg_size;
	memcpy(out + tx->hdr_len, tx->mad + off, n);
}

bool rmpp_tx_done(const struct rmpp_tx *tx)
{
	return tx->last_ack == tx->nseg;
}

enum rmpp_ack_result rmpp_tx_ack(struct rmpp_tx *tx, uint32_t seg, uint32_t newwin, uint8_t st,
				 uint8_t *status)
{
	bool moved;

	if (st != RMPP_ST_OK) {
		*status = RMPP_ST_BAD_STATUS;
		return RMPP_ACK_ABORT;
	}
	if (newwin < seg) {
		*status = RMPP_ST_W2S;
		return RMPP_ACK_ABORT;
	}
	if (rmpp_tx_done(tx))
		return RMPP_ACK_OLD;
	/* Acknowledging a segment never sent. */
	if (seg > tx->nseg || seg > tx->newwin) {
		*status = RMPP_ST_S2B;
		return RMPP_ACK_ABORT;
	}
	if (newwin < tx->newwin || seg < tx->last_ack)
		return RMPP_ACK_OLD;
	moved = seg > tx->last_ack || newwin > tx->newwin;
	if (seg > tx->last_ack) {
		tx->last_ack = seg;
		tx->retries_left = tx->retries;
	}
	/* An ACK for a segment sent before a rewind also moves the resend point. */
	if (tx->seg_sent < tx->last_ack)
		tx->seg_sent = tx->last_ack;
	tx->newwin = newwin;
	if (rmpp_tx_done(tx))
		return RMPP_ACK_DONE;
	return moved ? RMPP_ACK_MORE : RMPP_ACK_OLD;
}

int rmpp_tx_timeout(struct rmpp_tx *tx)
{
	if (rmpp_tx_done(tx))
		return 0;
	if (!tx->retries_left)
		return -ETIMEDOUT;
	tx->retries_left--;
	tx->seg_sent = tx->last_ack;
	return 0;
}

/* ---- receiver -------------------------------------------------------------- */

uint8_t rmpp_data_check(const struct rmpp_hdr *h)
{
	bool first = h->rtime_flags & RMPP_FLAG_FIRST;

	if (h->status != RMPP_ST_OK)
		return RMPP_ST_BAD_STATUS;
	if (h->seg_num == 0 || (h->seg_num == 1) != first)
		return RMPP_ST_BAD_SEG;
	return RMPP_ST_OK;
}

/* The last segment is in: the message ends PayloadLength bytes into its
 * 220-byte RMPP payload (which includes the class header). */
static enum rmpp_rx_result rx_finish(struct rmpp_rx *rx, uint32_t paylen, uint8_t *status)
{
	unsigned seg_size = RMPP_MAD_SIZE - rx->hdr_len;
	uint32_t pad;

	if (paylen > RMPP_SEG_PAYLOAD || RMPP_SEG_PAYLOAD - paylen > seg_size) {
		*status = RMPP_ST_BAD_LEN;
		return RMPP_RX_ABORT;
	}
	pad = RMPP_SEG_PAYLOAD - paylen;
	rx->len = rx->hdr_len + (size_t)rx->seg_num * seg_size - pad;
	rx->done = true;
	return RMPP_RX_DONE;
}

/* Appends the data part of SEG (len bytes; missing bytes count as zero). */
static int rx_append(struct rmpp_rx *rx, const uint8_t *seg, size_t len, size_t from)
{
	size_t n = RMPP_MAD_SIZE - from, have = len > from ? len - from : 0;

	if (rx->len + n > rx->cap) {
		size_t cap = rx->cap * 2 > rx->len + n ? rx->cap * 2 : rx->len + n;
		uint8_t *b = realloc(rx->buf, cap);

		if (!b)
			return -ENOMEM;
		rx->buf = b;
		rx->cap = cap;
	}
	if (have > n)
		have = n;
	memcpy(rx->buf + rx->len, seg + from, have);
	memset(rx->buf + rx->len + have, 0, n - have);
	rx->len += n;
	return 0;
}

enum rmpp_rx_result rmpp_rx_start(struct rmpp_rx *rx, const uint8_t *seg, size_t len,
				  uint32_t window, uint8_t *status)
{
	struct rmpp_hdr h;

	*rx = (struct rmpp_rx){ .window = window ? window : 1 };
	if (rmpp_hdr_get(seg, len, &h) < 0 || h.type != RMPP_TYPE_DATA) {
		*status = RMPP_ST_BADT;
		return RMPP_RX_ABORT;
	}
	*status = rmpp_data_check(&h);
	if (*status != RMPP_ST_OK || h.seg_num != 1) {
		*status = *status ? *status : RMPP_ST_BAD_SEG;
		return RMPP_RX_ABORT;
	}
	rx->hdr_len = rmpp_hdr_len(seg[1]);
	if (rx_append(rx, seg, len, 0) < 0) {
		*status = RMPP_ST_RESX;
		return RMPP_RX_ABORT;
	}
	rx->seg_num = 1;
	rx->newwin = 1;
	if (h.rtime_flags & RMPP_FLAG_LAST)
		return rx_finish(rx, h.paylen_newwin, status);
	rx->newwin += rx->window;
	return RMPP_RX_ACK;
}

enum rmpp_rx_result rmpp_rx_add(struct rmpp_rx *rx, const uint8_t *seg, size_t len,
				uint8_t *status)
{
	struct rmpp_hdr h;

	if (rmpp_hdr_get(seg, len, &h) < 0 || h.type != RMPP_TYPE_DATA) {
		*status = RMPP_ST_BADT;
		return RMPP_RX_ABORT;
	}
	*status = rmpp_data_check(&h);
	if (*status != RMPP_ST_OK)
		return RMPP_RX_ABORT;
	if (h.seg_num > rx->newwin)
		return RMPP_RX_DROP;
	/* Already acknowledged, or all in: the sender missed our ACK. */
	if (h.seg_num <= rx->last_ack || rx->done)
		return RMPP_RX_ACK;
	if (h.seg_num != rx->seg_num + 1)
		return RMPP_RX_DROP;
	if (rx->seg_num >= RMPP_MAX_SEGS || rx_append(rx, seg, len, rx->hdr_len) < 0) {
		*status = RMPP_ST_RESX;
		return RMPP_RX_ABORT;
	}
	rx->seg_num++;
	if (h.rtime_flags & RMPP_FLAG_LAST)
		return rx_finish(rx, h.paylen_newwin, status);
	if (rx->seg_num == rx->newwin) {
		rx->newwin += rx->window;
		return RMPP_RX_ACK;
	}
	return RMPP_RX_KEEP;
}

void rmpp_rx_free(struct rmpp_rx *rx)
{
	free(rx->buf);
	rx->buf = NULL;
	rx->cap = rx->len = 0;
}

/* Headers of MAD with Method's response bit flipped, RMPP header as given. */
static void reply_mad(const uint8_t *mad, const struct rmpp_hdr *h, uint8_t out[RMPP_MAD_SIZE])
{
	struct rmpp_hdr r = *h;

	memset(out, 0, RMPP_MAD_SIZE);
	memcpy(out, mad, rmpp_hdr_len(mad[1]));
	out[MAD_METHOD] ^= MAD_RESP_BIT;
	/* RRespTime stays as the peer sent it; only the flags change. */
	r.rtime_flags = (uint8_t)((mad[RMPP_OFF + 2] & 0xf8) | (h->rtime_flags & 0x07));
	rmpp_hdr_put(out, &r);
}

void rmpp_rx_ack_mad(struct rmpp_rx *rx, const uint8_t *seg, uint8_t out[RMPP_MAD_SIZE])
{
	struct rmpp_hdr h = {
		.version = RMPP_VERSION,
		.type = RMPP_TYPE_ACK,
		.rtime_flags = RMPP_FLAG_ACTIVE,
		.seg_num = rx->seg_num,
		.paylen_newwin = rx->newwin,
	};

	rx->last_ack = rx->seg_num;
	reply_mad(seg, &h, out);
}

void rmpp_abort_mad(const uint8_t *mad, uint8_t type, uint8_t status,
		    uint8_t out[RMPP_MAD_SIZE])
{
	struct rmpp_hdr h = {
		.version = RMPP_VERSION,
		.type = type,
		.rtime_flags = RMPP_FLAG_ACTIVE,
		.status = status,
	};

	reply_mad(mad, &h, out);
}
