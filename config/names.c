/* SPDX-License-Identifier: MIT */
/*
 * The words loom.yaml uses for the enums of config.h, one table per enum:
 * the parsers read them (parse_word), validate.c and print.c name values
 * with them (config_*_name). Here rather than in parse_sm.c, parse_part.c and
 * parse_qos.c, so that validate.c and print.c need no section's parser for them.
 */
#include <stdio.h>

#include "config/config.h"

const char *const config_engine_names[_CONFIG_ENGINE_MAX] = {
	[CONFIG_ENGINE_MINHOP] = "minhop", [CONFIG_ENGINE_UPDN] = "updn",
	[CONFIG_ENGINE_FTREE] = "ftree",   [CONFIG_ENGINE_VLAYERED] = "vlayered",
	[CONFIG_ENGINE_FILE] = "file",
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
					e == CONFIG_ENGINE_AUTO ? "auto" :
					config_engine_name((enum config_engine)e));
	}
	return buf;
}

bool config_engines_has(const struct config_sm *sm, enum config_engine e)
{
	for (unsigned i = 0; i < sm->routing.n_engines; i++) {
		uint8_t x = sm->routing.engine[i];

		if (x == e || (x == CONFIG_ENGINE_AUTO && (e == CONFIG_ENGINE_FTREE ||
							   e == CONFIG_ENGINE_VLAYERED ||
							   e == CONFIG_ENGINE_UPDN)))
			return true;
	}
	return false;
}

const char *config_engine_name(enum config_engine e)
{
	return (unsigned)e < _CONFIG_ENGINE_MAX ? config_engine_names[e] : NULL;
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
