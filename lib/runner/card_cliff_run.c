/* card_cliff_run.c: (being written) */
#include "runner/card_int.h"

sb_status sb_card_cliff(sb_card *k, sb_error *err)
{
    (void)k;
    return sb_error_set(err, SB_E_INVALID, 0, "cliff: being written");
}
