/*
 * threads.c: sb_threads_run (threads.h).
 */
#include <pthread.h>
#include <stdlib.h>

#include "common/threads.h"

typedef struct call {
    void (*fn)(void *item);
    void *item;
} call;

static void *trampoline(void *arg)
{
    call *c = arg;
    c->fn(c->item);
    return NULL;
}

sb_status sb_threads_run(size_t n, void (*fn)(void *item), void *items, size_t stride,
                         const char *what, void (*on_fail)(void *ctx), void *ctx, sb_error *err)
{
    if (n == 0)
        return SB_OK;
    if (n == 1) {
        fn(items);
        return SB_OK;
    }
    pthread_t *th = calloc(n, sizeof *th);
    call *calls = calloc(n, sizeof *calls);
    if (!th || !calls) {
        free(th);
        free(calls);
        return sb_error_nomem(err, "starting threads");
    }
    sb_status st = SB_OK;
    size_t started = 0;
    for (; started < n; started++) {
        calls[started] = (call){ fn, (char *)items + started * stride };
        int e = pthread_create(&th[started], NULL, trampoline, &calls[started]);
        if (e != 0) {
            st = sb_error_set(err, SB_E_NOMEM, e, "cannot start a thread for %s", what);
            if (on_fail)
                on_fail(ctx);
            break;
        }
    }
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    free(calls);
    return st;
}
