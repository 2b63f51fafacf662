/* SPDX-License-Identifier: MIT */
#ifndef LOOM_MAD_RATE_H
#define LOOM_MAD_RATE_H

#include <stdint.h>

/*
 * IBA rate codes (Table 205, the 6-bit Rate of PathRecord and MCMemberRecord) are
 * not in speed order: 5 (5 Gb/s) is slower than 3 (10 Gb/s). Compare rates by
 * their speed, never by their code.
 */
#define RATE_CODE_MAX 22 /* 600 Gb/s, the highest code Table 205 defines */

/* The speed of rate code in 100 Mb/s; 0 for a code that is not defined. */
unsigned rate_speed(uint8_t code);
/* The fastest defined rate code slower than code; 0 if there is none. */
uint8_t rate_below(uint8_t code);

#endif
