/*
 * verify_sector.c: the sector format of storbench verify (described in
 * verify.h): filling a sector, and telling what a sector read back holds.
 *
 * Every field is stored little-endian byte by byte, so a card written on a
 * big-endian or ARM board reads back the same anywhere, and no access is
 * unaligned. The pattern is splitmix64 (Steele, Lea and Flood, "Fast
 * splittable pseudorandom number generators", 2014: a golden-ratio counter
 * through the finaliser sb_rng_mix64 of common/rng.h) seeded from the
 * header: cheap (a few ns per word), and any two sectors differ in nearly
 * every bit, so a sector cannot pass for another by accident. The bytes
 * are fixed for ever (tests/unit/test_verify.c pins them): a card written
 * by an older storbench must still read back as ok.
 */
#include <string.h>

#include "common/rng.h"
#include "storbench/verify.h"

static const unsigned char magic[8] = { 'S', 'B', 'V', 'E', 'R', 'I', 'F', '1' };

#define HEADER_BYTES 32u
#define WORDS ((SB_VERIFY_SECTOR - HEADER_BYTES) / 8u)
#define GOLDEN 0x9e3779b97f4a7c15ull

static void put64(unsigned char *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint64_t seed_of(uint64_t run_id, uint64_t offset, uint64_t total)
{
    return sb_rng_mix64(run_id ^ sb_rng_mix64(offset + GOLDEN) ^ sb_rng_mix64(total + 2 * GOLDEN));
}

void sb_verify_sector_fill(unsigned char *sector, uint64_t run_id, uint64_t offset, uint64_t total)
{
    memcpy(sector, magic, sizeof magic);
    put64(sector + 8, run_id);
    put64(sector + 16, offset);
    put64(sector + 24, total);
    uint64_t state = seed_of(run_id, offset, total);
    unsigned char *p = sector + HEADER_BYTES;
    for (unsigned i = 0; i < WORDS; i++, p += 8) {
        state += GOLDEN;
        put64(p, sb_rng_mix64(state));
    }
}

bool sb_verify_sector_parse(const unsigned char *sector, uint64_t *run_id, uint64_t *offset,
                            uint64_t *total)
{
    if (memcmp(sector, magic, sizeof magic) != 0)
        return false;
    uint64_t id = get64(sector + 8), off = get64(sector + 16), tot = get64(sector + 24);
    uint64_t state = seed_of(id, off, tot);
    const unsigned char *p = sector + HEADER_BYTES;
    for (unsigned i = 0; i < WORDS; i++, p += 8) {
        state += GOLDEN;
        if (get64(p) != sb_rng_mix64(state))
            return false;
    }
    if (run_id)
        *run_id = id;
    if (offset)
        *offset = off;
    if (total)
        *total = tot;
    return true;
}

sb_verify_class sb_verify_sector_check(const unsigned char *sector, uint64_t run_id,
                                       uint64_t offset, uint64_t *found_offset)
{
    *found_offset = offset;
    uint64_t id, off;
    if (sb_verify_sector_parse(sector, &id, &off, NULL)) {
        if (id != run_id)
            return SB_VERIFY_OVERWRITTEN;
        if (off == offset)
            return SB_VERIFY_OK;
        *found_offset = off;
        return SB_VERIFY_CHANGED;
    }
    /* One byte value throughout: erased (FF), trimmed or never written
     * (00). Anything else that is not a whole sector is damage. */
    for (unsigned i = 1; i < SB_VERIFY_SECTOR; i++)
        if (sector[i] != sector[0])
            return SB_VERIFY_CORRUPTED;
    return SB_VERIFY_OVERWRITTEN;
}
