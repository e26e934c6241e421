/*
 * test_card_claims.c: the SD classes and their promises (card_claims.h):
 * every class of the table, names in any case, refusals, and the claims of
 * two sources kept apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "storbench/card_claims.h"

static void test_lookup(void **state)
{
    (void)state;
    static const struct {
        const char *name, *want;
        sb_claim_family family;
        double mb_s, read_iops, write_iops;
    } cases[] = {
        { "C2", "C2", SB_CLAIM_SPEED, 2, 0, 0 },      { "c4", "C4", SB_CLAIM_SPEED, 4, 0, 0 },
        { "C6", "C6", SB_CLAIM_SPEED, 6, 0, 0 },      { "C10", "C10", SB_CLAIM_SPEED, 10, 0, 0 },
        { "u1", "U1", SB_CLAIM_UHS, 10, 0, 0 },       { "U3", "U3", SB_CLAIM_UHS, 30, 0, 0 },
        { "V6", "V6", SB_CLAIM_VIDEO, 6, 0, 0 },      { "v10", "V10", SB_CLAIM_VIDEO, 10, 0, 0 },
        { "V30", "V30", SB_CLAIM_VIDEO, 30, 0, 0 },   { "V60", "V60", SB_CLAIM_VIDEO, 60, 0, 0 },
        { "V90", "V90", SB_CLAIM_VIDEO, 90, 0, 0 },   { "a1", "A1", SB_CLAIM_APP, 10, 1500, 500 },
        { "A2", "A2", SB_CLAIM_APP, 10, 4000, 2000 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sb_card_claim c;
        assert_true(sb_card_claim_lookup(cases[i].name, &c));
        assert_string_equal(c.name, cases[i].want);
        assert_int_equal(c.family, cases[i].family);
        assert_true(c.seq_write_bps == cases[i].mb_s * 1e6);
        assert_true(c.rand_read_iops == cases[i].read_iops);
        assert_true(c.rand_write_iops == cases[i].write_iops);
        assert_false(c.from_card);
    }
    static const char *const no[] = {
        "C8", "U2", "V20", "A3", "10", "", "C", "C100000000", "UHS1"
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        sb_card_claim c;
        assert_false(sb_card_claim_lookup(no[i], &c));
        assert_string_equal(c.name, "");
    }
    sb_card_claim c;
    assert_false(sb_card_claim_lookup(NULL, &c));
}

static void test_parse(void **state)
{
    (void)state;
    sb_card_claims cl = { 0 };
    sb_error err = { 0 };
    assert_int_equal(sb_card_claims_parse(&cl, " u3, A2 ,V30", &err), SB_OK);
    assert_int_equal(cl.n, 3);
    assert_string_equal(cl.c[0].name, "U3");
    assert_string_equal(cl.c[1].name, "A2");
    assert_string_equal(cl.c[2].name, "V30");
    /* Given again: kept once. */
    assert_int_equal(sb_card_claims_parse(&cl, "U3", &err), SB_OK);
    assert_int_equal(cl.n, 3);

    /* Refused, and nothing of the list is kept. */
    static const struct {
        const char *list, *msg;
    } bad[] = {
        { "U3,,A2", "an empty class in 'U3,,A2'" },
        { "", "an empty class in ''" },
        { "C10,C8", "'C8' is not an SD class (C2 C4 C6 C10, U1 U3, V6 V10 V30 V60 V90, A1 A2)" },
        { "C6,C10", "C6 and C10 are two classes of one kind" },
        { "averyveryverylongname", "'averyveryverylongname' is not an SD class" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sb_card_claims before = cl;
        assert_int_equal(sb_card_claims_parse(&cl, bad[i].list, &err), SB_E_INVALID);
        assert_string_equal(err.msg, bad[i].msg);
        assert_int_equal(cl.n, before.n);
    }
}

static void test_sources(void **state)
{
    (void)state;
    sb_card_claims cl = { 0 };
    sb_error err = { 0 };
    /* The card says C10 U1 A1; the user adds C6 and repeats A1. */
    assert_int_equal(sb_card_claims_add(&cl, "C10", true, &err), SB_OK);
    assert_int_equal(sb_card_claims_add(&cl, "U1", true, &err), SB_OK);
    assert_int_equal(sb_card_claims_add(&cl, "A1", true, &err), SB_OK);
    assert_int_equal(sb_card_claims_parse(&cl, "C6,A1", &err), SB_OK);
    assert_int_equal(cl.n, 4);
    assert_true(cl.c[2].from_card); /* A1: the card's */
    /* The user's first, then the card's: kept once, as the card's. */
    sb_card_claims u = { 0 };
    assert_int_equal(sb_card_claims_parse(&u, "U3", &err), SB_OK);
    assert_int_equal(sb_card_claims_add(&u, "U3", true, &err), SB_OK);
    assert_int_equal(u.n, 1);
    assert_true(u.c[0].from_card);
    assert_string_equal(cl.c[3].name, "C6");
    assert_false(cl.c[3].from_card);
    /* Two speed classes on the card are refused. */
    assert_int_equal(sb_card_claims_add(&cl, "C4", true, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "C10 and C4 are two classes of one kind on the card");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_sources),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
