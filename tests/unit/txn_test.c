/* SPDX-License-Identifier: MIT */
/* mad/txn.c over a fake transport and a fake clock; mad/smp.c's codec. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <iba/ib_types.h>

#include "mad/smp.h"
#include "mad/txn.h"

#define MAX_SENT 512

struct fake {
	uint8_t sent[MAX_SENT][MAD_SIZE];
	unsigned n_sent;
	uint64_t now;
	int done_status[MAX_SENT];
	unsigned n_done;
};

static int fake_send(void *t, const uint8_t *mad, size_t len, unsigned timeout_ms,
		     const struct mad_addr *to)
{
	struct fake *f = t;

	(void)timeout_ms, (void)to;
	assert_int_equal(len, MAD_SIZE);
	assert_true(f->n_sent < MAX_SENT);
	memcpy(f->sent[f->n_sent++], mad, MAD_SIZE);
	return 0;
}

static int fake_recv(void *t, uint8_t *mad, size_t len, struct mad_addr *from)
{
	(void)t, (void)mad, (void)len, (void)from;
	return -EAGAIN;
}

static int fake_fd(void *t)
{
	(void)t;
	return -1;
}

static const struct mad_transport_ops fake_ops = {
	.send = fake_send, .recv = fake_recv, .fd = fake_fd,
};

static uint64_t fake_now(void *arg)
{
	return ((struct fake *)arg)->now;
}

static void on_done(void *arg, int status, const uint8_t *resp, size_t len)
{
	struct fake *f = arg;

	(void)resp, (void)len;
	f->done_status[f->n_done++] = status;
}

static uint32_t tid_of(const uint8_t *mad)
{
	struct smp_hdr h;

	assert_int_equal(smp_peek(mad, MAD_SIZE, &h), 0);
	return h.tid;
}

/* The answer a node would give: GetResp, D bit set, NodeInfo in the data. */
static void make_resp(const uint8_t *req, uint8_t *resp, uint16_t status)
{
	ib_smp_t smp;
	ib_node_info_t ni = { 0 };

	memcpy(&smp, req, MAD_SIZE);
	smp.method = SMP_GET_RESP;
	smp.status = cl_hton16((uint16_t)(0x8000 | status));
	ni.node_type = IB_NODE_TYPE_SWITCH;
	ni.num_ports = 36;
	ni.node_guid = cl_hton64(0x0002c90300001234ULL);
	ni.port_num_vendor_id = cl_hton32(7u << 24 | 0x02c9);
	memcpy(smp.data, &ni, sizeof(ni));
	memcpy(resp, &smp, MAD_SIZE);
}

static struct txn *setup(struct fake *f, unsigned window, unsigned retries)
{
	struct txn_opts o = { .window = window, .timeout_ms = 100, .retries = retries };
	struct txn *x;

	memset(f, 0, sizeof(*f));
	assert_int_equal(txn_new(&fake_ops, f, &o, &x), 0);
	txn_set_clock(x, fake_now, f);
	return x;
}

static const struct smp_req node_info_req = {
	.method = SMP_GET, .attr_id = SMP_ATTR_NODE_INFO, .hops = 2, .path = { 0, 3, 5 },
};

static void test_window(void **state)
{
	struct fake f;
	struct txn *x = setup(&f, 4, 3);
	uint8_t resp[MAD_SIZE];

	(void)state;
	for (int i = 0; i < 10; i++)
		assert_int_equal(txn_submit(x, &node_info_req, on_done, &f), 0);
	assert_int_equal(f.n_sent, 4);
	assert_int_equal(txn_in_flight(x), 4);
	make_resp(f.sent[1], resp, 0);
	txn_input(x, resp, MAD_SIZE, NULL);
	assert_int_equal(f.n_done, 1);
	assert_int_equal(f.done_status[0], 0);
	assert_int_equal(f.n_sent, 5);
	assert_int_equal(txn_in_flight(x), 4);
	assert_false(txn_idle(x));
	txn_free(x);
}

static void test_tids_unique(void **state)
{
	struct fake f;
	struct txn *x = setup(&f, 200, 0);

	(void)state;
	for (int i = 0; i < 200; i++)
		assert_int_equal(txn_submit(x, &node_info_req, on_done, &f), 0);
	assert_int_equal(f.n_sent, 200);
	for (unsigned i = 0; i < f.n_sent; i++)
		for (unsigned j = i + 1; j < f.n_sent; j++)
			assert_int_not_equal(tid_of(f.sent[i]), tid_of(f.sent[j]));
	txn_free(x);
}

static void test_timeout_retry_late(void **state)
{
	struct fake f;
	struct txn *x = setup(&f, 1, 2);
	uint8_t resp[MAD_SIZE];

	(void)state;
	assert_int_equal(txn_submit(x, &node_info_req, on_done, &f), 0);
	assert_int_equal(f.n_sent, 1);
	f.now = 99;
	txn_tick(x);
	assert_int_equal(f.n_sent, 1);
	assert_int_equal(txn_next_timeout(x), 1);
	f.now = 100;
	txn_tick(x);
	assert_int_equal(f.n_sent, 2);
	assert_int_equal(tid_of(f.sent[0]), tid_of(f.sent[1]));
	f.now = 200;
	txn_tick(x);
	assert_int_equal(f.n_sent, 3);
	assert_int_equal(f.n_done, 0);
	f.now = 300;
	txn_tick(x);
	assert_int_equal(f.n_sent, 3);
	assert_int_equal(f.n_done, 1);
	assert_int_equal(f.done_status[0], -ETIMEDOUT);
	assert_int_equal(txn_stats(x)->retries, 2);
	assert_int_equal(txn_stats(x)->timeouts, 1);
	assert_true(txn_idle(x));
	assert_int_equal(txn_next_timeout(x), -1);

	/* The answer turns up after all: counted as late, no second callback. */
	make_resp(f.sent[0], resp, 0);
	txn_input(x, resp, MAD_SIZE, NULL);
	assert_int_equal(f.n_done, 1);
	assert_int_equal(txn_stats(x)->dropped[TXN_DROP_LATE], 1);
	txn_free(x);
}

static void test_malformed_and_unexpected(void **state)
{
	struct fake f;
	struct txn *x = setup(&f, 4, 3);
	uint8_t resp[MAD_SIZE];

	(void)state;
	assert_int_equal(txn_submit(x, &node_info_req, on_done, &f), 0);
	make_resp(f.sent[0], resp, 0);

	txn_input(x, resp, 10, NULL); /* shorter than a MAD header */
	assert_int_equal(txn_stats(x)->dropped[TXN_DROP_MALFORMED], 1);
	txn_input(x, resp, 100, NULL); /* right TID, cut short */
	assert_int_equal(txn_stats(x)->dropped[TXN_DROP_MALFORMED], 2);
	resp[17] ^= 0x01; /* attribute id changed: not the answer to our question */
	txn_input(x, resp, MAD_SIZE, NULL);
	assert_int_equal(txn_stats(x)->dropped[TXN_DROP_MALFORMED], 3);
	resp[17] ^= 0x01;
	resp[15] ^= 0x80; /* a TID nobody sent */
	txn_input(x, resp, MAD_SIZE, NULL);
	assert_int_equal(txn_stats(x)->dropped[TXN_DROP_UNEXPECTED], 1);
	assert_int_equal(f.n_done, 0);
	assert_int_equal(txn_in_flight(x), 1);
	resp[15] ^= 0x80;
	txn_input(x, resp, MAD_SIZE, NULL);
	assert_int_equal(f.n_done, 1);
	assert_int_equal(f.done_status[0], 0);
	txn_free(x);
}

struct seen_req {
	unsigned n;
	uint16_t lid;
	uint8_t method;
};

static void on_request(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct seen_req *r = arg;

	assert_int_equal(len, MAD_SIZE);
	r->n++;
	r->lid = from ? from->lid : 0;
	r->method = mad[3];
}

/* A request (R bit clear) goes to the hook, not to the TID matcher; answers count as sent. */
static void test_requests(void **state)
{
	struct fake f;
	struct txn *x = setup(&f, 4, 3);
	struct seen_req seen = { 0 };
	struct mad_addr from = { .lid = 7 };
	uint8_t req[MAD_SIZE];

	(void)state;
	assert_int_equal(smp_encode(&node_info_req, 99, req), 0);
	txn_input(x, req, MAD_SIZE, &from);
	assert_int_equal(txn_stats(x)->dropped[TXN_DROP_UNEXPECTED], 1);
	txn_set_request_hook(x, on_request, &seen);
	req[3] = 0x05; /* Trap */
	txn_input(x, req, MAD_SIZE, &from);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.lid, 7);
	assert_int_equal(seen.method, 0x05);
	assert_int_equal(txn_stats(x)->requests, 2);
	assert_int_equal(txn_stats(x)->dropped[TXN_DROP_UNEXPECTED], 1);
	assert_int_equal(txn_send_raw(x, req, MAD_SIZE, &from), 0);
	assert_int_equal(f.n_sent, 1);
	assert_int_equal(txn_stats(x)->sent, 1);
	txn_free(x);
}

static bool on_response(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	unsigned *n = arg;

	(void)from;
	assert_int_equal(len, MAD_SIZE);
	++*n;
	return mad[1] == 0x03; /* takes SA answers only */
}

/* A response no transaction waits for goes to the response hook first. */
static void test_response_hook(void **state)
{
	struct fake f;
	struct txn *x = setup(&f, 4, 3);
	uint8_t resp[MAD_SIZE];
	unsigned seen = 0;

	(void)state;
	assert_int_equal(txn_submit(x, &node_info_req, on_done, &f), 0);
	make_resp(f.sent[0], resp, 0);
	txn_set_response_hook(x, on_response, &seen);
	resp[15] ^= 0x80; /* a TID nobody sent: offered, refused, dropped */
	txn_input(x, resp, MAD_SIZE, NULL);
	assert_int_equal(seen, 1);
	assert_int_equal(txn_stats(x)->dropped[TXN_DROP_UNEXPECTED], 1);
	resp[1] = 0x03; /* an SA answer: taken, not dropped */
	txn_input(x, resp, MAD_SIZE, NULL);
	assert_int_equal(seen, 2);
	assert_int_equal(txn_stats(x)->dropped[TXN_DROP_UNEXPECTED], 1);
	resp[1] = 0x81;
	resp[15] ^= 0x80; /* ours: completes the transaction, the hook never sees it */
	txn_input(x, resp, MAD_SIZE, NULL);
	assert_int_equal(seen, 2);
	assert_int_equal(f.n_done, 1);
	txn_free(x);
}

/* Per-node fairness: one node's backlog does not fill the whole window. */
static void test_per_node(void **state)
{
	struct fake f;
	struct txn *x = setup(&f, 4, 3);
	struct txn_opts o = { .window = 4, .timeout_ms = 100, .retries = 3, .per_node = 2 };
	struct smp_req b = node_info_req;
	uint8_t resp[MAD_SIZE];

	(void)state;
	txn_free(x);
	memset(&f, 0, sizeof(f));
	assert_int_equal(txn_new(&fake_ops, &f, &o, &x), 0);
	txn_set_clock(x, fake_now, &f);
	b.path[2] = 6; /* another node */
	for (int i = 0; i < 4; i++)
		assert_int_equal(txn_submit(x, &node_info_req, on_done, &f), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(txn_submit(x, &b, on_done, &f), 0);
	assert_int_equal(f.n_sent, 4);
	assert_int_equal(f.sent[0][offsetof(ib_smp_t, initial_path) + 2], 5); /* initial path byte 2: node A */
	assert_int_equal(f.sent[1][offsetof(ib_smp_t, initial_path) + 2], 5);
	assert_int_equal(f.sent[2][offsetof(ib_smp_t, initial_path) + 2], 6); /* B jumped the queue */
	assert_int_equal(f.sent[3][offsetof(ib_smp_t, initial_path) + 2], 6);
	/* An answer from A frees a slot for A's next request. */
	make_resp(f.sent[0], resp, 0);
	txn_input(x, resp, MAD_SIZE, NULL);
	assert_int_equal(f.n_sent, 5);
	assert_int_equal(f.sent[4][offsetof(ib_smp_t, initial_path) + 2], 5);
	txn_free(x);
}

/* The node (initial path bytes 1 and 2) a sent SMP goes to. */
static unsigned node_of(const uint8_t *mad)
{
	const uint8_t *ip = mad + offsetof(ib_smp_t, initial_path);

	return (unsigned)ip[1] * 256 + ip[2];
}

/*
 * Many nodes, answers in a scrambled order: per_node holds for every node at
 * every step (the in-flight counts are kept in a table, not counted by
 * scanning), the window stays full while the queue has other nodes, and
 * every request is sent once and answered.
 */
static void test_per_node_churn(void **state)
{
	enum { NODES = 100, EACH = 2, WINDOW = 32, PER = 1 };
	struct txn_opts o = { .window = WINDOW, .timeout_ms = 100, .retries = 3, .per_node = PER };
	static struct fake f;
	bool answered[MAX_SENT] = { false };
	uint8_t resp[MAD_SIZE];
	struct txn *x;
	unsigned seed = 1;

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(txn_new(&fake_ops, &f, &o, &x), 0);
	txn_set_clock(x, fake_now, &f);
	/* Node by node, as a reader that queues one node's blocks in a row would. */
	for (unsigned n = 0; n < NODES; n++) {
		struct smp_req r = node_info_req;

		r.path[1] = (uint8_t)(1 + n / 16);
		r.path[2] = (uint8_t)(1 + n % 16);
		for (unsigned k = 0; k < EACH; k++)
			assert_int_equal(txn_submit(x, &r, on_done, &f), 0);
	}
	assert_int_equal(txn_in_flight(x), WINDOW);
	while (f.n_done < NODES * EACH) {
		unsigned count[9 * 256] = { 0 }, out = 0, pick;

		for (unsigned i = 0; i < f.n_sent; i++)
			if (!answered[i]) {
				count[node_of(f.sent[i])]++;
				out++;
			}
		for (unsigned n = 0; n < 9 * 256; n++)
			assert_true(count[n] <= PER);
		assert_int_equal(out, txn_in_flight(x));
		if (NODES * EACH - f.n_sent >= 64)
			assert_int_equal(out, WINDOW);
		seed = seed * 1103515245u + 12345u;
		pick = (seed >> 16) % out;
		for (unsigned i = 0; i < f.n_sent; i++)
			if (!answered[i] && !pick--) {
				answered[i] = true;
				make_resp(f.sent[i], resp, 0);
				txn_input(x, resp, MAD_SIZE, NULL);
				break;
			}
	}
	assert_int_equal(f.n_sent, NODES * EACH);
	assert_true(txn_idle(x));
	assert_int_equal(txn_stats(x)->completed, NODES * EACH);
	txn_free(x);
}

static void test_bad_status(void **state)
{
	struct fake f;
	struct txn *x = setup(&f, 4, 3);
	uint8_t resp[MAD_SIZE];

	(void)state;
	assert_int_equal(txn_submit(x, &node_info_req, on_done, &f), 0);
	make_resp(f.sent[0], resp, 0x1c); /* unsupported attribute */
	txn_input(x, resp, MAD_SIZE, NULL);
	assert_int_equal(f.n_done, 1);
	assert_int_equal(f.done_status[0], -EPROTO);
	assert_int_equal(txn_stats(x)->failed, 1);
	txn_free(x);
}

static void test_smp_codec(void **state)
{
	struct smp_req r = node_info_req;
	struct smp_node_info ni;
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];
	ib_smp_t smp;

	(void)state;
	assert_int_equal(smp_encode(&r, 0x1234, req), 0);
	memcpy(&smp, req, MAD_SIZE);
	assert_int_equal(smp.mgmt_class, IB_MCLASS_SUBN_DIR);
	assert_int_equal(smp.hop_ptr, 0);
	assert_int_equal(smp.hop_count, 2);
	assert_int_equal(smp.initial_path[1], 3);
	assert_int_equal(smp.initial_path[2], 5);
	assert_int_equal(smp.dr_slid, 0xffff);
	assert_int_equal(smp.dr_dlid, 0xffff);
	assert_int_equal(cl_ntoh16(smp.attr_id), SMP_ATTR_NODE_INFO);
	r.hops = SMP_MAX_HOPS + 1;
	assert_int_equal(smp_encode(&r, 1, req), -EINVAL);

	make_resp(req, resp, 0);
	assert_int_equal(smp_check_resp(resp, MAD_SIZE, req), 0);
	assert_int_equal(smp_decode_node_info(resp, MAD_SIZE, &ni), 0);
	assert_int_equal(ni.node_type, IB_NODE_TYPE_SWITCH);
	assert_int_equal(ni.num_ports, 36);
	assert_int_equal(ni.node_guid, 0x0002c90300001234ULL);
	assert_int_equal(ni.local_port, 7);
	assert_int_equal(ni.vendor_id, 0x02c9);
	assert_int_equal(smp_decode_node_info(resp, 100, &ni), -EPROTO);
}

/*
 * A node that leaves two Sets unanswered after all their retries (none
 * answered since) is taken as gone: Sets still queued for it fail at once,
 * unsent, while another node's go out; it is asked again once forgotten or
 * after 10 s; one Set given up is not enough.
 */
static void test_gone_node(void **state)
{
	struct fake f;
	struct txn *x;
	struct txn_opts o = { .window = 4, .timeout_ms = 100, .retries = 1, .per_node = 2 };
	struct smp_req set = { .method = SMP_SET, .attr_id = SMP_ATTR_LFT, .hops = 2,
			       .path = { 0, 3, 5 } };
	struct smp_req b = set;
	uint8_t resp[MAD_SIZE];

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(txn_new(&fake_ops, &f, &o, &x), 0);
	txn_set_clock(x, fake_now, &f);
	b.path[2] = 6; /* node B answers; node A (path ... 5) never does */
	for (int i = 0; i < 6; i++)
		assert_int_equal(txn_submit(x, &set, on_done, &f), 0);
	assert_int_equal(txn_submit(x, &b, on_done, &f), 0);
	assert_int_equal(f.n_sent, 3); /* A's two, B's one */
	make_resp(f.sent[2], resp, 0);
	txn_input(x, resp, MAD_SIZE, NULL);
	assert_int_equal(f.n_done, 1);
	f.now = 100;
	txn_tick(x); /* A's two retried */
	assert_int_equal(f.n_sent, 5);
	f.now = 200;
	txn_tick(x); /* A's two given up: A's four queued fail unsent */
	assert_int_equal(f.n_sent, 5);
	assert_int_equal(f.n_done, 7);
	for (unsigned i = 1; i < 7; i++)
		assert_int_equal(f.done_status[i], -ETIMEDOUT);
	assert_int_equal(txn_stats(x)->timeouts, 6);
	assert_true(txn_idle(x));
	/* Still gone for a later request, until forgotten (a sweep starts) or 10 s pass. */
	assert_int_equal(txn_submit(x, &set, on_done, &f), 0);
	assert_int_equal(f.n_sent, 5);
	assert_int_equal(txn_next_timeout(x), 0); /* queued, nothing in flight: tick now */
	txn_tick(x);
	assert_int_equal(f.n_done, 8);
	assert_int_equal(f.done_status[7], -ETIMEDOUT);
	assert_true(txn_idle(x));
	txn_forget_gone(x);
	assert_int_equal(txn_submit(x, &set, on_done, &f), 0);
	assert_int_equal(f.n_sent, 6);
	f.now = 300;
	txn_tick(x);
	f.now = 400; /* one Set given up: not gone yet, a lossy link may drop one */
	txn_tick(x);
	assert_int_equal(f.n_sent, 7);
	assert_int_equal(f.n_done, 9);
	assert_int_equal(txn_submit(x, &set, on_done, &f), 0);
	assert_int_equal(f.n_sent, 8);
	/* It answers: the strike is gone. */
	make_resp(f.sent[7], resp, 0);
	txn_input(x, resp, MAD_SIZE, NULL);
	assert_int_equal(f.n_done, 10);
	assert_int_equal(f.done_status[9], 0);
	/* Two given up: gone; 10 s later asked again. */
	assert_int_equal(txn_submit(x, &set, on_done, &f), 0);
	assert_int_equal(txn_submit(x, &set, on_done, &f), 0);
	assert_int_equal(f.n_sent, 10);
	f.now = 500;
	txn_tick(x);
	f.now = 600;
	txn_tick(x);
	assert_int_equal(f.n_done, 12);
	assert_int_equal(txn_submit(x, &set, on_done, &f), 0);
	txn_tick(x);
	assert_int_equal(f.n_sent, 12);
	assert_int_equal(f.n_done, 13);
	f.now += 10000;
	assert_int_equal(txn_submit(x, &set, on_done, &f), 0);
	assert_int_equal(f.n_sent, 13);
	txn_free(x);
}

/*
 * Never taken as gone: the local node (no hops; LID-routed requests hash
 * alike), and any node for a Get (discovery asks again in its own rounds).
 */
static void test_gone_not_local(void **state)
{
	struct fake f;
	struct txn *x = setup(&f, 1, 0);
	struct smp_req local = { .method = SMP_SET, .attr_id = SMP_ATTR_LFT };

	(void)state;
	assert_int_equal(txn_submit(x, &local, on_done, &f), 0);
	assert_int_equal(txn_submit(x, &local, on_done, &f), 0);
	assert_int_equal(f.n_sent, 1);
	f.now = 100;
	txn_tick(x);
	assert_int_equal(f.n_done, 1);
	assert_int_equal(f.n_sent, 2);
	f.now = 200;
	txn_tick(x);
	assert_int_equal(txn_submit(x, &node_info_req, on_done, &f), 0);
	assert_int_equal(txn_submit(x, &node_info_req, on_done, &f), 0);
	assert_int_equal(f.n_sent, 3);
	f.now = 300;
	txn_tick(x);
	assert_int_equal(f.n_sent, 4);
	txn_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_tids_unique),
		cmocka_unit_test(test_timeout_retry_late),
		cmocka_unit_test(test_malformed_and_unexpected),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_response_hook),
		cmocka_unit_test(test_per_node),
		cmocka_unit_test(test_per_node_churn),
		cmocka_unit_test(test_gone_node),
		cmocka_unit_test(test_gone_not_local),
		cmocka_unit_test(test_bad_status),
		cmocka_unit_test(test_smp_codec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
