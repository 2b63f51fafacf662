/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the test rig's RMPP (tests/rig/rmpp.c), the part of
 * librmpp_shim.so that is pure: how a message is cut into segments (headers
 * repeated, SegmentNumber, PayloadLength in the first and last, the flags),
 * how segments are glued back (in order, to the exact length), and the ACK
 * window on both sides, with the protocol errors each side must answer.
 * Messages are checked byte for byte against the original, not against what
 * the functions say about themselves.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/rig/rmpp.h"

#define SA_CLASS 0x03
#define SA_HDR 56
#define SA_SEG 200 /* data bytes per SA segment */

/* An SA GetTableResp of LEN bytes: headers, then data bytes that tell
 * where they are (so a byte in the wrong place shows). */
static uint8_t *sa_message(size_t len)
{
	uint8_t *m = calloc(1, len > SA_HDR ? len : SA_HDR);
	size_t i;

	assert_non_null(m);
	m[0] = 1;         /* BaseVersion */
	m[1] = SA_CLASS;
	m[2] = 2;         /* ClassVersion */
	m[3] = 0x92;      /* GetTableResp */
	for (i = 8; i < 16; i++)
		m[i] = (uint8_t)(0xa0 + i); /* TID */
	m[17] = 0x11;     /* NodeRecord */
	m[26] = RMPP_FLAG_ACTIVE;
	for (i = 36; i < SA_HDR; i++)
		m[i] = (uint8_t)(0x40 + i); /* SM_Key, AttributeOffset, ComponentMask */
	for (i = SA_HDR; i < len; i++)
		m[i] = (uint8_t)(i * 7 + i / 251);
	return m;
}

static struct rmpp_hdr hdr_of(const uint8_t *seg)
{
	struct rmpp_hdr h;

	assert_int_equal(rmpp_hdr_get(seg, RMPP_MAD_SIZE, &h), 0);
	return h;
}

/* ---- classes ------------------------------------------------------------------ */

static void test_classes(void **state)
{
	(void)state;
	assert_true(rmpp_class(0x03));
	assert_true(rmpp_class(0x06));
	assert_true(rmpp_class(0x30));
	assert_true(rmpp_class(0x4f));
	assert_false(rmpp_class(0x01));
	assert_false(rmpp_class(0x81));
	assert_false(rmpp_class(0x04)); /* PerfMgt */
	assert_false(rmpp_class(0x50));
	assert_int_equal(rmpp_hdr_len(0x03), 56);
	assert_int_equal(rmpp_hdr_len(0x06), 64);
	assert_int_equal(rmpp_hdr_len(0x30), 40);
}

/* ---- segmenting --------------------------------------------------------------- */

static void test_segments(void **state)
{
	size_t len = SA_HDR + 450; /* 3 segments: 200 + 200 + 50 */
	uint8_t *m = sa_message(len), seg[RMPP_MAD_SIZE];
	struct rmpp_tx tx;
	struct rmpp_hdr h;
	uint32_t s;
	size_t i;

	(void)state;
	assert_int_equal(rmpp_tx_init(&tx, m, len, 1, 0), 0);
	assert_int_equal(tx.nseg, 3);
	assert_int_equal(tx.pad, 150);
	for (s = 1; s <= 3; s++) {
		rmpp_tx_segment(&tx, s, seg);
		h = hdr_of(seg);
		assert_int_equal(h.version, 1);
		assert_int_equal(h.type, RMPP_TYPE_DATA);
		assert_int_equal(h.status, 0);
		assert_int_equal(h.seg_num, s);
		assert_int_equal(h.rtime_flags, RMPP_FLAG_ACTIVE | (s == 1 ? RMPP_FLAG_FIRST : 0) |
							 (s == 3 ? RMPP_FLAG_LAST : 0));
		/* First: the whole payload (SA header counted in each segment);
		 * last: its own share; between: 0. */
		assert_int_equal(h.paylen_newwin, s == 1 ? 3 * 20 + 450 : s == 3 ? 20 + 50 : 0);
		assert_memory_equal(seg, m, 24);                     /* MAD header */
		assert_memory_equal(seg + 36, m + 36, SA_HDR - 36);  /* SA header */
		for (i = 0; i < SA_SEG; i++) {
			size_t off = SA_HDR + (s - 1) * SA_SEG + i;

			assert_int_equal(seg[SA_HDR + i], off < len ? m[off] : 0);
		}
	}
	free(m);
}

static void test_segment_edges(void **state)
{
	uint8_t *m = sa_message(SA_HDR + 400), seg[RMPP_MAD_SIZE];
	struct rmpp_tx tx;
	struct rmpp_hdr h;

	(void)state;
	/* Headers alone: still one segment, PayloadLength the SA header. */
	assert_int_equal(rmpp_tx_init(&tx, m, SA_HDR, 1, 0), 0);
	assert_int_equal(tx.nseg, 1);
	rmpp_tx_segment(&tx, 1, seg);
	h = hdr_of(seg);
	assert_int_equal(h.rtime_flags, RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST | RMPP_FLAG_LAST);
	assert_int_equal(h.paylen_newwin, 20);
	/* Exactly two full segments: no padding, the last says 220. */
	assert_int_equal(rmpp_tx_init(&tx, m, SA_HDR + 400, 1, 0), 0);
	assert_int_equal(tx.nseg, 2);
	assert_int_equal(tx.pad, 0);
	rmpp_tx_segment(&tx, 2, seg);
	assert_int_equal(hdr_of(seg).paylen_newwin, 220);
	/* Not an RMPP class, shorter than the SA header, too many segments. */
	m[1] = 0x01;
	assert_int_equal(rmpp_tx_init(&tx, m, SA_HDR + 400, 1, 0), -EINVAL);
	m[1] = SA_CLASS;
	assert_int_equal(rmpp_tx_init(&tx, m, SA_HDR - 1, 1, 0), -EINVAL);
	assert_int_equal(rmpp_tx_init(&tx, m, SA_HDR + (size_t)SA_SEG * RMPP_MAX_SEGS + 1, 1, 0),
			 -EINVAL);
	free(m);
}

/* ---- the sender's window ---------------------------------------------------------- */

static void test_tx_window(void **state)
{
	uint8_t *m = sa_message(SA_HDR + 10 * SA_SEG), st = 0;
	struct rmpp_tx tx;

	(void)state;
	assert_int_equal(rmpp_tx_init(&tx, m, SA_HDR + 10 * SA_SEG, 1, 2), 0);
	/* One segment until the receiver opens the window. */
	assert_int_equal(rmpp_tx_next(&tx), 1);
	assert_int_equal(rmpp_tx_next(&tx), 0);
	assert_int_equal(rmpp_tx_ack(&tx, 1, 4, 0, &st), RMPP_ACK_MORE);
	assert_int_equal(rmpp_tx_next(&tx), 2);
	assert_int_equal(rmpp_tx_next(&tx), 3);
	assert_int_equal(rmpp_tx_next(&tx), 4);
	assert_int_equal(rmpp_tx_next(&tx), 0);
	/* A repeat of the same ACK, and an older one, change nothing. */
	assert_int_equal(rmpp_tx_ack(&tx, 1, 4, 0, &st), RMPP_ACK_OLD);
	assert_int_equal(rmpp_tx_ack(&tx, 4, 20, 0, &st), RMPP_ACK_MORE);
	assert_int_equal(rmpp_tx_ack(&tx, 3, 20, 0, &st), RMPP_ACK_OLD);
	/* The window beyond the message: only up to the last segment. */
	for (uint32_t s = 5; s <= 10; s++)
		assert_int_equal(rmpp_tx_next(&tx), s);
	assert_int_equal(rmpp_tx_next(&tx), 0);
	assert_false(rmpp_tx_done(&tx));
	assert_int_equal(rmpp_tx_ack(&tx, 10, 20, 0, &st), RMPP_ACK_DONE);
	assert_true(rmpp_tx_done(&tx));
	assert_int_equal(rmpp_tx_ack(&tx, 10, 20, 0, &st), RMPP_ACK_OLD);
	free(m);
}

static void test_tx_ack_errors(void **state)
{
	uint8_t *m = sa_message(SA_HDR + 10 * SA_SEG), st = 0;
	struct rmpp_tx tx;

	(void)state;
	assert_int_equal(rmpp_tx_init(&tx, m, SA_HDR + 10 * SA_SEG, 1, 0), 0);
	rmpp_tx_next(&tx);
	/* NewWindowLast below the segment acknowledged. */
	assert_int_equal(rmpp_tx_ack(&tx, 1, 0, 0, &st), RMPP_ACK_ABORT);
	assert_int_equal(st, RMPP_ST_W2S);
	/* A segment beyond the window (never sent), beyond the message. */
	assert_int_equal(rmpp_tx_ack(&tx, 2, 5, 0, &st), RMPP_ACK_ABORT);
	assert_int_equal(st, RMPP_ST_S2B);
	assert_int_equal(rmpp_tx_ack(&tx, 1, 4, 0, &st), RMPP_ACK_MORE);
	assert_int_equal(rmpp_tx_ack(&tx, 11, 12, 0, &st), RMPP_ACK_ABORT);
	assert_int_equal(st, RMPP_ST_S2B);
	/* An ACK with a status. */
	assert_int_equal(rmpp_tx_ack(&tx, 2, 5, RMPP_ST_RESX, &st), RMPP_ACK_ABORT);
	assert_int_equal(st, RMPP_ST_BAD_STATUS);
	free(m);
}

static void test_tx_timeout(void **state)
{
	uint8_t *m = sa_message(SA_HDR + 10 * SA_SEG), st = 0;
	struct rmpp_tx tx;

	(void)state;
	assert_int_equal(rmpp_tx_init(&tx, m, SA_HDR + 10 * SA_SEG, 1, 2), 0);
	rmpp_tx_next(&tx);
	rmpp_tx_ack(&tx, 1, 5, 0, &st);
	while (rmpp_tx_next(&tx))
		;
	/* Silence: back to the last ACK, the same segments again. */
	assert_int_equal(rmpp_tx_timeout(&tx), 0);
	assert_int_equal(rmpp_tx_next(&tx), 2);
	assert_int_equal(rmpp_tx_timeout(&tx), 0);
	assert_int_equal(rmpp_tx_next(&tx), 2);
	assert_int_equal(rmpp_tx_timeout(&tx), -ETIMEDOUT);
	/* Progress gives the retries back. */
	assert_int_equal(rmpp_tx_init(&tx, m, SA_HDR + 10 * SA_SEG, 1, 1), 0);
	rmpp_tx_next(&tx);
	assert_int_equal(rmpp_tx_timeout(&tx), 0);
	assert_int_equal(rmpp_tx_next(&tx), 1);
	assert_int_equal(rmpp_tx_ack(&tx, 1, 3, 0, &st), RMPP_ACK_MORE);
	assert_int_equal(rmpp_tx_timeout(&tx), 0);
	assert_int_equal(rmpp_tx_next(&tx), 2);
	assert_int_equal(rmpp_tx_timeout(&tx), -ETIMEDOUT);
	free(m);
}

/* ---- both ends ---------------------------------------------------------------- */

/* Sends M through tx and rx with WINDOW, every segment delivered in order;
 * checks the message arrives whole and counts the ACKs. */
static unsigned transfer(const uint8_t *m, size_t len, uint32_t window)
{
	uint8_t seg[RMPP_MAD_SIZE], ack[RMPP_MAD_SIZE], st = 0;
	struct rmpp_rx rx;
	struct rmpp_tx tx;
	struct rmpp_hdr h;
	enum rmpp_rx_result res = RMPP_RX_KEEP;
	unsigned acks = 0;
	uint32_t s;

	assert_int_equal(rmpp_tx_init(&tx, m, len, 1, 0), 0);
	while (res != RMPP_RX_DONE) {
		s = rmpp_tx_next(&tx);
		assert_int_not_equal(s, 0); /* the window never stalls */
		rmpp_tx_segment(&tx, s, seg);
		res = s == 1 ? rmpp_rx_start(&rx, seg, sizeof(seg), window, &st)
			     : rmpp_rx_add(&rx, seg, sizeof(seg), &st);
		assert_true(res == RMPP_RX_KEEP || res == RMPP_RX_ACK || res == RMPP_RX_DONE);
		if (res == RMPP_RX_KEEP)
			continue;
		rmpp_rx_ack_mad(&rx, seg, ack);
		h = hdr_of(ack);
		acks++;
		assert_int_equal(h.type, RMPP_TYPE_ACK);
		assert_int_not_equal(rmpp_tx_ack(&tx, h.seg_num, h.paylen_newwin, h.status, &st),
				     RMPP_ACK_ABORT);
	}
	assert_true(rmpp_tx_done(&tx));
	assert_int_equal(rx.len, len);
	/* All but the RMPP header, which is the first segment's (as the kernel
	 * hands it over): Active|First, SegmentNumber 1, the whole payload. */
	assert_memory_equal(rx.buf, m, 24);
	assert_memory_equal(rx.buf + 36, m + 36, len - 36);
	rmpp_tx_segment(&tx, 1, seg);
	assert_memory_equal(rx.buf + 24, seg + 24, 12);
	rmpp_rx_free(&rx);
	return acks;
}

static void test_roundtrip(void **state)
{
	static const size_t lens[] = { SA_HDR, SA_HDR + 1, SA_HDR + 199, SA_HDR + 200,
				       SA_HDR + 201, 1000, 4096, 65536 };
	static const uint32_t windows[] = { 1, 2, 3, 64 };
	size_t i, j, nseg;
	unsigned acks;
	uint8_t *m;

	(void)state;
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		m = sa_message(lens[i]);
		nseg = lens[i] > SA_HDR ? (lens[i] - SA_HDR + SA_SEG - 1) / SA_SEG : 1;
		for (j = 0; j < sizeof(windows) / sizeof(windows[0]); j++) {
			acks = transfer(m, lens[i], windows[j]);
			/* The first segment, every window's end, the last. */
			assert_int_equal(acks, nseg == 1 ? 1 : 1 + (nseg - 2) / windows[j] + 1);
		}
		free(m);
	}
}

/* ---- the receiver's rules ---------------------------------------------------------- */

static void test_rx_rules(void **state)
{
	uint8_t *m = sa_message(SA_HDR + 10 * SA_SEG), seg[RMPP_MAD_SIZE], ack[RMPP_MAD_SIZE];
	struct rmpp_rx rx;
	struct rmpp_tx tx;
	uint8_t st = 0;

	(void)state;
	assert_int_equal(rmpp_tx_init(&tx, m, SA_HDR + 10 * SA_SEG, 1, 0), 0);
	rmpp_tx_segment(&tx, 1, seg);
	assert_int_equal(rmpp_rx_start(&rx, seg, sizeof(seg), 2, &st), RMPP_RX_ACK);
	assert_int_equal(rx.newwin, 3);
	/* A gap: dropped, not kept. */
	rmpp_tx_segment(&tx, 3, seg);
	assert_int_equal(rmpp_rx_add(&rx, seg, sizeof(seg), &st), RMPP_RX_DROP);
	/* Beyond the window. */
	rmpp_tx_segment(&tx, 4, seg);
	assert_int_equal(rmpp_rx_add(&rx, seg, sizeof(seg), &st), RMPP_RX_DROP);
	/* The first again before its ACK was built: the ACK is owed anyway. */
	rmpp_tx_segment(&tx, 1, seg);
	assert_int_equal(rmpp_rx_add(&rx, seg, sizeof(seg), &st), RMPP_RX_DROP);
	rmpp_rx_ack_mad(&rx, seg, ack);
	assert_int_equal(hdr_of(ack).seg_num, 1);
	rmpp_tx_segment(&tx, 1, seg);
	assert_int_equal(rmpp_rx_add(&rx, seg, sizeof(seg), &st), RMPP_RX_ACK);
	rmpp_tx_segment(&tx, 2, seg);
	assert_int_equal(rmpp_rx_add(&rx, seg, sizeof(seg), &st), RMPP_RX_KEEP);
	rmpp_tx_segment(&tx, 3, seg);
	assert_int_equal(rmpp_rx_add(&rx, seg, sizeof(seg), &st), RMPP_RX_ACK);
	assert_int_equal(rx.newwin, 5);
	/* Segment 2 with First set; a segment with a status. */
	rmpp_tx_segment(&tx, 2, seg);
	seg[26] |= RMPP_FLAG_FIRST;
	assert_int_equal(rmpp_rx_add(&rx, seg, sizeof(seg), &st), RMPP_RX_ABORT);
	assert_int_equal(st, RMPP_ST_BAD_SEG);
	rmpp_tx_segment(&tx, 4, seg);
	seg[27] = 5;
	assert_int_equal(rmpp_rx_add(&rx, seg, sizeof(seg), &st), RMPP_RX_ABORT);
	assert_int_equal(st, RMPP_ST_BAD_STATUS);
	rmpp_rx_free(&rx);
	/* Segment 1 without First. */
	rmpp_tx_segment(&tx, 1, seg);
	seg[26] &= (uint8_t)~RMPP_FLAG_FIRST;
	assert_int_equal(rmpp_rx_start(&rx, seg, sizeof(seg), 2, &st), RMPP_RX_ABORT);
	assert_int_equal(st, RMPP_ST_BAD_SEG);
	rmpp_rx_free(&rx);
	free(m);
}

static void test_rx_last_length(void **state)
{
	uint8_t *m = sa_message(SA_HDR + 50), seg[RMPP_MAD_SIZE], st = 0;
	struct rmpp_rx rx;
	struct rmpp_tx tx;

	(void)state;
	assert_int_equal(rmpp_tx_init(&tx, m, SA_HDR + 50, 1, 0), 0);
	rmpp_tx_segment(&tx, 1, seg);
	assert_int_equal(rmpp_rx_start(&rx, seg, sizeof(seg), 64, &st), RMPP_RX_DONE);
	assert_int_equal(rx.len, SA_HDR + 50);
	/* Once done, a repeat is ACKed again. */
	assert_int_equal(rmpp_rx_add(&rx, seg, sizeof(seg), &st), RMPP_RX_ACK);
	rmpp_rx_free(&rx);
	/* A last PayloadLength that ends inside the SA header, or beyond 220. */
	seg[35] = 10;
	seg[34] = 0;
	assert_int_equal(rmpp_rx_start(&rx, seg, sizeof(seg), 64, &st), RMPP_RX_ABORT);
	assert_int_equal(st, RMPP_ST_BAD_LEN);
	rmpp_rx_free(&rx);
	seg[34] = 1;
	assert_int_equal(rmpp_rx_start(&rx, seg, sizeof(seg), 64, &st), RMPP_RX_ABORT);
	assert_int_equal(st, RMPP_ST_BAD_LEN);
	rmpp_rx_free(&rx);
	/* A short segment: the bytes it lacks count as zero. */
	rmpp_tx_segment(&tx, 1, seg);
	assert_int_equal(rmpp_rx_start(&rx, seg, SA_HDR + 20, 64, &st), RMPP_RX_DONE);
	assert_memory_equal(rx.buf + 36, m + 36, SA_HDR + 20 - 36);
	assert_int_equal(rx.buf[SA_HDR + 20], 0);
	rmpp_rx_free(&rx);
	free(m);
}

/* ---- ACK and ABORT MADs --------------------------------------------------------------- */

static void test_reply_mads(void **state)
{
	uint8_t *m = sa_message(SA_HDR + 1000), seg[RMPP_MAD_SIZE], out[RMPP_MAD_SIZE], st = 0;
	struct rmpp_rx rx;
	struct rmpp_tx tx;
	struct rmpp_hdr h;

	(void)state;
	assert_int_equal(rmpp_tx_init(&tx, m, SA_HDR + 1000, 1, 0), 0);
	rmpp_tx_segment(&tx, 1, seg);
	seg[26] |= 0x70; /* an RRespTime, which replies keep */
	assert_int_equal(rmpp_rx_start(&rx, seg, sizeof(seg), 8, &st), RMPP_RX_ACK);
	rmpp_rx_ack_mad(&rx, seg, out);
	h = hdr_of(out);
	assert_int_equal(out[3], 0x12); /* GetTableResp -> GetTable: the R bit flipped */
	assert_memory_equal(out + 8, m + 8, 8);
	assert_memory_equal(out + 36, m + 36, SA_HDR - 36);
	assert_int_equal(h.version, 1);
	assert_int_equal(h.type, RMPP_TYPE_ACK);
	assert_int_equal(h.rtime_flags, 0x70 | RMPP_FLAG_ACTIVE);
	assert_int_equal(h.seg_num, 1);
	assert_int_equal(h.paylen_newwin, 9);
	assert_int_equal(rx.last_ack, 1);
	assert_int_equal(out[SA_HDR], 0);
	rmpp_abort_mad(seg, RMPP_TYPE_ABORT, RMPP_ST_T2L, out);
	h = hdr_of(out);
	assert_int_equal(out[3], 0x12);
	assert_int_equal(h.type, RMPP_TYPE_ABORT);
	assert_int_equal(h.status, RMPP_ST_T2L);
	assert_int_equal(h.seg_num, 0);
	assert_int_equal(h.paylen_newwin, 0);
	rmpp_rx_free(&rx);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_segment_edges),
		cmocka_unit_test(test_tx_window),
		cmocka_unit_test(test_tx_ack_errors),
		cmocka_unit_test(test_tx_timeout),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_rx_rules),
		cmocka_unit_test(test_rx_last_length),
		cmocka_unit_test(test_reply_mads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
