/* SPDX-License-Identifier: MIT */
/* Loading a configuration (file or buffer), the defaults, freeing, comparing. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iba/ib_types.h>

#include "config/config_priv.h"
#include "lib/cleanup.h"

static void qos_class_default(struct config_qos_class *q, uint8_t op_vls)
{
	*q = (struct config_qos_class){ .operational_vls = op_vls, .hoq_us = 1000000,
					.vl_stall_count = 7 };
	for (unsigned sl = 0; sl < 16; sl++)
		q->sl2vl[sl] = (uint8_t)(sl % op_vls);
	q->n_low = op_vls;
	for (uint8_t vl = 0; vl < op_vls; vl++)
		q->low[vl] = (struct config_vlarb){ vl, 64 };
}

void config_defaults_fill(struct config *c)
{
	c->sm = (struct config_sm){
		.sweep_us = 10000000,
		.heavy_sweep_us = 300000000,
		.flap = { .flaps = 3, .window_us = 10000000, .hold_us = 30000000 },
		.routing = { .engine = { CONFIG_ENGINE_AUTO }, .n_engines = 1, .vls = 8 },
		.mad = { .window = 16, .timeout_us = 200000, .retries = 3 },
		.subnet_prefix = CONFIG_SUBNET_PREFIX_DEFAULT,
		/* OpenSM's default SM_Key, so that the two can hand over to each other. */
		.sm_key = 1,
		.poll_us = 2000000,
		.poll_misses = 3,
		.master_lid_checks = 8,
		.log_level = CONFIG_LOG_INFO,
	};
	for (unsigned k = 0; k < _CONFIG_CLASS_MAX; k++)
		qos_class_default(&c->qos[k], k == CONFIG_CLASS_SWITCH_PORT0 ? 1 : 8);
	config_health_defaults(&c->health);
	/* Off until the file has an mkey: section; then these, unless it says otherwise. */
	c->mkey = (struct config_mkey){ .protect = 2, .source = CONFIG_MKEY_DERIVED };
}

void config_partition_default(struct config_partition *pt)
{
	/* OpenSM's defaults for a partition's broadcast group, which hosts expect. */
	*pt = (struct config_partition){ .pkey_auto = true, .mtu = IB_MTU_LEN_2048,
					 .rate = IB_PATH_RECORD_RATE_10_GBS,
					 .qkey = CONFIG_QKEY_IPOIB };
}

int config_default_partition_add(struct config *c)
{
	struct config_partition *v = realloc(c->part, ((size_t)c->n_parts + 1) * sizeof(*v));
	struct config_partition *pt;

	if (!v)
		return -ENOMEM;
	c->part = v;
	memmove(v + 1, v, (size_t)c->n_parts * sizeof(*v));
	c->n_parts++;
	pt = &v[0];
	config_partition_default(pt);
	pt->pkey = CONFIG_PKEY_DEFAULT;
	pt->pkey_auto = false;
	pt->ipoib = true;
	pt->name = strdup("default");
	pt->member = calloc(1, sizeof(*pt->member));
	if (!pt->name || !pt->member)
		return -ENOMEM; /* config_free() takes the half-built one */
	pt->member[0] = (struct config_member){ .kind = CONFIG_MEMBER_ALL, .full = true };
	pt->n_members = 1;
	return 0;
}

void config_free(struct config *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n_parts; i++) {
		for (uint32_t k = 0; k < c->part[i].n_members; k++)
			free(c->part[i].member[k].node);
		free(c->part[i].member);
		free(c->part[i].name);
	}
	free(c->part);
	free(c->sm.routing.root);
	free(c->sm.routing.file);
	free(c->sm.state_dir);
	free(c->sm.control_group);
	free(c->file);
	free(c);
}

static struct config *config_new(void)
{
	struct config *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	config_defaults_fill(c);
	c->sm.state_dir = strdup(CONFIG_DEFAULT_STATE_DIR);
	if (!c->sm.state_dir) {
		config_free(c);
		return NULL;
	}
	return c;
}

int config_defaults(struct config **out)
{
	_cleanup_(config_freep) struct config *c = config_new();

	if (!c || config_default_partition_add(c) < 0)
		return -ENOMEM;
	*out = TAKE_PTR(c);
	return 0;
}

static void parse_top(struct pctx *p, const struct ynode *root)
{
	static const struct pfield f[] = {
		{ "sm", parse_sm },
		{ "partitions", parse_partitions },
		{ "qos", parse_qos },
		{ "health", parse_health },
		{ "mkey", parse_mkey },
	};

	if (root && root->type != YNODE_MAP && !parse_is_null(p, root))
		perr(p, root,
		     "the file holds %s; a configuration is a mapping with the keys "
		     "sm, partitions, qos and health",
		     root->type == YNODE_SEQ ? "a list" : "a scalar");
	else if (root)
		parse_map(p, root, f, ARRAY_SIZE(f), p->c);
	if (!p->nomem)
		validate(p);
}

int config_load_mem(const char *buf, size_t len, const char *name, struct config **out,
		    struct diag *d)
{
	_cleanup_(config_freep) struct config *c = NULL;
	unsigned before = diag_count(d);
	struct ytree t;
	struct pctx p;
	int r;

	if (len > CONFIG_MAX_BYTES) {
		diag_add(d, name, 0, 0, "%zu bytes is larger than a configuration may be (1 MiB)",
			 len);
		return -EFBIG;
	}
	r = ytree_build(buf, len, name, &t, d);
	if (r < 0) {
		ytree_free(&t);
		return r;
	}
	c = config_new();
	if (c)
		c->file = strdup(name);
	if (!c || !c->file) {
		ytree_free(&t);
		diag_add(d, name, 0, 0, "out of memory");
		return -ENOMEM;
	}
	p = (struct pctx){ .t = &t, .file = name, .d = d, .c = c };
	parse_top(&p, ynode_at(&t, t.root));
	parse_flush(&p);
	free(p.seen.part);
	ytree_free(&t);
	if (p.nomem) {
		diag_add(d, name, 0, 0, "out of memory");
		return -ENOMEM;
	}
	if (diag_count(d) != before)
		return -EINVAL;
	*out = TAKE_PTR(c);
	return 0;
}

/*
 * Open path for reading if it is a regular file. Opened without blocking, so
 * that a FIFO (or a device) given by mistake is refused instead of waiting
 * for a writer for ever; then read as usual. NULL and errno on failure.
 */
static FILE *open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), e;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	/* A directory is left to read()'s own EISDIR. */
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		close(fd);
		errno = ENOTSUP;
		return NULL;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, "r"))) {
		e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	return f;
}

int config_load_file(const char *path, bool must_exist, struct config **out, struct diag *d)
{
	_cleanup_fclose_ FILE *f = open_regular(path);
	_cleanup_free_ char *buf = NULL;
	size_t n;
	int e;

	if (!f) {
		e = errno;
		if (e == ENOENT && !must_exist)
			return config_defaults(out);
		if (e == ENOTSUP)
			diag_add(d, path, 0, 0, "not a regular file (a FIFO, socket or device?); "
				 "give the configuration as a file");
		else
			diag_add(d, path, 0, 0, "cannot open: %s", strerror(e));
		return -e;
	}
	buf = malloc(CONFIG_MAX_BYTES + 1);
	if (!buf) {
		diag_add(d, path, 0, 0, "out of memory");
		return -ENOMEM;
	}
	n = fread(buf, 1, CONFIG_MAX_BYTES + 1, f);
	if (ferror(f)) {
		e = errno ? errno : EIO;
		diag_add(d, path, 0, 0, "cannot read: %s", strerror(e));
		return -e;
	}
	if (n > CONFIG_MAX_BYTES) {
		diag_add(d, path, 0, 0, "larger than a configuration may be (1 MiB)");
		return -EFBIG;
	}
	return config_load_mem(buf, n, path, out, d);
}

/* ---- comparing ------------------------------------------------------------- */

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool sm_equal(const struct config_sm *a, const struct config_sm *b)
{
	if (a->priority != b->priority || a->sweep_us != b->sweep_us ||
	    a->heavy_sweep_us != b->heavy_sweep_us ||
	    a->flap.flaps != b->flap.flaps || a->flap.window_us != b->flap.window_us ||
	    a->flap.hold_us != b->flap.hold_us ||
	    a->routing.n_engines != b->routing.n_engines ||
	    memcmp(a->routing.engine, b->routing.engine, a->routing.n_engines) ||
	    a->routing.no_fallback != b->routing.no_fallback || a->routing.lmc != b->routing.lmc ||
	    a->routing.vls != b->routing.vls || a->routing.n_roots != b->routing.n_roots ||
	    !str_eq(a->routing.file, b->routing.file) || !str_eq(a->state_dir, b->state_dir) ||
	    !str_eq(a->control_group, b->control_group) ||
	    a->mad.window != b->mad.window || a->mad.timeout_us != b->mad.timeout_us ||
	    a->mad.retries != b->mad.retries || a->subnet_prefix != b->subnet_prefix ||
	    a->sm_key != b->sm_key ||
	    a->poll_us != b->poll_us || a->poll_misses != b->poll_misses ||
	    a->sticky != b->sticky || a->master_lid_checks != b->master_lid_checks ||
	    a->log_level != b->log_level)
		return false;
	for (uint32_t i = 0; i < a->routing.n_roots; i++)
		if (a->routing.root[i].guid != b->routing.root[i].guid)
			return false;
	return true;
}

bool config_partition_equal(const struct config_partition *a, const struct config_partition *b)
{
	if (!str_eq(a->name, b->name) || a->pkey != b->pkey || a->sl != b->sl ||
	    a->ipoib != b->ipoib || a->mtu != b->mtu || a->rate != b->rate || a->qkey != b->qkey ||
	    a->n_members != b->n_members)
		return false;
	for (uint32_t k = 0; k < a->n_members; k++) {
		const struct config_member *x = &a->member[k], *y = &b->member[k];

		if (x->kind != y->kind || x->full != y->full || x->guid != y->guid ||
		    !str_eq(x->node, y->node))
			return false;
	}
	return true;
}

bool config_qos_class_equal(const struct config_qos_class *a, const struct config_qos_class *b)
{
	return a->operational_vls == b->operational_vls &&
	       !memcmp(a->sl2vl, b->sl2vl, sizeof(a->sl2vl)) && a->n_high == b->n_high &&
	       a->n_low == b->n_low && !memcmp(a->high, b->high, a->n_high * sizeof(*a->high)) &&
	       !memcmp(a->low, b->low, a->n_low * sizeof(*a->low)) &&
	       a->vl_high_limit == b->vl_high_limit && a->hoq_us == b->hoq_us &&
	       a->vl_stall_count == b->vl_stall_count;
}

bool config_equal(const struct config *a, const struct config *b)
{
	if (!sm_equal(&a->sm, &b->sm) || a->n_parts != b->n_parts ||
	    a->mkey.on != b->mkey.on || a->mkey.protect != b->mkey.protect ||
	    a->mkey.lease_s != b->mkey.lease_s || a->mkey.source != b->mkey.source)
		return false;
	for (uint32_t i = 0; i < a->n_parts; i++)
		if (!config_partition_equal(&a->part[i], &b->part[i]))
			return false;
	for (unsigned k = 0; k < _CONFIG_CLASS_MAX; k++)
		if (!config_qos_class_equal(&a->qos[k], &b->qos[k]))
			return false;
	return config_health_equal(&a->health, &b->health);
}

const struct config_partition *config_default_partition(const struct config *c)
{
	for (uint32_t i = 0; i < c->n_parts; i++)
		if (c->part[i].pkey == CONFIG_PKEY_DEFAULT)
			return &c->part[i];
	return NULL;
}
