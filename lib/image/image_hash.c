/*
 * image_hash.c: sb_image_hash, the 64-bit hash a block read back is
 * compared with (image.h).
 *
 * Four lanes take 8-byte words in turn (32 bytes a round), so the four
 * multiply chains run side by side in the CPU; each lane's step
 *     lane = rotl(lane ^ (word * K_IN), 31) * K_LANE
 * is a bijection of the lane for a fixed word (xor, rotation and the
 * multiplication by an odd constant all are) and of the word for a fixed
 * lane, so a change to one word always changes its lane, and every later
 * step keeps it changed. The last 0-3 whole words go to lanes 0-2, the
 * 1-7 tail bytes, zero-padded, to lane 3. The end folds the length and the
 * four lanes, one at a time, through a xorshift-multiply finaliser, which
 * is a bijection of its input too: for a given length, inputs that differ
 * in one bit never collide. Inputs of different lengths differ in the
 * length folded in.
 *
 * Words are loaded with memcpy (one unaligned load on x86-64 and ARMv8,
 * never an unaligned access through a cast) as little-endian, swapped on a
 * big-endian machine, so the value is the same everywhere; the unit test
 * holds golden values.
 */
#include <string.h>

#include "image/image.h"

/* Odd 64-bit constants with well-spread bits (from the golden ratio and
 * the digits of other irrationals, as many hashes use). */
#define K_IN 0x9e3779b97f4a7c15ULL
#define K_LANE 0xc2b2ae3d27d4eb4fULL
#define K_LEN 0x165667b19e3779f9ULL
#define K_FIN1 0xff51afd7ed558ccdULL
#define K_FIN2 0xc4ceb9fe1a85ec53ULL

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint64_t rotl64(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t lane_step(uint64_t lane, uint64_t word)
{
    return rotl64(lane ^ (word * K_IN), 31) * K_LANE;
}

static inline uint64_t fin(uint64_t x)
{
    x ^= x >> 33;
    x *= K_FIN1;
    x ^= x >> 29;
    x *= K_FIN2;
    x ^= x >> 32;
    return x;
}

uint64_t sb_image_hash(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t a = K_IN, b = K_LANE, c = K_LEN, d = K_FIN1;
    size_t n = len;
    for (; n >= 32; n -= 32, p += 32) {
        a = lane_step(a, load64(p));
        b = lane_step(b, load64(p + 8));
        c = lane_step(c, load64(p + 16));
        d = lane_step(d, load64(p + 24));
    }
    if (n >= 8) {
        a = lane_step(a, load64(p));
        p += 8;
        n -= 8;
    }
    if (n >= 8) {
        b = lane_step(b, load64(p));
        p += 8;
        n -= 8;
    }
    if (n >= 8) {
        c = lane_step(c, load64(p));
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        unsigned char tail[8] = { 0 };
        memcpy(tail, p, n);
        d = lane_step(d, load64(tail));
    }
    uint64_t h = fin((uint64_t)len * K_LEN);
    h = fin(h ^ a);
    h = fin(h + b);
    h = fin(h ^ c);
    h = fin(h + d);
    return h;
}
