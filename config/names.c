/* SPDX-License-Identifier: MIT */
/*
 * The words loom.yaml uses for the enums of config.h, one table per enum:
 * the parsers read them (parse_word), validate.c and print.c name values
 * with them (config_*_name). Here rather than in parse_sm.c, parse_part.c and
 * parse_qos.c, so that validate.c and print.c need no section's parser for them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"

const char *const config_engine_names[_CONFIG_ENGINE_MAX + 1] = {
	[CONFIG_ENGINE_MINHOP] = "minhop", [CONFIG_ENGINE_UPDN] = "updn",
	[CONFIG_ENGINE_FTREE] = "ftree",   [CONFIG_ENGINE_VLAYERED] = "vlayered",
	[CONFIG_ENGINE_FILE] = "file",     [CONFIG_ENGINE_AUTO] = "auto",
};

/*
 * The list that routes any fabric well: ftree for a fat tree (degraded
 * allowed), else vlayered (deadlock-free on any shape, within the VLs the
 * ports have), else updn (deadlock-free with one VL, when vlayered is short
 * of VLs). Here, with the word, so that what "auto" tries (routing/chain.c)
 * and what a list with "auto" is said to name (config_engines_has) agree.
 */
const uint8_t config_engine_auto[CONFIG_ENGINE_AUTO_N] = {
	CONFIG_ENGINE_FTREE,
	CONFIG_ENGINE_VLAYERED,
	CONFIG_ENGINE_UPDN,
};

const char *const config_log_level_names[_CONFIG_LOG_MAX] = {
	[CONFIG_LOG_ERROR] = "error",
	[CONFIG_LOG_WARNING] = "warning",
	[CONFIG_LOG_INFO] = "info",
	[CONFIG_LOG_DEBUG] = "debug",
};

const char *const config_member_kind_names[_CONFIG_MEMBER_MAX] = {
	[CONFIG_MEMBER_GUID] = "guid",
	[CONFIG_MEMBER_NODE] = "node",
	[CONFIG_MEMBER_ALL] = "all",
	[CONFIG_MEMBER_ALL_CAS] = "all-cas",
	[CONFIG_MEMBER_ALL_SWITCHES] = "all-switches",
	[CONFIG_MEMBER_SELF] = "self",
};

const char *const config_class_names[_CONFIG_CLASS_MAX] = {
	[CONFIG_CLASS_CA] = "ca",
	[CONFIG_CLASS_SWITCH_EXTERNAL] = "switch-external",
	[CONFIG_CLASS_SWITCH_PORT0] = "switch-port0",
	[CONFIG_CLASS_ROUTER] = "router",
};

const char *config_engines_str(const struct config_sm *sm, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < sm->routing.n_engines && off < len; i++) {
		uint8_t e = sm->routing.engine[i];

		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "",
					config_engine_name((enum config_engine)e));
	}
	return buf;
}

_Static_assert(CONFIG_ENGINE_AUTO + 1 <= CONFIG_ENGINES_MAX,
	       "every engine word once must fit in an engine list");

int config_engines_parse(const char *spec, uint8_t engine[CONFIG_ENGINES_MAX], unsigned *n,
			 char *bad, size_t bad_len)
{
	uint8_t got[CONFIG_ENGINES_MAX];
	unsigned k = 0;
	const char *p = spec;

	if (bad_len)
		bad[0] = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		unsigned e;

		for (e = 0; e <= CONFIG_ENGINE_AUTO; e++)
			if (strlen(config_engine_names[e]) == len &&
			    !strncmp(config_engine_names[e], p, len))
				break;
		if (e > CONFIG_ENGINE_AUTO) {
			snprintf(bad, bad_len, "%.*s", (int)(len < 64 ? len : 64), p);
			return -EINVAL;
		}
		/* Each word kept once: the list always has room (asserted below). */
		if (!memchr(got, (int)e, k))
			got[k++] = (uint8_t)e;
		if (!p[len])
			break;
		p += len + 1;
	}
	memcpy(engine, got, k);
	*n = k;
	return 0;
}

bool config_engines_has(const struct config_sm *sm, enum config_engine e)
{
	for (unsigned i = 0; i < sm->routing.n_engines; i++) {
		uint8_t x = sm->routing.engine[i];

		if (x == e)
			return true;
		for (unsigned j = 0; x == CONFIG_ENGINE_AUTO && j < CONFIG_ENGINE_AUTO_N; j++)
			if (config_engine_auto[j] == e)
				return true;
	}
	return false;
}

const char *config_engine_name(enum config_engine e)
{
	return (unsigned)e <= CONFIG_ENGINE_AUTO ? config_engine_names[e] : NULL;
}

const char *config_log_level_name(enum config_log_level l)
{
	return (unsigned)l < _CONFIG_LOG_MAX ? config_log_level_names[l] : NULL;
}

const char *config_member_kind_name(enum config_member_kind k)
{
	return (unsigned)k < _CONFIG_MEMBER_MAX ? config_member_kind_names[k] : NULL;
}

const char *config_class_name(enum config_port_class k)
{
	return (unsigned)k < _CONFIG_CLASS_MAX ? config_class_names[k] : NULL;
}
