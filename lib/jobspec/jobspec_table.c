/*
 * jobspec_table.c: the option table, one row per fio option storbench reads.
 *
 * Every option storbench takes from a fio job file or command line is one
 * row of sb_jobspec_options[]: its name and aliases, its type, the sb_job
 * field it fills, its default (written as fio would write it, and parsed by
 * the same code as user input), its range, the unit of the stored value and
 * a line of help. This file is data, and the few functions that list it
 * (storbench/jobspec.h, "the option table, listed"): jobspec_options.c
 * sets, validates, lists and dumps options by walking it, and nothing else
 * names an option. It includes headers only and calls nothing, so the shell
 * completion's generator (src/completion_gen.c), built for the build
 * machine, compiles it alone. Adding an option is adding a row here and a
 * field of sb_job.
 *
 * The defaults are fio 3.33's (`fio --cmdhelp=OPTION`); test_jobspec checks
 * the values they give, and the golden dumps show every one of them.
 */
#include <stddef.h>
#include <stdint.h>

#include "jobspec/jobspec_int.h"

static const jobspec_enum_val rw_values[] = {
    { "read", SB_JOB_READ },
    { "write", SB_JOB_WRITE },
    { "randread", SB_JOB_RANDREAD },
    { "randwrite", SB_JOB_RANDWRITE },
    { "rw", SB_JOB_RW },
    { "readwrite", SB_JOB_RW },
    { "randrw", SB_JOB_RANDRW },
    { NULL, 0 },
};

static const jobspec_enum_val engine_values[] = {
    { "sync", SB_JOB_ENGINE_SYNC },
    { "psync", SB_JOB_ENGINE_PSYNC },
    { "libaio", SB_JOB_ENGINE_LIBAIO },
    { "io_uring", SB_JOB_ENGINE_IO_URING },
    { NULL, 0 },
};

static const jobspec_enum_val kb_base_values[] = {
    { "1024", 1024 },
    { "1000", 1000 },
    { NULL, 0 },
};

#define F(field) offsetof(sb_job, field)
#define NOALIAS                                                                                    \
    {                                                                                              \
        NULL, NULL                                                                                 \
    }
#define U32MAX UINT32_MAX

/* The order is the order of --help and of the dump. */
const jobspec_option sb_jobspec_options[] = {
    { "name", NOALIAS, OT_STR, F(name), 0, OF_NAME_ARG, NULL, 0, 0, NULL, NULL,
      "name of the job (the section name in a job file)" },
    { "description", NOALIAS, OT_STR, F(description), 0, 0, NULL, 0, 0, NULL, NULL,
      "free text describing the job" },
    { "filename", NOALIAS, OT_STR, F(filename), 0, 0, NULL, 0, 0, NULL, NULL,
      "file or device to do I/O on (default: one named after the job)" },
    { "directory", NOALIAS, OT_STR, F(directory), 0, 0, NULL, 0, 0, NULL, NULL,
      "directory for the job's files" },
    { "kb_base", NOALIAS, OT_ENUM, F(kb_base), 0, OF_KB_BASE, "1024", 0, 0, kb_base_values, NULL,
      "1024: k/KB = 1024 and KiB = 1000 (fio's default); 1000: the reverse" },
    { "size", NOALIAS, OT_SIZE, F(size_bytes), F(size_percent), OF_PERCENT | OF_NONZERO, NULL, 1,
      UINT64_MAX, NULL, "bytes", "total bytes of I/O per job, or N% of the file or device" },
    { "filesize", NOALIAS, OT_SIZE, F(filesize_bytes), 0, OF_NONZERO, NULL, 1, UINT64_MAX, NULL,
      "bytes", "size of each file (default: size / nrfiles)" },
    { "offset",
      { "fileoffset", NULL },
      OT_SIZE,
      F(offset_bytes),
      0,
      0,
      "0",
      0,
      UINT64_MAX,
      NULL,
      "bytes",
      "start I/O at this byte offset of the file" },
    { "bs",
      { "blocksize", NULL },
      OT_BS,
      F(bs_bytes),
      0,
      OF_NONZERO,
      "4k",
      1,
      UINT32_MAX,
      NULL,
      "bytes",
      "block size, or read,write[,trim] block sizes" },
    { "rw",
      { "readwrite", NULL },
      OT_ENUM,
      F(rw),
      0,
      0,
      "read",
      0,
      0,
      rw_values,
      NULL,
      "I/O pattern" },
    { "rwmixread", NOALIAS, OT_UINT, F(rwmixread_pct), 0, 0, "50", 0, 100, NULL, "%",
      "percentage of reads in rw/randrw" },
    { "rwmixwrite", NOALIAS, OT_UINT, F(rwmixread_pct), 0, OF_INVERT, "50", 0, 100, NULL, "%",
      "percentage of writes in rw/randrw (sets rwmixread to 100 minus it)" },
    { "ioengine", NOALIAS, OT_ENUM, F(ioengine), 0, 0, "psync", 0, 0, engine_values, NULL,
      "how I/O is issued (availability is checked when the job runs)" },
    { "iodepth", NOALIAS, OT_UINT, F(iodepth), 0, 0, "1", 1, 65536, NULL, NULL,
      "I/Os kept in flight (asynchronous engines)" },
    { "numjobs", NOALIAS, OT_UINT, F(numjobs), 0, 0, "1", 1, 4096, NULL, NULL,
      "run this many copies of the job" },
    { "nrfiles",
      { "nr_files", NULL },
      OT_UINT,
      F(nrfiles),
      0,
      0,
      "1",
      1,
      65536,
      NULL,
      NULL,
      "spread the job over this many files" },
    { "loops", NOALIAS, OT_UINT, F(loops), 0, 0, "1", 1, U32MAX, NULL, NULL,
      "repeat the job this many times" },
    { "direct", NOALIAS, OT_BOOL, F(direct), 0, 0, "0", 0, 1, NULL, NULL,
      "1: O_DIRECT, bypass the page cache" },
    { "buffered", NOALIAS, OT_BOOL, F(direct), 0, OF_INVERT, "1", 0, 1, NULL, NULL,
      "1: through the page cache (the opposite of direct)" },
    { "invalidate", NOALIAS, OT_BOOL, F(invalidate), 0, 0, "1", 0, 1, NULL, NULL,
      "1: drop the file's cached pages before the job" },
    { "runtime",
      { "timeout", NULL },
      OT_TIME,
      F(runtime_us),
      0,
      0,
      "0",
      0,
      UINT64_MAX,
      NULL,
      "us",
      "stop after this long (no suffix: seconds; 0: no limit)" },
    { "time_based", NOALIAS, OT_BOOL, F(time_based), 0, OF_BARE_OK, "0", 0, 1, NULL, NULL,
      "run for the whole runtime, looping over the file" },
    { "ramp_time", NOALIAS, OT_TIME, F(ramp_time_us), 0, 0, "0", 0, UINT64_MAX, NULL, "us",
      "run this long before measuring (no suffix: seconds)" },
    { "group_reporting", NOALIAS, OT_BOOL, F(group_reporting), 0, OF_BARE_OK, "0", 0, 1, NULL, NULL,
      "report a group's jobs together" },
    { "stonewall",
      { "wait_for_previous", NULL },
      OT_BOOL,
      F(stonewall),
      0,
      OF_BARE_OK,
      "0",
      0,
      1,
      NULL,
      NULL,
      "wait for the earlier jobs to finish; starts a new group" },
    { "new_group", NOALIAS, OT_BOOL, F(new_group), 0, OF_BARE_OK, "0", 0, 1, NULL, NULL,
      "start a new reporting group" },
    { "randrepeat", NOALIAS, OT_BOOL, F(randrepeat), 0, 0, "1", 0, 1, NULL, NULL,
      "1: the same random offsets on every run" },
    { "randseed", NOALIAS, OT_U64, F(randseed), 0, 0, "0x89", 0, UINT64_MAX, NULL, NULL,
      "seed of the random offsets" },
    { "gtod_reduce", NOALIAS, OT_BOOL, F(gtod_reduce), 0, 0, "0", 0, 1, NULL, NULL,
      "accepted for fio compatibility; no effect" },
    { "fsync", NOALIAS, OT_UINT, F(fsync_every), 0, 0, "0", 0, U32MAX, NULL, "writes",
      "fsync after every N writes (0: never)" },
    { "fdatasync", NOALIAS, OT_UINT, F(fdatasync_every), 0, 0, "0", 0, U32MAX, NULL, "writes",
      "fdatasync after every N writes (0: never)" },
    { "end_fsync", NOALIAS, OT_BOOL, F(end_fsync), 0, 0, "0", 0, 1, NULL, NULL,
      "fsync the file when the job's writes are done" },
    { "thread", NOALIAS, OT_BOOL, F(thread), 0, OF_BARE_OK, "0", 0, 1, NULL, NULL,
      "accepted for fio compatibility; storbench always runs jobs as threads" },
};

#define N_OPTIONS (sizeof sb_jobspec_options / sizeof sb_jobspec_options[0])

_Static_assert(N_OPTIONS <= SB_JOBSPEC_MAX_OPTIONS, "raise SB_JOBSPEC_MAX_OPTIONS");

size_t sb_jobspec_option_count(void)
{
    return N_OPTIONS;
}

const char *sb_jobspec_option_name(size_t i)
{
    return sb_jobspec_options[i].name;
}

const char *sb_jobspec_option_alias(size_t i, size_t k)
{
    const jobspec_option *o = &sb_jobspec_options[i];
    return k < sizeof o->aliases / sizeof o->aliases[0] ? o->aliases[k] : NULL;
}

const char *sb_jobspec_option_word(size_t i, size_t k)
{
    static const char *const bool_words[] = { "0", "1" };
    const jobspec_option *o = &sb_jobspec_options[i];
    if (o->type == OT_BOOL)
        return k < sizeof bool_words / sizeof bool_words[0] ? bool_words[k] : NULL;
    if (o->type != OT_ENUM)
        return NULL;
    for (size_t j = 0; o->values[j].name; j++)
        if (j == k)
            return o->values[j].name;
    return NULL;
}

bool sb_jobspec_option_bare(size_t i)
{
    return (sb_jobspec_options[i].flags & OF_BARE_OK) != 0;
}
