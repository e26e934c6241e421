/*
 * test_dynlib.c: a library opened when a feature first needs it
 * (lib/common/dynlib.h): a function found and called through the pointer
 * it filled, once per process, and the one-line errors for a library that
 * is not installed and for a function it lacks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/dynlib.h"

static double (*fn_sqrt)(double);
static double (*fn_fabs)(double);

static void test_found(void **state)
{
    (void)state;
    sb_error err;
    bool loaded = false;
    const sb_dynlib_fn fns[] = { { "sqrt", &fn_sqrt, sizeof fn_sqrt },
                                 { "fabs", &fn_fabs, sizeof fn_fabs } };
    assert_int_equal(sb_dynlib_load("libm.so.6", "a test", fns, 2, &loaded, &err), SB_OK);
    assert_true(loaded);
    assert_true(fn_sqrt(16.0) == 4.0);
    assert_true(fn_fabs(-2.5) == 2.5);
    /* Loaded: nothing is looked up again. */
    fn_sqrt = NULL;
    assert_int_equal(sb_dynlib_load("libm.so.6", "a test", fns, 2, &loaded, &err), SB_OK);
    assert_null(fn_sqrt);
}

static void test_missing(void **state)
{
    (void)state;
    sb_error err;
    bool loaded = false;
    const sb_dynlib_fn fns[] = { { "sqrt", &fn_sqrt, sizeof fn_sqrt } };
    assert_int_equal(sb_dynlib_load("libstorbench-absent.so.0", "a test", fns, 1, &loaded, &err),
                     SB_E_UNSUPPORTED);
    assert_false(loaded);
    assert_non_null(strstr(err.msg, "a test needs libstorbench-absent.so.0: "));
    assert_null(strchr(err.msg, '\n'));

    const sb_dynlib_fn absent[] = { { "sqrt", &fn_sqrt, sizeof fn_sqrt },
                                    { "sb_absent", &fn_fabs, sizeof fn_fabs } };
    assert_int_equal(sb_dynlib_load("libm.so.6", "a test", absent, 2, &loaded, &err),
                     SB_E_UNSUPPORTED);
    assert_false(loaded);
    assert_string_equal(err.msg, "libm.so.6 has no 'sb_absent': a newer one is needed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_found),
        cmocka_unit_test(test_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
