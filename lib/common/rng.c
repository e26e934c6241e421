/*
 * rng.c: seeding the generator and filling buffers (rng.h).
 */
#include "common/rng.h"

#define GOLDEN 0x9e3779b97f4a7c15ull /* 2^64 / phi, splitmix64's increment */

sb_rng sb_rng_seeded(uint64_t seed, uint64_t stream)
{
    uint64_t s = sb_rng_mix64(seed + GOLDEN * (stream + 1));
    return (sb_rng){ s ? s : 1 };
}

void sb_rng_fill(sb_rng *r, void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len) {
        uint64_t v = sb_rng_next(r);
        for (unsigned i = 0; i < 8 && len; i++, len--)
            *p++ = (unsigned char)(v >> (8 * i));
    }
}
