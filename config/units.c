/* SPDX-License-Identifier: MIT */
/*
 * Words and units people read, and the IBA codes behind them: "4096" is
 * IB_MTU_LEN_4096, "200Gb/s" IB_PATH_RECORD_RATE_200_GBS, "200ms" 200000us.
 * Pure functions: text in, value out, -EINVAL for malformed text and
 * -ERANGE for a number too large to hold; the parser words the messages.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <iba/ib_types.h>

#include "config/config_priv.h"
#include "lib/cleanup.h"
#include "lib/strnum.h"

/* Decimal, or hex after 0x; no sign, no spaces. */
int units_uint(const char *s, uint64_t *v)
{
	unsigned base = 10;
	uint64_t x = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned dig = strnum_digit(*s);

		if (dig >= base)
			return -EINVAL;
		if (x > (UINT64_MAX - dig) / base) {
			/* keep reading: "12x" is malformed, not too large */
			for (s++; *s; s++)
				if (strnum_digit(*s) >= base)
					return -EINVAL;
			return -ERANGE;
		}
		x = x * base + dig;
	}
	*v = x;
	return 0;
}

static const struct {
	const char *unit;
	uint64_t us;
} time_units[] = {
	{ "h", 3600000000ull }, { "m", 60000000ull }, { "s", 1000000ull },
	{ "ms", 1000ull },      { "us", 1ull },
};

/* A whole number and a unit (500us, 200ms, 10s, 1m, 1h); "0" alone is zero. */
int units_duration(const char *s, uint64_t *us)
{
	const char *p = s;
	uint64_t x = 0;

	if (!strcmp(s, "0")) {
		*us = 0;
		return 0;
	}
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		if (x > (UINT64_MAX - 9) / 10)
			x = UINT64_MAX; /* saturate; the unit decides if it is malformed */
		else
			x = x * 10 + (uint64_t)(*p - '0');
	}
	for (size_t i = 0; i < ARRAY_SIZE(time_units); i++) {
		if (strcmp(p, time_units[i].unit))
			continue;
		if (x == UINT64_MAX || x > UINT64_MAX / 2 / time_units[i].us)
			return -ERANGE;
		*us = x * time_units[i].us;
		return 0;
	}
	return -EINVAL;
}

void units_duration_fmt(uint64_t us, char *buf, size_t n)
{
	if (!us) {
		snprintf(buf, n, "0s");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(time_units); i++) {
		if (us % time_units[i].us == 0) {
			snprintf(buf, n, "%" PRIu64 "%s", us / time_units[i].us,
				 time_units[i].unit);
			return;
		}
	}
}

/* 0x and 1 to 16 hex digits: GUIDs are always written in hex. */
int units_guid(const char *s, uint64_t *guid)
{
	size_t n;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -EINVAL;
	n = strlen(s + 2);
	if (n < 1 || n > 16 || strspn(s + 2, "0123456789abcdefABCDEF") != n)
		return -EINVAL;
	return units_uint(s, guid);
}

/*
 * 0xfe80000000000000, or the prefix as IPv6 text (fe80::, fec0:0:0:1::,
 * optionally with /64): the upper 64 bits of a GID. -ERANGE when the text
 * sets any of the lower 64 bits (that is a port's, not the subnet's).
 */
int units_subnet_prefix(const char *s, uint64_t *prefix)
{
	unsigned char a[16];
	char text[64];
	size_t n = strlen(s);
	uint64_t x = 0;

	if (!strchr(s, ':'))
		return units_uint(s, prefix);
	if (n >= sizeof(text))
		return -EINVAL;
	memcpy(text, s, n + 1);
	if (n > 3 && !strcmp(text + n - 3, "/64"))
		text[n - 3] = '\0';
	if (inet_pton(AF_INET6, text, a) != 1)
		return -EINVAL;
	for (int i = 8; i < 16; i++)
		if (a[i])
			return -ERANGE;
	for (int i = 0; i < 8; i++)
		x = x << 8 | a[i];
	*prefix = x;
	return 0;
}

static const char *const mtu_names[] = {
	[IB_MTU_LEN_256] = "256",   [IB_MTU_LEN_512] = "512",   [IB_MTU_LEN_1024] = "1024",
	[IB_MTU_LEN_2048] = "2048", [IB_MTU_LEN_4096] = "4096",
};
const char units_mtu_allowed[] = "256, 512, 1024, 2048, 4096";

int units_mtu(const char *s, uint8_t *mtu)
{
	for (uint8_t i = IB_MIN_MTU; i <= IB_MAX_MTU; i++) {
		if (!strcmp(s, mtu_names[i])) {
			*mtu = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *config_mtu_name(uint8_t mtu)
{
	return mtu >= IB_MIN_MTU && mtu <= IB_MAX_MTU ? mtu_names[mtu] : NULL;
}

/* Every rate iba/ib_types.h has a code for, slowest first. */
static const struct {
	const char *name;
	uint8_t code;
} rates[] = {
	{ "2.5Gb/s", IB_PATH_RECORD_RATE_2_5_GBS }, { "5Gb/s", IB_PATH_RECORD_RATE_5_GBS },
	{ "10Gb/s", IB_PATH_RECORD_RATE_10_GBS }, { "14Gb/s", IB_PATH_RECORD_RATE_14_GBS },
	{ "20Gb/s", IB_PATH_RECORD_RATE_20_GBS }, { "25Gb/s", IB_PATH_RECORD_RATE_25_GBS },
	{ "28Gb/s", IB_PATH_RECORD_RATE_28_GBS }, { "30Gb/s", IB_PATH_RECORD_RATE_30_GBS },
	{ "40Gb/s", IB_PATH_RECORD_RATE_40_GBS }, { "50Gb/s", IB_PATH_RECORD_RATE_50_GBS },
	{ "56Gb/s", IB_PATH_RECORD_RATE_56_GBS }, { "60Gb/s", IB_PATH_RECORD_RATE_60_GBS },
	{ "80Gb/s", IB_PATH_RECORD_RATE_80_GBS }, { "100Gb/s", IB_PATH_RECORD_RATE_100_GBS },
	{ "112Gb/s", IB_PATH_RECORD_RATE_112_GBS }, { "120Gb/s", IB_PATH_RECORD_RATE_120_GBS },
	{ "168Gb/s", IB_PATH_RECORD_RATE_168_GBS }, { "200Gb/s", IB_PATH_RECORD_RATE_200_GBS },
	{ "300Gb/s", IB_PATH_RECORD_RATE_300_GBS }, { "400Gb/s", IB_PATH_RECORD_RATE_400_GBS },
	{ "600Gb/s", IB_PATH_RECORD_RATE_600_GBS },
};
const char units_rate_allowed[] =
	"2.5Gb/s, 5Gb/s, 10Gb/s, 14Gb/s, 20Gb/s, 25Gb/s, 28Gb/s, 30Gb/s, 40Gb/s, 50Gb/s, "
	"56Gb/s, 60Gb/s, 80Gb/s, 100Gb/s, 112Gb/s, 120Gb/s, 168Gb/s, 200Gb/s, 300Gb/s, "
	"400Gb/s, 600Gb/s";

/* "200Gb/s", or "200 Gb/s" as people also write it. */
int units_rate(const char *s, uint8_t *rate)
{
	size_t n = strspn(s, "0123456789.");
	char text[16];

	if (!n || n > 4 || strcmp(s + n + (s[n] == ' '), "Gb/s"))
		return -EINVAL;
	snprintf(text, sizeof(text), "%.*sGb/s", (int)n, s);
	for (size_t i = 0; i < ARRAY_SIZE(rates); i++) {
		if (!strcmp(text, rates[i].name)) {
			*rate = rates[i].code;
			return 0;
		}
	}
	return -EINVAL;
}

const char *config_rate_name(uint8_t rate)
{
	for (size_t i = 0; i < ARRAY_SIZE(rates); i++)
		if (rates[i].code == rate)
			return rates[i].name;
	return NULL;
}

uint8_t config_op_vls_code(uint8_t vls)
{
	switch (vls) {
	case 1:
		return 1;
	case 2:
		return 2;
	case 4:
		return 3;
	case 8:
		return 4;
	case 15:
		return 5;
	default:
		return 0;
	}
}

/* IBA PortInfo:HOQLife: 4.096us * 2^v for v 0-19; 20 and above is infinite. */
uint8_t config_hoq_code(uint64_t hoq_us)
{
	if (hoq_us == CONFIG_HOQ_INFINITE)
		return 20;
	if (hoq_us > 2147484)
		return 20;
	for (uint8_t v = 0; v < 20; v++)
		if ((4096ull << v) >= hoq_us * 1000)
			return v;
	return 20;
}
