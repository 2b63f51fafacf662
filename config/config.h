/* SPDX-License-Identifier: MIT */
#ifndef LOOM_CONFIG_H
#define LOOM_CONFIG_H

/*
 * DOC: config/ — loom.yaml text in, a typed and validated struct config out.
 * Never touches the fabric and never prints, but for check_run.c: the runner
 * both edges (loomd and `loom config`) share, so that they say the same words.
 *   config.h      this header: the struct every layer reads, load/print/compare
 *   config_priv.h inside config/: the node tree, the walker's context, units helpers
 *   config.c      load a file or a buffer, defaults, free, compare
 *   ytree.c       libyaml events -> a small node tree with 1-based marks
 *   parse.c       walking the tree: keys, paths, scalars, FILE:LINE:COL messages
 *   parse_sm.c    the sm: section
 *   parse_part.c  the partitions: section
 *   parse_qos.c   the qos: section
 *   parse_health.c the health: section (loom health's defaults), and its print
 *   parse_mkey.c  the mkey: section (M_Key protection)
 *   names.c       the words for each enum below (engines, log levels, member
 *                 groups, port classes), shared by the parsers and validate.c;
 *                 an engine list "E[,E...]" both ways, and what "auto" stands for
 *   units.c       words and units people read <-> IBA values (mtu, rate, time, GUID)
 *   validate.c    checks across fields: P_Keys, names, VLs, engine options;
 *                 P_Key allocation and the implicit default partition
 *   print.c       the normalised YAML: every effective value, defaults filled in
 *   check_run.c   the --check-config runner: load, report to stderr, print, exit code
 *
 * Data flows one way: bytes -> ytree -> parse_* (types, ranges, unknown keys)
 * -> validate (cross-field) -> struct config. Every problem is collected as
 * "FILE:LINE:COL: field.path: what is wrong (allowed: ...)" in a struct diag;
 * a config with any problem is never returned.
 *
 * What is NOT checked here: whether members (GUIDs, node names, self) and
 * routing roots exist in the fabric. That needs the subnet model; whoever
 * applies the config checks them and reports with the marks kept below
 * (member->at, root->at), as FILE:LINE:COL too. A malformed GUID is an
 * error here.
 *
 * Promised to operators in loom.yaml(5), for whoever applies a config:
 *  - a port that several members of one partition match is a full member
 *    if any of them says full (one port listed twice is refused here);
 *  - the SM's own port is a full member of the default partition whatever
 *    its member list says;
 *  - operational_vls above a port's VLCap is cut to the VLCap, and said;
 *  - where the vlayered engine needs its own SL-to-VL map, it wins over
 *    qos sl2vl, and the conflict is said.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/diag.h"
#include "mad/pma.h"

#define CONFIG_DEFAULT_PATH "/etc/loom/loom.yaml"
#define CONFIG_DEFAULT_STATE_DIR "/var/lib/loom"
/* Larger files are refused: the parser's memory stays bounded. */
#define CONFIG_MAX_BYTES (1u << 20)

#define CONFIG_PKEY_DEFAULT 0x7fff /* the default partition, always present */
#define CONFIG_PKEY_MAX_USER 0x7ffe
#define CONFIG_QKEY_IPOIB 0x00000b1bu /* RFC 4391: IPoIB's well-known Q_Key */
#define CONFIG_SUBNET_PREFIX_DEFAULT 0xfe80000000000000ull
#define CONFIG_VLARB_MAX 64 /* IBA: up to 64 entries in each VLArbitration table */
#define CONFIG_HOQ_INFINITE UINT64_MAX
#define CONFIG_NODE_NAME_MAX 64 /* IBA NodeDescription: 64 bytes */
#define CONFIG_NAME_MAX 64
#define CONFIG_ROOTS_MAX 4096

/* 1-based place in the file; line 0: not from the file (a default). */
struct config_mark {
	uint32_t line, col;
};

enum config_engine {
	CONFIG_ENGINE_MINHOP,
	CONFIG_ENGINE_UPDN,
	CONFIG_ENGINE_FTREE,
	CONFIG_ENGINE_VLAYERED, /* deadlock-free on any topology, spreads routes over VLs */
	CONFIG_ENGINE_FILE,
	_CONFIG_ENGINE_MAX
};
#define CONFIG_ENGINE_AUTO _CONFIG_ENGINE_MAX /* "auto" in sm.routing.engine */
/* The words loom.yaml uses for them (names.c); the parsers, validate.c and
 * print.c share these tables, and config_*_name() below reads them. This one
 * is also the list of engine names routing/engine.c's registry follows, and
 * ends with "auto" (CONFIG_ENGINE_AUTO), a word of every engine list. */
extern const char *const config_engine_names[_CONFIG_ENGINE_MAX + 1];
/* What "auto" stands for, in the order tried (routing/chain.c walks it). */
#define CONFIG_ENGINE_AUTO_N 3
extern const uint8_t config_engine_auto[CONFIG_ENGINE_AUTO_N];

enum config_log_level {
	CONFIG_LOG_ERROR,
	CONFIG_LOG_WARNING,
	CONFIG_LOG_INFO,
	CONFIG_LOG_DEBUG,
	_CONFIG_LOG_MAX
};
extern const char *const config_log_level_names[_CONFIG_LOG_MAX];

struct config_root {
	uint64_t guid; /* a switch's node GUID; existence checked against the fabric */
	struct config_mark at;
};

/*
 * Limits loom.yaml and loomd's options share: one table, so that neither
 * takes a value the other refuses (--mad-window once went to 4096 while
 * sm.mad.window stopped at 256).
 */
#define CONFIG_PRIORITY_MAX 15                /* SMInfo:Priority */
#define CONFIG_SWEEP_US_MAX 86400000000ull    /* a light sweep at least once a day */
#define CONFIG_MAD_WINDOW_MAX 256             /* SMPs in flight */
#define CONFIG_MAD_TIMEOUT_US_MAX 10000000ull /* 10 s a try */
#define CONFIG_MAD_RETRIES_MAX 20
#define CONFIG_POLL_US_MIN 100000ull      /* sm.poll-interval: 100ms-1h */
#define CONFIG_POLL_US_MAX 3600000000ull
#define CONFIG_POLL_MISSES_MAX 100
#define CONFIG_MASTER_LID_CHECKS_MAX 4096

#define CONFIG_ENGINES_MAX 8
/* sm.flap-damping.flaps: loomd keeps one more change time a link than this. */
#define CONFIG_FLAPS_MAX 100

struct config_sm {
	uint8_t priority; /* SMInfo:Priority 0-15 */
	uint64_t sweep_us; /* light sweep period; 0: no timed sweeps */
	/*
	 * A heavy sweep (the whole fabric read) at least this often, for
	 * changes whose trap was lost; events between sweep only their part.
	 * 0: only when a sweep of a part cannot explain what it found.
	 */
	uint64_t heavy_sweep_us;
	/*
	 * A link whose state changed (down, or up) more than flaps times within
	 * window is kept out of the routes until it has been up for hold. 0: off.
	 */
	struct {
		uint16_t flaps; /* 0-CONFIG_FLAPS_MAX */
		uint64_t window_us, hold_us;
	} flap;
	struct {
		/*
		 * The engines to try, in order: enum config_engine values, or
		 * CONFIG_ENGINE_AUTO for "auto" (ftree, vlayered, updn). Unless
		 * no_fallback (fallback: none), auto's engines follow the list.
		 */
		uint8_t engine[CONFIG_ENGINES_MAX];
		uint8_t n_engines;
		bool no_fallback;
		uint8_t lmc; /* 0-7 */
		uint8_t vls; /* VL budget of CONFIG_ENGINE_VLAYERED, 1-8 */
		struct config_root *root; /* CONFIG_ENGINE_UPDN and _FTREE only */
		uint32_t n_roots;
		char *file; /* CONFIG_ENGINE_FILE only: dump_lfts text */
	} routing;
	char *state_dir;
	char *control_group; /* the control socket's group, a name; NULL: loomd's own */
	struct {
		uint16_t window; /* SMPs in flight, 1-256 */
		uint64_t timeout_us; /* per try */
		uint8_t retries; /* tries after the first, 0-20 */
	} mad;
	uint64_t subnet_prefix;
	uint64_t sm_key;
	/*
	 * HA (IBA 14.4): a standby asks the master's SMInfo every poll_us and
	 * takes over after poll_misses polls unanswered (or answered with an
	 * ActCount that did not move). sticky: a master that took over keeps
	 * the role when a higher-priority SM comes back.
	 */
	uint64_t poll_us;
	uint8_t poll_misses;
	bool sticky;
	/*
	 * A master defends its subnet (IBA 14.4.1): each light sweep reads the
	 * PortInfo of this many ports, in turn, for a MasterSMLID not its own.
	 * 0: not checked.
	 */
	uint16_t master_lid_checks;
	enum config_log_level log_level;
};

enum config_member_kind {
	CONFIG_MEMBER_GUID, /* one port, by port GUID (a switch: its port 0 GUID) */
	CONFIG_MEMBER_NODE, /* the ports of the node(s) whose NodeDescription is node */
	CONFIG_MEMBER_ALL, /* every CA and router port and every switch port 0 */
	CONFIG_MEMBER_ALL_CAS, /* every CA port */
	CONFIG_MEMBER_ALL_SWITCHES, /* every switch port 0 */
	CONFIG_MEMBER_SELF, /* the SM's own port */
	_CONFIG_MEMBER_MAX
};
extern const char *const config_member_kind_names[_CONFIG_MEMBER_MAX];

struct config_member {
	enum config_member_kind kind;
	bool full; /* full member (P_Key bit 15 set), else limited */
	uint64_t guid; /* CONFIG_MEMBER_GUID */
	char *node; /* CONFIG_MEMBER_NODE: matched exactly, not checked here */
	struct config_mark at;
};

struct config_partition {
	char *name; /* [A-Za-z0-9._-], unique; "default" is P_Key 0x7fff */
	uint16_t pkey; /* the 15-bit P_Key, membership bit clear */
	bool pkey_auto; /* allocated from the name (not written in the file) */
	uint8_t sl; /* SL of the partition's paths and broadcast group */
	bool ipoib; /* create the IPoIB broadcast group; mtu, rate, qkey are its */
	uint8_t mtu; /* IB_MTU_LEN_* */
	uint8_t rate; /* IB_PATH_RECORD_RATE_* */
	uint32_t qkey;
	struct config_member *member;
	uint32_t n_members;
	struct config_mark at;
};

enum config_port_class {
	CONFIG_CLASS_CA,
	CONFIG_CLASS_SWITCH_EXTERNAL,
	CONFIG_CLASS_SWITCH_PORT0,
	CONFIG_CLASS_ROUTER,
	_CONFIG_CLASS_MAX
};
extern const char *const config_class_names[_CONFIG_CLASS_MAX];

struct config_vlarb {
	uint8_t vl; /* 0-14, below the class's operational VLs */
	uint8_t weight; /* 0-255, in units of 64 bytes */
};

/*
 * What the SM asks for; applying caps operational_vls at the port's VLCap
 * (and reports it), and a deadlock-free engine's SL-to-VL needs win over
 * sl2vl (reported too).
 */
struct config_qos_class {
	uint8_t operational_vls; /* 1, 2, 4, 8 or 15 (PortInfo:OperationalVLs 1-5) */
	uint8_t sl2vl[16];
	struct config_vlarb high[CONFIG_VLARB_MAX], low[CONFIG_VLARB_MAX];
	uint8_t n_high, n_low;
	uint8_t vl_high_limit; /* PortInfo:VLHighLimit */
	uint64_t hoq_us; /* head-of-queue lifetime, <= 2147483us or CONFIG_HOQ_INFINITE */
	uint8_t vl_stall_count; /* 1-7 */
};

/* sm group: how long loom health waits between its two reads of the master's ActCount. */
#define CONFIG_HEALTH_ACT_WAIT_US_MAX 600000000ull /* 10 min */

/* loom health's settings (its command line and --threshold-file win over them). */
struct config_health {
	/* A counter over its threshold is reported (perfquery's names, mad/pma.h). */
	uint32_t threshold[_PMA_COUNTER_MAX];
	uint64_t act_wait_us; /* 0: ActCount read once, not judged */
	bool strict;          /* warnings count as problems */
};

enum config_mkey_source {
	CONFIG_MKEY_DERIVED, /* per node: HMAC-SHA256(secret in the state dir, node GUID) */
	_CONFIG_MKEY_SOURCE_MAX
};
extern const char *const config_mkey_source_names[_CONFIG_MKEY_SOURCE_MAX];

/* The mkey: section; on is false when the file has none (no M_Keys set). */
struct config_mkey {
	bool on;
	uint8_t protect;  /* PortInfo:M_KeyProtectBits 0-3 (default 2) */
	uint16_t lease_s; /* PortInfo:M_KeyLeasePeriod, seconds; 0: never expires */
	enum config_mkey_source source;
};

struct config {
	char *file; /* where it was read from; NULL: the built-in defaults */
	struct config_sm sm;
	struct config_partition *part; /* the default partition (0x7fff) is always one */
	uint32_t n_parts;
	struct config_qos_class qos[_CONFIG_CLASS_MAX];
	struct config_health health;
	struct config_mkey mkey;
};

/*
 * Read path. Returns 0 and a new config in *out, or -errno with every
 * problem in d and *out untouched: -EINVAL for a file that is not a valid
 * configuration, -ENOMEM, or the error that kept the file from being read
 * (-ENOENT, -EACCES, -EFBIG; also in d). If must_exist is false and path
 * does not exist, the result is the defaults (how loomd treats a missing
 * CONFIG_DEFAULT_PATH).
 */
int config_load_file(const char *path, bool must_exist, struct config **out, struct diag *d);

/* The same on a buffer; name is the FILE of messages. */
int config_load_mem(const char *buf, size_t len, const char *name, struct config **out,
		    struct diag *d);

/* Every default, the implicit default partition included. -ENOMEM. */
int config_defaults(struct config **out);

void config_free(struct config *c);
static inline void config_freep(struct config **c)
{
	config_free(*c);
}

/* Every effective value as YAML that loads back to an equal config. -errno of the write. */
int config_print(const struct config *c, FILE *f);

/*
 * check_run.c, the --check-config runner of `loom config` and `loomd --check-config`:
 * load path (NULL: the default file, which may be absent), report every problem to
 * stderr as prog, print the normalised config to stdout if print. Returns an exit
 * code, not -errno: 0 valid, 1 invalid, 2 unreadable.
 */
int config_check_run(const char *prog, const char *path, bool print);

/* Same effective values? (marks, file and pkey_auto are not compared) */
bool config_equal(const struct config *a, const struct config *b);
/* The same for parts, for a reload that applies only what changed. */
bool config_partition_equal(const struct config_partition *a, const struct config_partition *b);
bool config_qos_class_equal(const struct config_qos_class *a, const struct config_qos_class *b);
/* The default partition (P_Key 0x7fff); every loaded config has one. */
const struct config_partition *config_default_partition(const struct config *c);

/* ---- names and IBA encodings, for whoever applies or prints the config ---- */

/* The word for a value of each enum (names.c), NULL if out of range ("auto" is in range). */
const char *config_engine_name(enum config_engine e);
/* sm.routing.engine as --routing takes it: "ftree,vlayered", "auto". */
const char *config_engines_str(const struct config_sm *sm, char *buf, size_t len);
/*
 * The other way, the one parser of that syntax (loomd --routing, loom route
 * --engine, and what config_engines_str printed): words of config_engine_names
 * separated by commas into engine[] and *n, in order, a word named twice kept
 * once. -EINVAL with the first word that is none (empty included) in bad;
 * engine and n untouched then.
 */
int config_engines_parse(const char *spec, uint8_t engine[CONFIG_ENGINES_MAX], unsigned *n,
			 char *bad, size_t bad_len);
/* Does the list name engine e, itself or through "auto"? */
bool config_engines_has(const struct config_sm *sm, enum config_engine e);
const char *config_log_level_name(enum config_log_level l);
const char *config_class_name(enum config_port_class k);
const char *config_member_kind_name(enum config_member_kind k);
/* "2048" for IB_MTU_LEN_2048; "10Gb/s" for IB_PATH_RECORD_RATE_10_GBS; NULL if unknown. */
const char *config_mtu_name(uint8_t mtu);
const char *config_rate_name(uint8_t rate);
/* PortInfo:OperationalVLs code (1-5) of a VL count (1, 2, 4, 8, 15). */
uint8_t config_op_vls_code(uint8_t vls);
/* PortInfo:HOQLife code: the smallest v with 4.096us * 2^v >= hoq_us; 20 for infinite. */
uint8_t config_hoq_code(uint64_t hoq_us);

#endif
