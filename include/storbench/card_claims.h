/*
 * card_claims.h: what the classes printed on an SD card (and its SD Status
 * register) promise, for `storbench card` to check each against a
 * measurement.
 *
 * The promises are the SD Association's published minimums, sizes in MB/s
 * of 10^6 bytes:
 *   Speed Class  C2 C4 C6 C10    sustained sequential write 2, 4, 6, 10 MB/s
 *   UHS Speed    U1 U3           10, 30 MB/s
 *   Video Speed  V6 V10 V30 V60 V90   6, 10, 30, 60, 90 MB/s
 *   Application  A1              random 4 KiB reads >= 1500 IOPS, writes
 *                                >= 500 IOPS, sequential write >= 10 MB/s
 *                A2              4000 and 2000 IOPS, 10 MB/s (reached with
 *                                the card's command queue and cache, which
 *                                the host must support)
 * The sequential classes hold when the slowest allocation unit (AU) written
 * meets the rate, not the average (the specification measures per AU).
 */
#ifndef STORBENCH_CARD_CLAIMS_H
#define STORBENCH_CARD_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>

#include "storbench/status.h"

typedef enum sb_claim_family {
    SB_CLAIM_SPEED, /* C2 .. C10 */
    SB_CLAIM_UHS,   /* U1, U3 */
    SB_CLAIM_VIDEO, /* V6 .. V90 */
    SB_CLAIM_APP,   /* A1, A2 */
} sb_claim_family;

typedef struct sb_card_claim {
    char name[8]; /* "C10", "U3", "V30", "A2": upper case, as printed */
    sb_claim_family family;
    double seq_write_bps;   /* the sustained sequential write it promises, bytes/s */
    double rand_read_iops;  /* A1/A2: random 4 KiB reads per second; 0 otherwise */
    double rand_write_iops; /* A1/A2: random 4 KiB writes per second; 0 otherwise */
    bool from_card;         /* the card's SD Status says it (else the user's --claim) */
} sb_card_claim;

#define SB_CARD_MAX_CLAIMS 8 /* one per family from each source is 8 at most */

typedef struct sb_card_claims {
    sb_card_claim c[SB_CARD_MAX_CLAIMS];
    size_t n;
} sb_card_claims;

/* The promise of the class called name (any case: "u3", "C10", "a2"), in
 * *out (from_card false). False for a name that is no class ("C8", "U2",
 * "V20", "A3", "10"), with *out zeroed. */
bool sb_card_claim_lookup(const char *name, sb_card_claim *out);

/* Adds the class called name to claims unless it is there already (a class
 * the card states and the user repeats is kept once, as the card's). Refuses
 * a name that is no class with SB_E_INVALID, naming it and the classes
 * there are; a second class of one family from one source (C6 and C10
 * both given) with SB_E_INVALID. */
SB_MUST_CHECK sb_status sb_card_claims_add(sb_card_claims *claims, const char *name, bool from_card,
                                           sb_error *err);

/* Adds every class of a comma-separated list ("U3,A2,V30", as --claim
 * takes it; blanks around names are skipped), as sb_card_claims_add with
 * from_card false. An empty name ("U3,,A2") is refused. On failure claims
 * keeps what it had before the call. */
SB_MUST_CHECK sb_status sb_card_claims_parse(sb_card_claims *claims, const char *list,
                                             sb_error *err);

#endif
