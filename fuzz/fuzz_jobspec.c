/*
 * fuzz_jobspec.c: libFuzzer target for the fio job-file reader.
 *
 * Each input is parsed twice: as a job file (includes refused, so the
 * fuzzer never opens files; a fixed environment, so runs are repeatable)
 * and as a command line (the input split at newlines into arguments). A
 * parsed job list is also dumped, so the dump's formatting is fuzzed too.
 * Any crash, leak, sanitizer report or message that is not one line is a
 * finding. Built only with clang and -Dfuzz=true; fuzz/run_fuzz.sh runs it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/jobspec.h"
#include "storbench/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *fixed_getenv(void *ctx, const char *name)
{
    (void)ctx;
    return strcmp(name, "HOME") == 0 ? "/home/pi" : NULL;
}

static void check_error(const sb_error *err)
{
    /* An error is one line that starts with the source position. */
    if (strchr(err->msg, '\n') || err->msg[0] == '\0')
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sb_buf warnings = { 0 }, dump = { 0 };
    sb_sink warn, out;
    sb_sink_init_buf(&warn, &warnings);
    sb_sink_init_buf(&out, &dump);
    sb_jobspec_opts o = { 0 };
    o.warn = &warn;
    o.getenv = fixed_getenv;
    o.ncpus = 4;
    o.pagesize = 4096;
    o.mb_memory = 1024;
    o.no_include = true;

    sb_joblist list = { 0 };
    sb_error err;
    if (sb_jobspec_parse_buffer("fuzz.fio", (const char *)data, size, &o, &list, &err) == SB_OK)
        sb_jobspec_dump(&list, &out);
    else
        check_error(&err);
    sb_joblist_free(&list);

    /* The same bytes as a command line, one argument per line. */
    char *copy = malloc(size + 1);
    const char **argv = malloc((size + 1) * sizeof *argv);
    if (copy && argv) {
        memcpy(copy, data, size);
        copy[size] = '\0';
        int argc = 0;
        char *s = copy;
        for (;;) {
            char *nl = memchr(s, '\n', size - (size_t)(s - copy));
            argv[argc++] = s;
            if (!nl)
                break;
            *nl = '\0';
            s = nl + 1;
        }
        if (sb_jobspec_parse_args(argc, argv, &o, &list, &err) == SB_OK)
            sb_jobspec_dump(&list, &out);
        else
            check_error(&err);
        sb_joblist_free(&list);
    }
    free(copy);
    free(argv);
    sb_buf_free(&warnings);
    sb_buf_free(&dump);
    return 0;
}
