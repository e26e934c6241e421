/*
 * dynlib.c: opening a shared library by soname, and its functions (dynlib.h).
 *
 * dlsym returns a data pointer; ISO C has no conversion from it to a
 * function pointer, POSIX guarantees the two have one representation.
 * The address is therefore copied byte for byte into the caller's function
 * pointer, which -Wpedantic accepts and which is what POSIX's rationale
 * for dlsym suggests.
 */
#include "common/dynlib.h"

#include <dlfcn.h>
#include <string.h>

sb_status sb_dynlib_load(const char *soname, const char *what, const sb_dynlib_fn *fns, size_t n,
                         bool *loaded, sb_error *err)
{
    if (*loaded)
        return SB_OK;
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        return sb_error_set(err, SB_E_UNSUPPORTED, 0, "%s needs %s: %s", what, soname,
                            why ? why : "it cannot be loaded");
    }
    for (size_t i = 0; i < n; i++) {
        if (fns[i].size != sizeof(void *))
            return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' is not a function pointer", soname,
                                fns[i].name);
        void *sym = dlsym(lib, fns[i].name);
        if (!sym)
            return sb_error_set(err, SB_E_UNSUPPORTED, 0, "%s has no '%s': a newer one is needed",
                                soname, fns[i].name);
        memcpy(fns[i].dst, &sym, sizeof sym);
    }
    *loaded = true;
    return SB_OK;
}
