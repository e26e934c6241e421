/*
 * cache_linux.c: making data cold before a read test.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "target/target.h"

sb_status sb_cache_drop_file(int fd, uint64_t off, uint64_t len, sb_error *err)
{
    /* Dirty pages cannot be dropped: flush first. A block device needs the
     * same, and fsync works on both. */
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS && errno != EBADF)
        return sb_error_set(err, SB_E_IO, errno, "fsync before dropping the cache");
    int e = posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
    if (e != 0)
        return sb_error_set(err, SB_E_IO, e, "posix_fadvise(DONTNEED)");
    return SB_OK;
}

sb_status sb_cache_drop_all(sb_error *err)
{
    sync();
    FILE *f = fopen("/proc/sys/vm/drop_caches", "we");
    if (!f)
        return sb_error_set(err, errno == EACCES || errno == EROFS ? SB_E_PERM : SB_E_IO, errno,
                            "cannot drop the page cache (/proc/sys/vm/drop_caches; needs root)");
    int ok = fputs("3\n", f) >= 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok)
        return sb_error_set(err, SB_E_PERM, errno, "writing /proc/sys/vm/drop_caches failed");
    return SB_OK;
}
