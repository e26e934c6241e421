/*
 * jobspec_options.c: what is done with the option table.
 *
 * The table itself, sb_jobspec_options[] in jobspec_table.c, is data: one
 * row per option with its name and aliases, type, sb_job field, default,
 * range, unit and help. This file gives it its behaviour: finding an option
 * by name or alias (and suggesting the nearest one for a typo), setting a
 * field of an sb_job from one value with the option's type and range,
 * filling a job with the defaults, the lines of --help, and the canonical
 * dump of a job. Messages are "FILE:LINE: ..." built here too.
 *
 * Sizes and times are read by jobspec_values.c; whole numbers and bs are
 * read here, because their reading depends on the row: a number is checked
 * against the option's range, and bs is "r,w,t" (a value not followed by a
 * comma also applies to the directions after it; an empty item keeps the
 * value before). fio reads "4k-16k" as "4k,16k" (read 4k, write 16k), not
 * as a range: followed, and warned.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobspec/jobspec_int.h"
#include "storbench/suggest.h"

/* Enum fields are set through unsigned pointers. */
_Static_assert(sizeof(sb_job_rw) == sizeof(unsigned), "enum size");
_Static_assert(sizeof(sb_job_engine) == sizeof(unsigned), "enum size");

bool sb_jobspec_option_is_kb_base(size_t i)
{
    return (sb_jobspec_options[i].flags & OF_KB_BASE) != 0;
}

bool sb_jobspec_option_numeric(size_t i)
{
    jobspec_opt_type t = sb_jobspec_options[i].type;
    return t == OT_SIZE || t == OT_BS || t == OT_UINT || t == OT_U64 || t == OT_TIME;
}

int sb_jobspec_find(const char *name)
{
    for (size_t i = 0; i < sb_jobspec_option_count(); i++) {
        const jobspec_option *o = &sb_jobspec_options[i];
        if (strcmp(o->name, name) == 0)
            return (int)i;
        for (size_t a = 0; a < 2 && o->aliases[a]; a++)
            if (strcmp(o->aliases[a], name) == 0)
                return (int)i;
    }
    return -1;
}

bool sb_jobspec_is_option(const char *name)
{
    return name && sb_jobspec_find(name) >= 0;
}

/* ---- messages ----------------------------------------------------------- */

/* Where pos is, as messages begin: the argument itself on a command line
 * ("--rw=raed"), "FILE" for the whole of it (line 0), else "FILE:LINE". */
static const char *where(const jobspec_pos *pos, char *buf, size_t len)
{
    if (pos->arg) /* clipped: a 4 KiB argument would drown the message */
        return sb_jobspec_clip(pos->arg, buf, len < 72 ? len : 72);
    if (pos->line == 0)
        snprintf(buf, len, "%s", pos->file);
    else
        snprintf(buf, len, "%s:%u", pos->file, pos->line);
    return buf;
}

void sb_jobspec_warn(jobspec_ctx *c, const jobspec_pos *pos, const char *fmt, ...)
{
    if (!c->opts || !c->opts->warn)
        return;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char w[PATH_MAX + 16];
    sb_sink_printf(c->opts->warn, "%s: warning: %s\n", where(pos, w, sizeof w), msg);
}

sb_status sb_jobspec_fail(sb_error *err, const jobspec_pos *pos, const char *fmt, ...)
{
    char msg[SB_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char w[PATH_MAX + 16];
    return sb_error_set(err, SB_E_INVALID, 0, "%s: %s", where(pos, w, sizeof w), msg);
}

sb_status sb_jobspec_nomem(sb_error *err)
{
    return sb_error_set(err, SB_E_NOMEM, 0, "out of memory while reading job options");
}

const char *sb_jobspec_clip(const char *s, char *buf, size_t len)
{
    size_t n = strlen(s);
    if (n < len) {
        memcpy(buf, s, n + 1);
    } else {
        memcpy(buf, s, len - 4);
        memcpy(buf + len - 4, "...", 4);
    }
    return buf;
}

/* ---- setting an option -------------------------------------------------- */

static void *field(sb_job *job, size_t off)
{
    return (char *)job + off;
}

static SB_MUST_CHECK sb_status parse_uint_value(const jobspec_option *o, const char *key,
                                                const char *v, const jobspec_pos *pos,
                                                uint64_t *out, sb_error *err)
{
    const char *p = v;
    bool overflow;
    char q[48];
    uint64_t n;
    if (*v == '-' && o->min == 0 && o->max == 1)
        return sb_jobspec_fail(err, pos, "%s=%s: use 0 or 1", key, sb_jobspec_clip(v, q, sizeof q));
    if (*v == '-')
        return sb_jobspec_fail(err, pos, "%s=%s: cannot be negative", key,
                               sb_jobspec_clip(v, q, sizeof q));
    if (!sb_jobspec_scan_uint(&p, &n, &overflow) || *p != '\0') {
        if (o->type == OT_BOOL)
            return sb_jobspec_fail(err, pos, "%s=%s: use 0 or 1", key,
                                   sb_jobspec_clip(v, q, sizeof q));
        return sb_jobspec_fail(err, pos, "%s=%s: %s", key, sb_jobspec_clip(v, q, sizeof q),
                               overflow ? "too big" : "not a whole number");
    }
    if (n < o->min || n > o->max)
        return sb_jobspec_fail(err, pos, "%s=%s: out of range %llu..%llu", key,
                               sb_jobspec_clip(v, q, sizeof q), (unsigned long long)o->min,
                               (unsigned long long)o->max);
    *out = n;
    return SB_OK;
}

static SB_MUST_CHECK sb_status set_bs(jobspec_ctx *c, const jobspec_option *o, const char *key,
                                      sb_job *job, const char *v, const jobspec_pos *pos,
                                      sb_error *err)
{
    uint64_t bs[SB_DIR_COUNT];
    memcpy(bs, field(job, o->off), sizeof bs);
    char q[48];
    if (v[0] == '-')
        return sb_jobspec_fail(err, pos, "%s=%s: a block size cannot be negative", key,
                               sb_jobspec_clip(v, q, sizeof q));
    char sep = strchr(v, ',') ? ',' : '-';
    if (sep == '-' && strchr(v, '-')) {
        char commas[64];
        snprintf(commas, sizeof commas, "%s", v);
        for (char *d = commas; (d = strchr(d, '-')) != NULL;)
            *d = ',';
        sb_jobspec_warn(c, pos,
                        "%s=%s is not a range: fio reads it as %s=%s (read, write, trim block "
                        "sizes), and so does storbench; fio's option for a range of sizes is "
                        "bsrange",
                        key, sb_jobspec_clip(v, q, sizeof q), key, commas);
    }
    const char *p = v;
    size_t dir = 0;
    for (;;) {
        const char *end = strchr(p, sep);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (dir >= SB_DIR_COUNT)
            return sb_jobspec_fail(err, pos, "%s=%s: at most %d values (read,write,trim)", key,
                                   sb_jobspec_clip(v, q, sizeof q), SB_DIR_COUNT);
        if (len > 0) {
            char item[64];
            if (len >= sizeof item)
                return sb_jobspec_fail(err, pos, "%s: value too long", key);
            memcpy(item, p, len);
            item[len] = '\0';
            char *dash = sep == ',' ? strchr(item, '-') : NULL;
            if (dash && dash != item) {
                sb_jobspec_warn(c, pos,
                                "%s: '%s' is not a range: fio uses only '%.*s' for this "
                                "direction; fio's option for a range of sizes is bsrange",
                                key, item, (int)(dash - item), item);
                *dash = '\0';
            }
            char why[200];
            uint64_t n;
            if (!sb_jobspec_parse_size(item, job->kb_base, &n, why, sizeof why))
                return sb_jobspec_fail(err, pos, "%s: %s", key, why);
            if (n < o->min || n > o->max)
                return sb_jobspec_fail(err, pos, "%s=%s: a block size must be 1 .. 4 GiB - 1", key,
                                       sb_jobspec_clip(v, q, sizeof q));
            sb_jobspec_warn_size(c, pos, key, item, n, job->kb_base);
            /* A value that is not followed by a separator applies to the
             * remaining directions too. */
            for (size_t d = dir; d < (end ? dir + 1 : SB_DIR_COUNT); d++)
                bs[d] = n;
        }
        if (!end)
            break;
        p = end + 1;
        dir++;
    }
    memcpy(field(job, o->off), bs, sizeof bs);
    return SB_OK;
}

static SB_MUST_CHECK sb_status set_size(jobspec_ctx *c, const jobspec_option *o, const char *key,
                                        sb_job *job, const char *v, const jobspec_pos *pos,
                                        sb_error *err)
{
    size_t n = strlen(v);
    char q[48];
    if ((o->flags & OF_PERCENT) && n > 1 && v[n - 1] == '%') {
        const char *p = v;
        uint64_t pct;
        bool overflow;
        if (!sb_jobspec_scan_uint(&p, &pct, &overflow) || *p != '%' || pct < 1 || pct > 100)
            return sb_jobspec_fail(err, pos, "%s=%s: a percentage must be 1%% .. 100%%", key,
                                   sb_jobspec_clip(v, q, sizeof q));
        *(unsigned *)field(job, o->pct_off) = (unsigned)pct;
        *(uint64_t *)field(job, o->off) = 0;
        return SB_OK;
    }
    char why[200];
    uint64_t bytes;
    if (!sb_jobspec_parse_size(v, job->kb_base, &bytes, why, sizeof why))
        return sb_jobspec_fail(err, pos, "%s: %s", key, why);
    if (bytes == 0 && (o->flags & OF_NONZERO))
        return sb_jobspec_fail(err, pos, "%s=%s: must be greater than zero", key,
                               sb_jobspec_clip(v, q, sizeof q));
    sb_jobspec_warn_size(c, pos, key, v, bytes, job->kb_base);
    *(uint64_t *)field(job, o->off) = bytes;
    if (o->flags & OF_PERCENT)
        *(unsigned *)field(job, o->pct_off) = 0;
    return SB_OK;
}

static SB_MUST_CHECK sb_status set_enum(const jobspec_option *o, const char *key, sb_job *job,
                                        const char *v, const jobspec_pos *pos, sb_error *err)
{
    for (const jobspec_enum_val *e = o->values; e->name; e++) {
        if (strcmp(e->name, v) == 0) {
            *(unsigned *)field(job, o->off) = e->value;
            return SB_OK;
        }
    }
    char list[200] = "";
    size_t used = 0;
    for (const jobspec_enum_val *e = o->values; e->name; e++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", e->name);
        if (w < 0 || (size_t)w >= sizeof list - used)
            break;
        used += (size_t)w;
    }
    sb_suggest near;
    sb_suggest_init(&near, v);
    for (const jobspec_enum_val *e = o->values; e->name; e++)
        sb_suggest_offer(&near, e->name);
    const char *n = sb_suggest_result(&near);
    char q[48];
    sb_jobspec_clip(v, q, sizeof q);
    if (n)
        return sb_jobspec_fail(err, pos, "unknown value '%s' for %s; did you mean '%s'? (%s)", q,
                               key, n, list);
    return sb_jobspec_fail(err, pos, "unknown value '%s' for %s (%s)", q, key, list);
}

sb_status sb_jobspec_set(jobspec_ctx *c, sb_job *job, size_t i, const char *val,
                         const jobspec_pos *pos, sb_error *err)
{
    const jobspec_option *o = &sb_jobspec_options[i];
    const char *key = o->name;
    if (!val) {
        if (o->type != OT_BOOL)
            return sb_jobspec_fail(err, pos, "option '%s' needs a value (%s=...)", key, key);
        if (!(o->flags & OF_BARE_OK) && !c->warned_bare_bool) {
            sb_jobspec_warn(c, pos,
                            "a bare '%s' means %s=1 here, but fio 3.33 refuses it (\"Option %s "
                            "requires an argument\"); write %s=1 to share this file with fio",
                            key, key, key, key);
            c->warned_bare_bool = true;
        }
        val = "1";
    }
    if (*val == '\0' && o->type != OT_STR)
        return sb_jobspec_fail(err, pos, "option '%s' has an empty value", key);

    switch (o->type) {
    case OT_STR: {
        if (*val == '\0')
            return sb_jobspec_fail(err, pos, "option '%s' has an empty value", key);
        char *dup = strdup(val);
        if (!dup)
            return sb_error_set(err, SB_E_NOMEM, 0, "%s:%u: out of memory", pos->file, pos->line);
        char **slot = field(job, o->off);
        free(*slot);
        *slot = dup;
        return SB_OK;
    }
    case OT_SIZE: return set_size(c, o, key, job, val, pos, err);
    case OT_BS: return set_bs(c, o, key, job, val, pos, err);
    case OT_TIME: {
        uint64_t us = 0;
        SB_TRY(sb_jobspec_parse_time(c, key, val, pos, &us, err));
        *(uint64_t *)field(job, o->off) = us;
        return SB_OK;
    }
    case OT_ENUM: return set_enum(o, key, job, val, pos, err);
    case OT_UINT:
    case OT_U64:
    case OT_BOOL: {
        uint64_t n = 0;
        SB_TRY(parse_uint_value(o, key, val, pos, &n, err));
        if (o->type == OT_U64)
            *(uint64_t *)field(job, o->off) = n;
        else if (o->type == OT_UINT)
            *(unsigned *)field(job, o->off) = (unsigned)((o->flags & OF_INVERT) ? o->max - n : n);
        else
            *(bool *)field(job, o->off) = (o->flags & OF_INVERT) ? n == 0 : n != 0;
        return SB_OK;
    }
    }
    return sb_jobspec_fail(err, pos, "option '%s': internal error (bad type)", key);
}

void sb_jobspec_defaults(sb_job *job)
{
    memset(job, 0, sizeof *job);
    job->kb_base = 1024;
    jobspec_ctx c = { 0 };
    jobspec_pos pos = { "<defaults>", 0, NULL };
    for (size_t i = 0; i < sb_jobspec_option_count(); i++) {
        if (!sb_jobspec_options[i].def || sb_jobspec_options[i].type == OT_STR)
            continue;
        /* The defaults are constants of this table; test_jobspec checks
         * every one of them, so a failure here cannot happen at run time
         * and would leave the field zero (no message is kept: err is NULL). */
        if (sb_jobspec_set(&c, job, i, sb_jobspec_options[i].def, &pos, NULL) != SB_OK)
            continue;
    }
}

/* ---- fio's options that storbench does not take ------------------------
 *
 * Every option name (and alias) of fio 3.x's options.c and of its sync,
 * libaio and io_uring engines that the table does not have, each between
 * spaces (it is only asked about a name the table lacks). A job file
 * written for fio may hold any of them. It is refused, since running
 * without an option that sets a rate, a think time, a verify pass or a
 * random distribution would measure another job. The message says it is
 * fio's, not a typo, and offers no near name of ours ('rate' is not a
 * misspelt 'rw'). test_jobspec checks that no name of the table is here. */
static const char fio_only[] =
    " allow_file_create allow_mounted_write allrandrepeat apptag apptag_mask atomic ba"
    " block_error_percentiles blockalign blocksize_range blocksize_unaligned bs_is_seq_rand"
    " bs_unaligned bsrange bssplit buffer_compress_chunk buffer_compress_percentage"
    " buffer_pattern bwavgtime cdb_len cgroup cgroup_nodelete cgroup_weight clat_percentiles"
    " clocksource cmd_type comm continue_on_error cpumask cpus_allowed cpus_allowed_policy"
    " create_fsync create_on_open create_only create_serialize data_placement dataplacement"
    " deac dedupe_global dedupe_mode dedupe_percentage dedupe_working_set_percentage"
    " disable_bw disable_bw_measurement disable_clat disable_lat disable_slat disk_util"
    " do_verify dp_scheme end_syncfs error_dump exec_postrun exec_prerun exit_what exitall"
    " exitall_on_error experimental_verify fadvise_hint fallocate fdp fdp_pli fdp_pli_select"
    " file_append file_service_type filename_format filetype fill_device fill_fs fixedbufs"
    " flow flow_id flow_sleep flow_watermark force_async fsync_on_close gid gpu_dev_id"
    " gtod_cpu hipri hipri_percentage hugepage ignore_error ignore_zone_limits io_limit"
    " io_size io_submit_mode iodepth_batch iodepth_batch_complete iodepth_batch_complete_max"
    " iodepth_batch_complete_min iodepth_batch_submit iodepth_low iomem iomem_align"
    " iopsavgtime ioscheduler job_max_open_zones job_start_clock_id lat_percentiles"
    " latency_percentile latency_run latency_target latency_window lockfile lockmem"
    " log_alternate_epoch log_alternate_epoch_clock_id log_avg_msec log_compression"
    " log_compression_cpus log_entries log_hist_coarseness log_hist_msec log_issue_time"
    " log_max_value log_offset log_prio log_store_compressed log_unix_epoch log_window_value"
    " max_latency max_open_zones md_per_io_size mem mem_align merge_blktrace_file"
    " merge_blktrace_iters merge_blktrace_scalars nice nonvectored norandommap nowait"
    " num_range numa_cpu_nodes numa_mem_policy number_ios offset_align offset_increment"
    " opendir openfiles overwrite per_job_logs percentage_random percentage_sequential"
    " percentile_list pi_act pi_chk plid_select plids pre_read prio prioclass priohint profile"
    " ramp_size random_distribution random_generator random_sequence_stride rate rate_cycle"
    " rate_ignore_thinktime rate_iops rate_iops_min rate_min rate_process ratecycle ratemin"
    " read_beyond_wp read_iolog read_iolog_chunked read_mode readfua recover_zbd_write_error"
    " refill_buffers registerfiles replay_align replay_no_stall replay_redirect replay_scale"
    " replay_skip replay_time_scale rw_sequencer rwmixcycle scramble_buffers serialize_overlap"
    " significant_figures slat_percentiles softrandommap spr_cs spr_num_regions spr_op"
    " sprandom sqthread_poll sqthread_poll_cpu ss ss_dur ss_interval ss_ramp startdelay stats"
    " steadystate steadystate_check_interval steadystate_duration steadystate_ramp_time sync"
    " sync_file_range thinkcycles thinktime thinktime_blocks thinktime_blocks_type"
    " thinktime_iotime thinktime_spin trim_backlog trim_backlog_batch trim_percentage"
    " trim_verify_zero uid uncached unified_rw_reporting unique_filename unit_base unlink"
    " unlink_each_loop userspace_reap verify verify_async verify_async_cpus verify_backlog"
    " verify_backlog_batch verify_bytchk verify_dump verify_fatal verify_header_seed"
    " verify_interval verify_mode verify_offset verify_only verify_pattern"
    " verify_pattern_interval verify_policy verify_state_load verify_state_save"
    " verify_write_sequence verifysort verifysort_nr wait_for write_barrier write_bw_log"
    " write_hint write_hist_log write_iolog write_iops_log write_lat_log write_mode"
    " write_zone_remainder writefua zero_buffers zone_reset_frequency zone_reset_threshold"
    " zonecapacity zonemode zonerange zonesize zoneskip"
    " ";

const char *sb_jobspec_fio_only(const char *name)
{
    char word[64];
    size_t len = strlen(name);
    if (len == 0 || len + 3 > sizeof word || strchr(name, ' '))
        return NULL;
    snprintf(word, sizeof word, " %s ", name);
    if (!strstr(fio_only, word))
        return NULL;
    if (strcmp(name, "write_bw_log") == 0 || strcmp(name, "write_iops_log") == 0 ||
        strcmp(name, "bwavgtime") == 0 || strcmp(name, "iopsavgtime") == 0)
        return "; storbench keeps each job's bandwidth samples (500 ms) in the results archive: "
               "storbench results show ID -f json";
    if (strstr(name, "verify"))
        return "; storbench verify checks that written data reads back";
    return "";
}

/* ---- suggestions -------------------------------------------------------- */

const char *sb_jobspec_suggest(const char *name)
{
    sb_suggest s;
    sb_suggest_init(&s, name);
    for (size_t i = 0; i < sb_jobspec_option_count(); i++) {
        const jobspec_option *o = &sb_jobspec_options[i];
        sb_suggest_offer(&s, o->name);
        sb_suggest_offer(&s, o->aliases[0]);
        sb_suggest_offer(&s, o->aliases[1]);
    }
    return sb_suggest_result(&s);
}

/* ---- help and dump ------------------------------------------------------ */

static const char *type_word(const jobspec_option *o)
{
    switch (o->type) {
    case OT_STR: return "TEXT";
    case OT_SIZE: return (o->flags & OF_PERCENT) ? "SIZE|N%" : "SIZE";
    case OT_BS: return "SIZE[,SIZE[,SIZE]]";
    case OT_UINT:
    case OT_U64: return "N";
    case OT_BOOL: return (o->flags & OF_BARE_OK) ? "[0|1]" : "0|1";
    case OT_TIME: return "TIME";
    case OT_ENUM: return "WORD";
    }
    return "?";
}

void sb_jobspec_help(sb_sink *out)
{
    sb_sink_puts(out, "Job options (job files: key=value; command line: --key=value):\n");
    for (size_t i = 0; i < sb_jobspec_option_count(); i++) {
        const jobspec_option *o = &sb_jobspec_options[i];
        char head[64];
        snprintf(head, sizeof head, "%s=%s", o->name, type_word(o));
        sb_sink_printf(out, "  %-28s %s\n", head, o->help);
        char extra[256] = "";
        size_t used = 0;
#define ADD(...)                                                                                   \
    do {                                                                                           \
        int w_ = snprintf(extra + used, sizeof extra - used, __VA_ARGS__);                         \
        if (w_ > 0 && (size_t)w_ < sizeof extra - used)                                            \
            used += (size_t)w_;                                                                    \
    } while (0)
        if (o->def)
            ADD("default %s", o->def);
        if (o->type == OT_UINT && o->max != UINT32_MAX)
            ADD("%srange %llu..%llu", used ? "; " : "", (unsigned long long)o->min,
                (unsigned long long)o->max);
        if (o->values) {
            ADD("%svalues", used ? "; " : "");
            for (const jobspec_enum_val *e = o->values; e->name; e++)
                ADD("%s%s", e == o->values ? " " : "|", e->name);
        }
        if (o->aliases[0])
            ADD("%salias %s", used ? "; " : "", o->aliases[0]);
#undef ADD
        if (used)
            sb_sink_printf(out, "  %-28s (%s)\n", "", extra);
    }
    sb_sink_puts(out, "Sizes: 4k = 4096 (fio's kb_base=1024: KiB means 1000). Times: us, ms, s, "
                      "m, h, d; no unit means seconds.\n");
}

static const char *enum_name(const jobspec_option *o, unsigned v)
{
    for (const jobspec_enum_val *e = o->values; e->name; e++)
        if (e->value == v)
            return e->name;
    return "?";
}

const char *sb_jobspec_rw_name(sb_job_rw rw)
{
    return enum_name(&sb_jobspec_options[sb_jobspec_find("rw")], rw);
}

const char *sb_jobspec_engine_name(sb_job_engine engine)
{
    return enum_name(&sb_jobspec_options[sb_jobspec_find("ioengine")], engine);
}

static void format_value(const jobspec_option *o, const sb_job *job, char *buf, size_t len)
{
    const char *f = (const char *)job + o->off;
    switch (o->type) {
    case OT_STR: {
        const char *s = *(char *const *)(const void *)f;
        snprintf(buf, len, "%s", s ? s : "");
        return;
    }
    case OT_SIZE: {
        unsigned pct = (o->flags & OF_PERCENT)
                           ? *(const unsigned *)(const void *)((const char *)job + o->pct_off)
                           : 0;
        if (pct)
            snprintf(buf, len, "%u%%", pct);
        else
            snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)(const void *)f);
        return;
    }
    case OT_BS: {
        const uint64_t *bs = (const uint64_t *)(const void *)f;
        snprintf(buf, len, "%llu,%llu,%llu", (unsigned long long)bs[0], (unsigned long long)bs[1],
                 (unsigned long long)bs[2]);
        return;
    }
    case OT_TIME:
    case OT_U64:
        snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)(const void *)f);
        return;
    case OT_UINT: {
        unsigned v = *(const unsigned *)(const void *)f;
        if (o->flags & OF_INVERT)
            v = (unsigned)o->max - v;
        snprintf(buf, len, "%u", v);
        return;
    }
    case OT_BOOL: {
        bool b = *(const bool *)(const void *)f;
        if (o->flags & OF_INVERT)
            b = !b;
        snprintf(buf, len, "%d", b ? 1 : 0);
        return;
    }
    case OT_ENUM:
        snprintf(buf, len, "%s", enum_name(o, *(const unsigned *)(const void *)f));
        return;
    }
}

bool sb_jobspec_format_option(const sb_job *job, const char *name, char *buf, size_t len)
{
    int i = sb_jobspec_find(name);
    if (i < 0)
        return false;
    format_value(&sb_jobspec_options[i], job, buf, len);
    return true;
}

size_t sb_jobspec_changed_options(const sb_job *job, sb_kvs_fn fn, void *ctx)
{
    sb_job def;
    sb_jobspec_defaults(&def);
    def.kb_base = job->kb_base;
    size_t n = 0;
    for (size_t i = 0; i < sb_jobspec_option_count(); i++) {
        const jobspec_option *o = &sb_jobspec_options[i];
        char val[256], dval[256];
        format_value(o, job, val, sizeof val);
        format_value(o, &def, dval, sizeof dval);
        if (strcmp(val, dval) == 0)
            continue;
        n++;
        if (fn)
            fn(ctx, o->name, val);
    }
    return n;
}

void sb_jobspec_dump(const sb_joblist *list, sb_sink *out)
{
    for (size_t j = 0; j < list->count; j++) {
        const sb_job *job = &list->jobs[j];
        sb_sink_printf(out, "[%s] %s:%u group_id=%u barrier=%u\n", job->name, job->file, job->line,
                       job->group_id, job->barrier);
        for (size_t i = 0; i < sb_jobspec_option_count(); i++) {
            const jobspec_option *o = &sb_jobspec_options[i];
            char val[256];
            format_value(o, job, val, sizeof val);
            sb_sink_printf(out, "  %s=%s%s%s\n", o->name, val, o->unit ? " " : "",
                           o->unit ? o->unit : "");
        }
    }
}
