/* SPDX-License-Identifier: MIT */
#ifndef LOOM_SHA256_H
#define LOOM_SHA256_H

/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the per-node M_Keys
 * loomd derives from its secret (loomd/mkey.c). Small and plain: it hashes
 * a few dozen bytes per node, so speed does not matter here.
 */

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_BLOCK 64

struct sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes hashed so far */
	uint8_t buf[SHA256_BLOCK];
	unsigned n; /* bytes in buf */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN]);
void sha256(const void *data, size_t len, uint8_t out[SHA256_LEN]);
void hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
		 uint8_t out[SHA256_LEN]);

#endif
