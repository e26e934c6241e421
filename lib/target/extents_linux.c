/*
 * extents_linux.c: where a file's bytes lie on its filesystem's device,
 * from the FIEMAP ioctl (target.h sb_file_physical).
 *
 * FIEMAP returns the extents that overlap a logical range, each with its
 * logical and physical byte offset and length. The range is asked for in
 * batches of BATCH extents until it is covered; FIEMAP_FLAG_SYNC first
 * writes back what is dirty, so that delayed allocation has settled and
 * every extent has its place. An extent whose physical offset means
 * nothing as a device offset (not known yet, delayed, compressed, inline
 * in metadata, a tail packed with others) makes the answer unknown.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "target/target.h"

#define BATCH 32u

/* The flags under which fe_physical is no device offset. */
#define NOT_PLACED                                                                                 \
    (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_ENCODED |                      \
     FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_DATA_TAIL | FIEMAP_EXTENT_NOT_ALIGNED)

sb_status sb_file_physical(int fd, uint64_t off, uint64_t len, uint64_t *phys_bytes,
                           bool *contiguous, sb_error *err)
{
    *phys_bytes = 0;
    *contiguous = false;
    if (len == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "FIEMAP: an empty range");
    struct fiemap *fm = calloc(1, sizeof *fm + BATCH * sizeof(struct fiemap_extent));
    if (!fm)
        return sb_error_nomem(err, "for FIEMAP's extents");
    sb_status st = SB_OK;
    uint64_t pos = off, end = off + len, next_phys = 0;
    bool first = true, contig = true;
    uint32_t flags = FIEMAP_FLAG_SYNC;
    while (pos < end && st == SB_OK) {
        memset(fm, 0, sizeof *fm);
        fm->fm_start = pos;
        fm->fm_length = end - pos;
        fm->fm_flags = flags;
        fm->fm_extent_count = BATCH;
        flags = 0; /* one write-back is enough */
        if (ioctl(fd, FS_IOC_FIEMAP, fm) != 0) {
            int e = errno;
            st = sb_error_set(
                err, e == EOPNOTSUPP || e == ENOTTY ? SB_E_UNSUPPORTED : sb_status_of_errno(e), e,
                "FIEMAP");
            break;
        }
        if (fm->fm_mapped_extents == 0) {
            st = sb_error_set(err, SB_E_UNSUPPORTED, 0,
                              "FIEMAP: byte %" PRIu64 " of the file has no place on the device "
                              "(a hole)",
                              pos);
            break;
        }
        for (uint32_t i = 0; i < fm->fm_mapped_extents && pos < end; i++) {
            const struct fiemap_extent *x = &fm->fm_extents[i];
            if (x->fe_flags & NOT_PLACED) {
                st = sb_error_set(err, SB_E_UNSUPPORTED, 0,
                                  "FIEMAP: the extent at byte %" PRIu64
                                  " has no known place on the device (flags 0x%x)",
                                  (uint64_t)x->fe_logical, (unsigned)x->fe_flags);
                break;
            }
            if (x->fe_logical > pos) {
                st = sb_error_set(err, SB_E_UNSUPPORTED, 0,
                                  "FIEMAP: bytes %" PRIu64 "..%" PRIu64
                                  " of the file have no place on the device (a hole)",
                                  pos, (uint64_t)x->fe_logical);
                break;
            }
            if (x->fe_logical + x->fe_length <= pos)
                continue;
            uint64_t phys = x->fe_physical + (pos - x->fe_logical);
            if (first)
                *phys_bytes = phys;
            else if (phys != next_phys)
                contig = false;
            first = false;
            uint64_t xend = x->fe_logical + x->fe_length;
            next_phys = phys + ((xend < end ? xend : end) - pos);
            pos = xend < end ? xend : end;
            if ((x->fe_flags & FIEMAP_EXTENT_LAST) && pos < end) {
                st = sb_error_set(err, SB_E_UNSUPPORTED, 0,
                                  "FIEMAP: the file ends at byte %" PRIu64 ", before %" PRIu64, pos,
                                  end);
                break;
            }
        }
    }
    free(fm);
    if (st == SB_OK)
        *contiguous = contig;
    return st;
}
