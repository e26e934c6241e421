/* card_geom_run.c: (being written) */
#include "runner/card_int.h"

sb_status sb_card_geometry(sb_card *k, sb_error *err)
{
    (void)k;
    return sb_error_set(err, SB_E_INVALID, 0, "geom: being written");
}
