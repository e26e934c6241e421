/*
 * card_int.h (runner-internal): what the parts of `storbench card`
 * (card.h) share. card.c identifies the card and checks its claims;
 * card_cliff_run.c measures the write cliff; card_geom_run.c the erase
 * block and the open AUs. Each part adds its tests to the one target that
 * card.c added, and leaves every other field as it found it.
 */
#ifndef STORBENCH_CARD_INT_H
#define STORBENCH_CARD_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "probe/probe.h"
#include "storbench/card.h"
#include "target/target.h"

/* Everything one card run needs; lives on sb_card_run's stack. */
typedef struct sb_card {
    const sb_card_config *c;
    sb_target *t; /* opened by sb_card_run with the rights the config gives */
    sb_run *run;
    size_t tix; /* the target's index in run->targets (pointers move as tests are added) */
    sb_card_claims claims;
    sb_sd_card regs;
    bool have_regs;
    uint64_t au, ru, start; /* AU and RU bytes; where the AUs begin (a device's middle) */
    bool device;            /* t is a block device (else a directory) */
    double au_min;          /* the slowest AU, bytes/s, when every AU was written; NaN otherwise */
    double iops[4];         /* the random tests' IOPS; NaN: not measured */
    const char *aeng;       /* the QD32 tests' engine; NULL: none works here */
    char qd32_why[3 * SB_ERROR_MSG_MAX]; /* why the QD32 tests do not run; "" when they do */
    /* Capacity (step 5): the bytes the probe found true (all of them, or
     * its upper bound of the real size) and the device's claimed size; NaN
     * when not checked, and cap_why says why. */
    double cap_ok, cap_claimed;
    char cap_why[SB_ERROR_MSG_MAX];
    bool seq_ran, rnd_ran;           /* the sequential and random steps began */
    char fail_why[SB_ERROR_MSG_MAX]; /* the error that ended the run, "" when none */
} sb_card;

/* The card's target result (the pointer moves as tests are added: take it
 * again after each sb_result_add_test). */
sb_target_res *sb_card_tres(sb_card *k);

/* Sends one progress report when the config asks for them (at most one per
 * SB_CARD_PROGRESS_NS unless final). */
#define SB_CARD_PROGRESS_NS 250000000ull
void sb_card_report(sb_card *k, const sb_card_progress *p, uint64_t *last, bool final);

/* The cliff test (card_cliff_run.c): adds its tests; an error or an
 * interruption leaves what was measured (marked incomplete) and returns
 * the status. */
SB_MUST_CHECK sb_status sb_card_cliff(sb_card *k, sb_error *err);

/* The geometry test (card_geom_run.c), as sb_card_cliff. */
SB_MUST_CHECK sb_status sb_card_geometry(sb_card *k, sb_error *err);

#endif
