/*
 * rng.h (library-internal): the one pseudo-random generator of storbench,
 * for random offsets, random file names and data that storage cannot
 * compress. Not for anything secret.
 *
 * xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
 * generators, scrambled", 2016): 64 bits of state, period 2^64 - 1, a shift
 * triple of 12/25/27 and a multiply; a few nanoseconds per number, which
 * matters in the job runner's hot loop (hence inline). Its state is seeded
 * through splitmix64's finaliser (Steele, Lea and Flood, 2014), so that
 * seeds or streams that differ in one bit start unrelated sequences, and a
 * state of 0 (where xorshift stays forever) cannot occur.
 */
#ifndef SB_RNG_H
#define SB_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct sb_rng {
    uint64_t s; /* never 0 */
} sb_rng;

/* splitmix64's finaliser: a bijection of 64-bit values in which every input
 * bit changes about half of the output bits. */
static inline uint64_t sb_rng_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A generator for stream number stream of seed: the same pair always gives
 * the same sequence (fio's randrepeat, bonnie++'s -r seed), different
 * streams (one per thread or copy) unrelated ones. */
sb_rng sb_rng_seeded(uint64_t seed, uint64_t stream);

/* The next number. */
static inline uint64_t sb_rng_next(sb_rng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* Fills len bytes of buf with the next numbers, byte by byte (the same
 * bytes on every platform; buf needs no alignment). */
void sb_rng_fill(sb_rng *r, void *buf, size_t len);

#endif
