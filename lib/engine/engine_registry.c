/*
 * engine_registry.c: the explicit list of engines. Adding a backend means
 * adding its file to meson.build and one line here. The asynchronous engines
 * are listed whether or not they were built in: one that was not says so
 * from its probe (sb_engine_unbuilt), so `ioengine=libaio` is always a known
 * name.
 */
#include <string.h>

#include "engine/engine.h"

static const sb_engine_ops *const engines[] = {
    &sb_engine_sync,
    &sb_engine_psync,
    &sb_engine_libaio,
    &sb_engine_io_uring,
};

sb_status sb_engine_unbuilt(const char *name, const char *lib, const char *pkg, sb_error *err)
{
    return sb_error_set(err, SB_E_UNSUPPORTED, 0,
                        "ioengine=%s: storbench was built without %s (install %s and rebuild)",
                        name, lib, pkg);
}

static SB_MUST_CHECK sb_status no_instance(sb_error *err)
{
    return sb_error_set(err, SB_E_UNSUPPORTED, 0, "this I/O engine was not built in");
}

sb_status sb_engine_unbuilt_init(unsigned depth, sb_engine_ctx **out, sb_error *err)
{
    (void)depth;
    *out = NULL;
    return no_instance(err);
}

sb_status sb_engine_unbuilt_queue(sb_engine_ctx *ctx, sb_io *io, sb_error *err)
{
    (void)ctx;
    (void)io;
    return no_instance(err);
}

sb_status sb_engine_unbuilt_submit(sb_engine_ctx *ctx, sb_error *err)
{
    (void)ctx;
    return no_instance(err);
}

sb_status sb_engine_unbuilt_reap(sb_engine_ctx *ctx, unsigned min, unsigned max, sb_io **done,
                                 unsigned *n, sb_error *err)
{
    (void)ctx;
    (void)min;
    (void)max;
    (void)done;
    *n = 0;
    return no_instance(err);
}

void sb_engine_unbuilt_destroy(sb_engine_ctx *ctx)
{
    (void)ctx;
}

const sb_engine_ops *sb_engine_find(const char *name)
{
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++)
        if (strcmp(engines[i]->name, name) == 0)
            return engines[i];
    return NULL;
}

const sb_engine_ops *const *sb_engine_all(size_t *n)
{
    *n = sizeof engines / sizeof engines[0];
    return engines;
}
