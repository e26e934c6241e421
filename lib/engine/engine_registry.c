/*
 * engine_registry.c: the explicit list of engines. Adding a backend means
 * adding its file to meson.build and one line here.
 */
#include <string.h>

#include "engine/engine.h"

static const sb_engine_ops *const engines[] = {
    &sb_engine_sync,
    &sb_engine_psync,
};

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
