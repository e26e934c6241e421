/*
 * card_claims.c: the SD classes and their promises (card_claims.h).
 *
 * The table is the SD Association's, as published in its class pages and
 * in the SD Physical Layer Simplified Specification (4.13 Speed Class, UHS
 * Speed Grade and Video Speed Class; 4.16 Application Performance Class).
 * MB/s there are 10^6 bytes per second.
 */
#include <ctype.h>
#include <string.h>

#include "storbench/card_claims.h"

#define MB 1e6

static const struct {
    const char *name;
    sb_claim_family family;
    double seq_mb_s, read_iops, write_iops;
} classes[] = {
    { "C2", SB_CLAIM_SPEED, 2, 0, 0 },      { "C4", SB_CLAIM_SPEED, 4, 0, 0 },
    { "C6", SB_CLAIM_SPEED, 6, 0, 0 },      { "C10", SB_CLAIM_SPEED, 10, 0, 0 },
    { "U1", SB_CLAIM_UHS, 10, 0, 0 },       { "U3", SB_CLAIM_UHS, 30, 0, 0 },
    { "V6", SB_CLAIM_VIDEO, 6, 0, 0 },      { "V10", SB_CLAIM_VIDEO, 10, 0, 0 },
    { "V30", SB_CLAIM_VIDEO, 30, 0, 0 },    { "V60", SB_CLAIM_VIDEO, 60, 0, 0 },
    { "V90", SB_CLAIM_VIDEO, 90, 0, 0 },    { "A1", SB_CLAIM_APP, 10, 1500, 500 },
    { "A2", SB_CLAIM_APP, 10, 4000, 2000 },
};
#define N_CLASSES (sizeof classes / sizeof classes[0])

bool sb_card_claim_lookup(const char *name, sb_card_claim *out)
{
    memset(out, 0, sizeof *out);
    if (!name)
        return false;
    char up[sizeof out->name];
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof up)
        return false;
    for (size_t i = 0; i < n; i++)
        up[i] = (char)toupper((unsigned char)name[i]);
    up[n] = '\0';
    for (size_t i = 0; i < N_CLASSES; i++) {
        if (strcmp(classes[i].name, up) != 0)
            continue;
        memcpy(out->name, up, n + 1);
        out->family = classes[i].family;
        out->seq_write_bps = classes[i].seq_mb_s * MB;
        out->rand_read_iops = classes[i].read_iops;
        out->rand_write_iops = classes[i].write_iops;
        return true;
    }
    return false;
}

sb_status sb_card_claims_add(sb_card_claims *claims, const char *name, bool from_card,
                             sb_error *err)
{
    sb_card_claim c;
    if (!sb_card_claim_lookup(name, &c))
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is not an SD class (C2 C4 C6 C10, U1 U3, V6 V10 V30 V60 V90, "
                            "A1 A2)",
                            name);
    c.from_card = from_card;
    for (size_t i = 0; i < claims->n; i++) {
        sb_card_claim *o = &claims->c[i];
        if (strcmp(o->name, c.name) == 0) {
            o->from_card = o->from_card || from_card; /* once, as the card's when it says it */
            return SB_OK;
        }
        if (o->family == c.family && o->from_card == from_card)
            return sb_error_set(err, SB_E_INVALID, 0, "%s and %s are two classes of one kind%s",
                                o->name, c.name, from_card ? " on the card" : "");
    }
    if (claims->n == SB_CARD_MAX_CLAIMS) /* one per family and source cannot get here */
        return sb_error_set(err, SB_E_INVALID, 0, "more than %d classes", SB_CARD_MAX_CLAIMS);
    claims->c[claims->n++] = c;
    return SB_OK;
}

sb_status sb_card_claims_parse(sb_card_claims *claims, const char *list, sb_error *err)
{
    sb_card_claims work = *claims;
    const char *p = list ? list : "";
    for (;;) {
        size_t len = strcspn(p, ",");
        const char *a = p, *b = p + len;
        while (a < b && isspace((unsigned char)*a))
            a++;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        char name[16];
        if (a == b)
            return sb_error_set(err, SB_E_INVALID, 0, "an empty class in '%s'", list ? list : "");
        if ((size_t)(b - a) >= sizeof name)
            return sb_error_set(err, SB_E_INVALID, 0, "'%.*s' is not an SD class", (int)(b - a), a);
        memcpy(name, a, (size_t)(b - a));
        name[b - a] = '\0';
        SB_TRY(sb_card_claims_add(&work, name, false, err));
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    *claims = work;
    return SB_OK;
}
