/*
 * image_src.c: an image file as a stream of the image's bytes (image.h).
 *
 * libarchive does the recognising and the decoding. Its input is our own
 * read and seek callbacks on the file's descriptor, for three reasons: the
 * offset of the last read is the progress of a file whose image size is
 * unknown; an I/O error keeps its errno, which libarchive's message alone
 * would lose; and the file having hit its end tells a truncated stream
 * from a corrupt one, whatever words the decoder chose. With a seek
 * callback, libarchive reads a zip through its central directory (the
 * "seekable" zip reader), which is where the members' sizes and
 * encryption are stated; a zip is opened twice, once to count its members
 * (which only walks the directory) and once to read the one.
 *
 * gzip is the exception: libarchive's gzip reader checks neither the CRC32
 * nor the length in a member's trailer, so a flipped bit in a stored
 * (incompressible) deflate block would pass as image. libarchive still
 * recognises it; zlib then decodes it here (inflate with gzip wrapping,
 * which verifies both), member after member as gzip(1) does.
 *
 * The sizes libarchive cannot know without decoding everything come from
 * the formats' own indexes, read here before libarchive starts: an xz
 * file's index at its end (liblzma), a zstd file's frame headers (libzstd).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <lzma.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_findDecompressedSize */
#include <zlib.h>
#include <zstd.h>

#include "common/dynlib.h"
#include "image/image.h"

/* libarchive's functions, called through a table that load_libarchive
 * fills when the first image is opened, not when storbench starts
 * (common/dynlib.h says why); the headers above give every entry its type.
 * The soname has been libarchive.so.13 since libarchive 3.0. */
#define LIBARCHIVE "libarchive.so.13"
#define LIBARCHIVE_FUNCS(X)                                                                        \
    X(archive_entry_filetype)                                                                      \
    X(archive_entry_is_encrypted)                                                                  \
    X(archive_entry_pathname)                                                                      \
    X(archive_entry_size)                                                                          \
    X(archive_entry_size_is_set)                                                                   \
    X(archive_errno)                                                                               \
    X(archive_error_string)                                                                        \
    X(archive_filter_code)                                                                         \
    X(archive_filter_count)                                                                        \
    X(archive_format)                                                                              \
    X(archive_read_data)                                                                           \
    X(archive_read_free)                                                                           \
    X(archive_read_new)                                                                            \
    X(archive_read_next_header)                                                                    \
    X(archive_read_open1)                                                                          \
    X(archive_read_set_callback_data)                                                              \
    X(archive_read_set_read_callback)                                                              \
    X(archive_read_set_seek_callback)                                                              \
    X(archive_read_support_filter_bzip2)                                                           \
    X(archive_read_support_filter_compress)                                                        \
    X(archive_read_support_filter_gzip)                                                            \
    X(archive_read_support_filter_lz4)                                                             \
    X(archive_read_support_filter_lzip)                                                            \
    X(archive_read_support_filter_lzma)                                                            \
    X(archive_read_support_filter_xz)                                                              \
    X(archive_read_support_filter_zstd)                                                            \
    X(archive_read_support_format_raw)                                                             \
    X(archive_read_support_format_zip)                                                             \
    X(archive_set_error)

static struct {
#define MEMBER(f) __typeof__(f) *f;
    LIBARCHIVE_FUNCS(MEMBER)
#undef MEMBER
} sb_ar;

/* Opens libarchive and fills sb_ar, once per process. */
static SB_MUST_CHECK sb_status load_libarchive(sb_error *err)
{
    static bool loaded;
#define FN(f) { #f, &sb_ar.f, sizeof sb_ar.f },
    static const sb_dynlib_fn fns[] = { LIBARCHIVE_FUNCS(FN) };
#undef FN
    return sb_dynlib_load(LIBARCHIVE, "reading an image", fns, sizeof fns / sizeof fns[0], &loaded,
                          err);
}

/* The read callback's buffer (what libarchive decodes from at a time) and
 * the look-ahead decoded at open to refuse an empty image. liblzma's memory
 * limit for an xz index: a file with so many blocks that its index needs
 * more is read without a known size. */
enum {
    SRC_READ_BYTES = 1 << 20,
    SRC_PEEK_BYTES = 64 << 10,
};
#define SRC_XZ_INDEX_MEMLIMIT ((uint64_t)256 << 20)

struct sb_image_src {
    char *path;
    char *member; /* a zip's member, else NULL */
    const char *compression;
    int fd;
    struct archive *ar;
    z_stream *gz;        /* gzip: zlib decodes, not libarchive (above) */
    bool gz_member_done; /* a gzip member ended: another may follow */
    const char *gz_msg;  /* zlib's message of a decoding error */
    unsigned char *rbuf; /* SRC_READ_BYTES, the read callback's */
    uint64_t file_bytes;
    uint64_t file_pos; /* offset after the last read or seek */
    bool file_eof;     /* the read callback has returned end of file */
    int io_errno;      /* the read callback's failed read(2), else 0 */
    uint64_t io_offset;
    uint64_t size; /* the image's size when size_known */
    bool size_known;
    uint64_t done; /* image bytes delivered so far */
    bool at_end;
    unsigned char *peek; /* decoded at open, not yet delivered */
    size_t peek_len, peek_off;
    sb_error failed; /* status SB_OK until a read fails; then every read */
};

/* ---- the callbacks ---------------------------------------------------- */

/* The next bytes of the file into s->rbuf: their count, 0 at its end, -1
 * with s->io_errno on an error. */
static ssize_t src_read_file(sb_image_src *s)
{
    ssize_t n;
    do
        n = read(s->fd, s->rbuf, SRC_READ_BYTES);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        s->io_errno = errno;
        s->io_offset = s->file_pos;
        return -1;
    }
    if (n == 0)
        s->file_eof = true;
    s->file_pos += (uint64_t)n;
    return n;
}

static la_ssize_t src_read_cb(struct archive *a, void *data, const void **buf)
{
    sb_image_src *s = data;
    ssize_t n = src_read_file(s);
    if (n < 0) {
        sb_ar.archive_set_error(a, s->io_errno, "read failed");
        return -1;
    }
    *buf = s->rbuf;
    return n;
}

static la_int64_t src_seek_cb(struct archive *a, void *data, la_int64_t offset, int whence)
{
    sb_image_src *s = data;
    off_t pos = lseek(s->fd, (off_t)offset, whence);
    if (pos < 0) {
        sb_ar.archive_set_error(a, errno, "seek failed");
        return ARCHIVE_FATAL;
    }
    s->file_pos = (uint64_t)pos;
    s->file_eof = false;
    return pos;
}

/* ---- sizes from the formats' indexes ---------------------------------- */

/* An xz file's uncompressed size from its index (all streams), or false. */
static bool xz_index_size(int fd, uint64_t file_bytes, uint64_t *size)
{
    lzma_stream strm = LZMA_STREAM_INIT;
    lzma_index *idx = NULL;
    bool ok = false;
    unsigned char *buf = malloc(SRC_PEEK_BYTES);
    if (!buf)
        return false;
    if (lzma_file_info_decoder(&strm, &idx, SRC_XZ_INDEX_MEMLIMIT, file_bytes) != LZMA_OK)
        goto out;
    uint64_t off = 0;
    for (;;) {
        if (strm.avail_in == 0) {
            ssize_t n;
            do
                n = pread(fd, buf, SRC_PEEK_BYTES, (off_t)off);
            while (n < 0 && errno == EINTR);
            if (n <= 0)
                goto out; /* the index wanted bytes the file does not have */
            strm.next_in = buf;
            strm.avail_in = (size_t)n;
            off += (uint64_t)n;
        }
        lzma_ret r = lzma_code(&strm, LZMA_RUN);
        if (r == LZMA_STREAM_END)
            break;
        if (r == LZMA_SEEK_NEEDED) {
            off = strm.seek_pos;
            strm.avail_in = 0;
        } else if (r != LZMA_OK) {
            goto out;
        }
    }
    *size = lzma_index_uncompressed_size(idx);
    ok = true;
out:
    if (idx)
        lzma_index_end(idx, NULL);
    lzma_end(&strm);
    free(buf);
    return ok;
}

/* A zstd file's content size when every frame states it, or false. */
static bool zstd_frames_size(int fd, uint64_t file_bytes, uint64_t *size)
{
    if (file_bytes > SIZE_MAX)
        return false;
    void *map = mmap(NULL, (size_t)file_bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED)
        return false; /* no address space for it (32-bit): unknown */
    unsigned long long n = ZSTD_findDecompressedSize(map, (size_t)file_bytes);
    munmap(map, (size_t)file_bytes);
    if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR)
        return false;
    *size = n;
    return true;
}

/* ---- opening ---------------------------------------------------------- */

static const char *filter_name(int code)
{
    switch (code) {
    case ARCHIVE_FILTER_NONE: return "none";
    case ARCHIVE_FILTER_GZIP: return "gzip";
    case ARCHIVE_FILTER_XZ: return "xz";
    case ARCHIVE_FILTER_ZSTD: return "zstd";
    case ARCHIVE_FILTER_BZIP2: return "bzip2";
    case ARCHIVE_FILTER_LZMA: return "lzma";
    case ARCHIVE_FILTER_LZIP: return "lzip";
    case ARCHIVE_FILTER_LZ4: return "lz4";
    case ARCHIVE_FILTER_COMPRESS: return "compress";
    default: return "unknown";
    }
}

static const char *kind_name(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/* What libarchive said, for a message. */
static const char *ar_msg(struct archive *a)
{
    const char *m = sb_ar.archive_error_string(a);
    return m && *m ? m : "no detail given";
}

/* A new libarchive reader on s->fd from offset 0, with the formats and
 * filters of image.h, in s->ar. */
static SB_MUST_CHECK sb_status src_archive_open(sb_image_src *s, sb_error *err)
{
    if (lseek(s->fd, 0, SEEK_SET) < 0)
        return sb_error_sys(err, errno, "cannot read '%s'", s->path);
    SB_TRY(load_libarchive(err));
    s->file_pos = 0;
    s->file_eof = false;
    s->io_errno = 0;
    struct archive *a = sb_ar.archive_read_new();
    if (!a)
        return sb_error_nomem(err, "starting libarchive");
    s->ar = a;
    int r = ARCHIVE_OK;
    int (*const enable[])(struct archive *) = {
        sb_ar.archive_read_support_format_raw,  sb_ar.archive_read_support_format_zip,
        sb_ar.archive_read_support_filter_gzip, sb_ar.archive_read_support_filter_bzip2,
        sb_ar.archive_read_support_filter_xz,   sb_ar.archive_read_support_filter_lzma,
        sb_ar.archive_read_support_filter_lzip, sb_ar.archive_read_support_filter_zstd,
        sb_ar.archive_read_support_filter_lz4,  sb_ar.archive_read_support_filter_compress,
    };
    for (size_t i = 0; i < sizeof enable / sizeof enable[0] && r == ARCHIVE_OK; i++)
        r = enable[i](a);
    if (r == ARCHIVE_OK)
        r = sb_ar.archive_read_set_callback_data(a, s);
    if (r == ARCHIVE_OK)
        r = sb_ar.archive_read_set_read_callback(a, src_read_cb);
    if (r == ARCHIVE_OK)
        r = sb_ar.archive_read_set_seek_callback(a, src_seek_cb);
    if (r == ARCHIVE_OK)
        r = sb_ar.archive_read_open1(a);
    if (r != ARCHIVE_OK) {
        if (s->io_errno)
            return sb_error_sys_at(err, s->io_errno, (int64_t)s->io_offset,
                                   "cannot read '%s' at offset %llu", s->path,
                                   (unsigned long long)s->io_offset);
        /* The raw format takes any byte but needs one: a compressed
         * stream that decodes to nothing is "no format" (EILSEQ, the
         * errno libarchive gives a format error) to libarchive. */
        int n = sb_ar.archive_filter_count(a);
        int code = n >= 2 ? sb_ar.archive_filter_code(a, n - 2) : ARCHIVE_FILTER_NONE;
        if (code != ARCHIVE_FILTER_NONE && sb_ar.archive_errno(a) == EILSEQ)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "'%s' holds an empty image: its %s data decompresses to 0 bytes",
                                s->path, filter_name(code));
        return sb_error_set(err, SB_E_IO, 0, "'%s': libarchive cannot start: %s", s->path,
                            ar_msg(a));
    }
    return SB_OK;
}

static void src_archive_close(sb_image_src *s)
{
    if (s->ar)
        sb_ar.archive_read_free(s->ar);
    s->ar = NULL;
}

/* The error of a failed archive_read_next_header at open. */
static sb_status header_failed(sb_image_src *s, sb_error *err)
{
    if (s->io_errno)
        return sb_error_sys_at(err, s->io_errno, (int64_t)s->io_offset,
                               "cannot read '%s' at offset %llu", s->path,
                               (unsigned long long)s->io_offset);
    if (s->file_eof)
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' is truncated: %s", s->path, ar_msg(s->ar));
    return sb_error_set(err, SB_E_INVALID, 0, "'%s' is corrupt: %s", s->path, ar_msg(s->ar));
}

/* A zip: counts its members (not directories), then opens the archive
 * again positioned at the one to read, with its name and size. */
static SB_MUST_CHECK sb_status src_open_zip(sb_image_src *s, struct archive_entry *e, sb_error *err)
{
    uint64_t files = 0;
    size_t index = 0, at = 0;
    int r = ARCHIVE_OK;
    for (; r == ARCHIVE_OK || r == ARCHIVE_WARN; at++) {
        if (sb_ar.archive_entry_filetype(e) != AE_IFDIR && files++ == 0)
            index = at;
        r = sb_ar.archive_read_next_header(s->ar, &e);
    }
    if (r != ARCHIVE_EOF)
        return header_failed(s, err);
    if (files != 1)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' holds %s%.0llu file%s: storbench image takes a zip of one image",
                            s->path, files ? "" : "no", (unsigned long long)files,
                            files == 1 ? "" : "s");
    src_archive_close(s);
    SB_TRY(src_archive_open(s, err));
    for (size_t i = 0; i <= index; i++) {
        r = sb_ar.archive_read_next_header(s->ar, &e);
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
            return header_failed(s, err);
    }
    const char *name = sb_ar.archive_entry_pathname(e);
    s->member = strdup(name ? name : "");
    if (!s->member)
        return sb_error_nomem(err, NULL);
    if (sb_ar.archive_entry_filetype(e) != AE_IFREG)
        return sb_error_set(
            err, SB_E_INVALID, 0, "'%s': its member '%s' is %s, not a file", s->path, s->member,
            sb_ar.archive_entry_filetype(e) == AE_IFLNK ? "a symbolic link" : "a special file");
    if (sb_ar.archive_entry_is_encrypted(e))
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s': its member '%s' is encrypted (storbench image reads "
                            "unencrypted zips)",
                            s->path, s->member);
    if (sb_ar.archive_entry_size_is_set(e)) {
        if (sb_ar.archive_entry_size(e) == 0)
            return sb_error_set(err, SB_E_INVALID, 0, "'%s': its member '%s' is empty (0 bytes)",
                                s->path, s->member);
        s->size = (uint64_t)sb_ar.archive_entry_size(e);
        s->size_known = true;
    }
    return SB_OK;
}

static SB_MUST_CHECK sb_status src_fill(sb_image_src *s, unsigned char *buf, size_t len,
                                        size_t *got, sb_error *err);
static SB_MUST_CHECK sb_status gz_start(sb_image_src *s, sb_error *err);

sb_status sb_image_src_open(const char *path, sb_image_src **out, sb_error *err)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return sb_error_set(err, SB_E_NOTFOUND, 0, "'%s' does not exist", path);
        return sb_error_sys(err, errno, "cannot examine '%s'", path);
    }
    if (!S_ISREG(st.st_mode))
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' is %s, not an image file", path,
                            kind_name(st.st_mode));
    sb_image_src *s = calloc(1, sizeof *s);
    if (!s)
        return sb_error_nomem(err, NULL);
    s->fd = -1;
    sb_status st_ = SB_OK;
    s->path = strdup(path);
    s->rbuf = malloc(SRC_READ_BYTES);
    s->peek = malloc(SRC_PEEK_BYTES);
    if (!s->path || !s->rbuf || !s->peek) {
        st_ = sb_error_nomem(err, NULL);
        goto fail;
    }
    /* O_NONBLOCK: were a FIFO put in the file's place since stat, opening
     * it would wait for a writer. A regular file ignores the flag. */
    s->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (s->fd < 0) {
        st_ = sb_error_sys(err, errno, "cannot open '%s'", path);
        goto fail;
    }
    if (fstat(s->fd, &st) != 0) {
        st_ = sb_error_sys(err, errno, "cannot examine '%s'", path);
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        st_ = sb_error_set(err, SB_E_INVALID, 0, "'%s' is %s, not an image file", path,
                           kind_name(st.st_mode));
        goto fail;
    }
    if (st.st_size == 0) {
        st_ = sb_error_set(err, SB_E_INVALID, 0, "'%s' is empty (0 bytes)", path);
        goto fail;
    }
    s->file_bytes = (uint64_t)st.st_size;

    SB_TRY_GOTO(st_, src_archive_open(s, err), fail);
    struct archive_entry *e;
    int r = sb_ar.archive_read_next_header(s->ar, &e);
    bool zip = (sb_ar.archive_format(s->ar) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ZIP;
    if (zip && r == ARCHIVE_EOF) {
        st_ = sb_error_set(err, SB_E_INVALID, 0,
                           "'%s' holds no file: storbench image takes a zip of one image", path);
        goto fail;
    }
    int code = sb_ar.archive_filter_count(s->ar) >= 2
                   ? sb_ar.archive_filter_code(s->ar, sb_ar.archive_filter_count(s->ar) - 2)
                   : ARCHIVE_FILTER_NONE;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
        st_ = header_failed(s, err);
        goto fail;
    }
    if (zip) {
        s->compression = "zip";
        SB_TRY_GOTO(st_, src_open_zip(s, e, err), fail);
    } else {
        s->compression = filter_name(code);
        if (code == ARCHIVE_FILTER_NONE) {
            s->size = s->file_bytes;
            s->size_known = true;
        } else if (code == ARCHIVE_FILTER_XZ) {
            s->size_known = xz_index_size(s->fd, s->file_bytes, &s->size);
        } else if (code == ARCHIVE_FILTER_ZSTD) {
            s->size_known = zstd_frames_size(s->fd, s->file_bytes, &s->size);
        } else if (code == ARCHIVE_FILTER_GZIP) {
            SB_TRY_GOTO(st_, gz_start(s, err), fail);
        }
    }

    /* The first bytes: an image that decodes to nothing is refused now;
     * a decoding error is kept for the first read. */
    size_t got = 0;
    sb_error peek_err;
    sb_error_clear(&peek_err);
    if (src_fill(s, s->peek, SRC_PEEK_BYTES, &got, &peek_err) != SB_OK) {
        s->failed = peek_err;
    } else if (got == 0 && !s->member) {
        st_ = sb_error_set(err, SB_E_INVALID, 0,
                           "'%s' holds an empty image: its %s data decompresses to 0 bytes", path,
                           s->compression);
        goto fail;
    }
    s->peek_len = got;
    *out = s;
    return SB_OK;
fail:
    sb_image_src_close(s);
    return st_;
}

/* ---- reading ---------------------------------------------------------- */

/* What went wrong in archive_read_data after done bytes of image. */
static sb_status data_failed(sb_image_src *s, uint64_t done, sb_error *err)
{
    if (s->io_errno)
        return sb_error_sys_at(err, s->io_errno, (int64_t)s->io_offset,
                               "cannot read '%s' at offset %llu", s->path,
                               (unsigned long long)s->io_offset);
    const char *m = s->gz ? s->gz_msg : ar_msg(s->ar);
    /* The file ended under the decoder (or the decoder says so): cut short,
     * not damaged. A decoder that checks a trailer it could not read may
     * call that a bad checksum; the file's end decides. */
    if (s->file_eof || strstr(m, "runcated")) {
        if (s->member)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "'%s' is truncated: the zip member '%s' ends after %llu bytes of "
                                "image",
                                s->path, s->member, (unsigned long long)done);
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is truncated: the %s data ends after %llu bytes of image",
                            s->path, s->compression, (unsigned long long)done);
    }
    if (s->member)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s': the zip member '%s' is corrupt after %llu bytes of image (%s)",
                            s->path, s->member, (unsigned long long)done, m);
    return sb_error_set(err, SB_E_INVALID, 0,
                        "'%s': the %s data is corrupt after %llu bytes of image (%s)", s->path,
                        s->compression, (unsigned long long)done, m);
}

/* The end of the image after done bytes: checked against a known size. */
static SB_MUST_CHECK sb_status end_check(sb_image_src *s, uint64_t done, sb_error *err)
{
    if (!s->size_known || done == s->size)
        return SB_OK;
    if (s->member)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s': the zip member '%s' is corrupt: it holds %llu bytes, its "
                            "header says %llu",
                            s->path, s->member, (unsigned long long)done,
                            (unsigned long long)s->size);
    if (done > s->size)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s': the %s data is corrupt: it holds more than the %llu bytes its "
                            "index says",
                            s->path, s->compression, (unsigned long long)s->size);
    if (!strcmp(s->compression, "none"))
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is truncated: it ended after %llu of its %llu bytes while it "
                            "was read",
                            s->path, (unsigned long long)done, (unsigned long long)s->size);
    return sb_error_set(err, SB_E_INVALID, 0,
                        "'%s' is truncated: the %s data ends after %llu bytes of image (its "
                        "index says %llu)",
                        s->path, s->compression, (unsigned long long)done,
                        (unsigned long long)s->size);
}

/* ---- gzip through zlib ------------------------------------------------ */

/* Replaces libarchive by zlib for a gzip file, from its first byte. */
static SB_MUST_CHECK sb_status gz_start(sb_image_src *s, sb_error *err)
{
    src_archive_close(s);
    if (lseek(s->fd, 0, SEEK_SET) < 0)
        return sb_error_sys(err, errno, "cannot read '%s'", s->path);
    s->file_pos = 0;
    s->file_eof = false;
    s->gz = calloc(1, sizeof *s->gz);
    if (!s->gz)
        return sb_error_nomem(err, NULL);
    /* 16 + MAX_WBITS: gzip wrapping only, its CRC32 and length checked */
    if (inflateInit2(s->gz, 16 + MAX_WBITS) != Z_OK) {
        free(s->gz);
        s->gz = NULL;
        return sb_error_nomem(err, "starting zlib");
    }
    return SB_OK;
}

/* Up to len bytes of image from the gzip members; *got 0 at the end. */
static SB_MUST_CHECK sb_status gz_fill(sb_image_src *s, unsigned char *buf, size_t len, size_t *got,
                                       sb_error *err)
{
    z_stream *z = s->gz;
    *got = 0;
    z->next_out = buf;
    z->avail_out = len > UINT_MAX ? UINT_MAX : (unsigned)len;
    while (z->avail_out > 0) {
        if (z->avail_in == 0) {
            ssize_t n = src_read_file(s);
            if (n < 0)
                return data_failed(s, s->done + *got, err);
            if (n == 0) {
                if (s->gz_member_done)
                    break; /* the end, between members */
                *got = len - z->avail_out;
                return data_failed(s, s->done + *got, err);
            }
            z->next_in = s->rbuf;
            z->avail_in = (unsigned)n;
        }
        if (s->gz_member_done) {
            /* Another member follows only if it starts as one; anything
             * else after a complete member is ignored, as gzip(1) and
             * libarchive do (padding such as tape blocks' zeros). */
            if (z->next_in[0] != 0x1f) {
                z->avail_in = 0;
                while (src_read_file(s) > 0)
                    ; /* skipped: the progress reaches the file's end */
                break;
            }
            if (inflateReset(z) != Z_OK)
                return sb_error_nomem(err, "zlib");
            s->gz_member_done = false;
        }
        int r = inflate(z, Z_NO_FLUSH);
        if (r == Z_STREAM_END) {
            s->gz_member_done = true;
        } else if (r == Z_MEM_ERROR) {
            return sb_error_nomem(err, "decoding gzip data");
        } else if (r != Z_OK && r != Z_BUF_ERROR) {
            *got = len - z->avail_out;
            s->gz_msg = z->msg ? z->msg : "zlib cannot decode it";
            return data_failed(s, s->done + *got, err);
        }
    }
    *got = len - z->avail_out;
    return SB_OK;
}

/* Decodes up to len bytes into buf straight from libarchive (after the
 * look-ahead), counting s->done; at_end once libarchive says so. */
static SB_MUST_CHECK sb_status src_fill(sb_image_src *s, unsigned char *buf, size_t len,
                                        size_t *got, sb_error *err)
{
    *got = 0;
    while (*got < len && !s->at_end) {
        la_ssize_t n;
        if (s->gz) {
            size_t g = 0;
            sb_status st = gz_fill(s, buf + *got, len - *got, &g, err);
            *got += g;
            s->done += g;
            if (st != SB_OK)
                return st;
            n = 0;
            if (g > 0)
                continue;
        } else {
            n = sb_ar.archive_read_data(s->ar, buf + *got, len - *got);
        }
        if (n < 0)
            return data_failed(s, s->done, err);
        if (n == 0) {
            s->at_end = true;
            SB_TRY(end_check(s, s->done, err));
            break;
        }
        s->done += (uint64_t)n;
        *got += (size_t)n;
        if (s->size_known && s->done > s->size)
            return end_check(s, s->done, err);
    }
    return SB_OK;
}

sb_status sb_image_src_read(sb_image_src *s, void *buf, size_t len, size_t *got, sb_error *err)
{
    *got = 0;
    unsigned char *p = buf;
    if (s->peek_off < s->peek_len) {
        size_t n = s->peek_len - s->peek_off;
        if (n > len)
            n = len;
        memcpy(p, s->peek + s->peek_off, n);
        s->peek_off += n;
        *got = n;
    }
    if (*got == len)
        return SB_OK;
    if (s->failed.status != SB_OK)
        return sb_error_copy(err, &s->failed);
    size_t more = 0;
    sb_status st = src_fill(s, p + *got, len - *got, &more, &s->failed);
    *got += more;
    if (st != SB_OK)
        return sb_error_copy(err, &s->failed);
    return SB_OK;
}

/* ---- the rest --------------------------------------------------------- */

const char *sb_image_src_compression(const sb_image_src *s)
{
    return s->compression;
}

const char *sb_image_src_member(const sb_image_src *s)
{
    return s->member;
}

bool sb_image_src_size(const sb_image_src *s, uint64_t *bytes)
{
    if (s->size_known)
        *bytes = s->size;
    return s->size_known;
}

uint64_t sb_image_src_file_bytes(const sb_image_src *s)
{
    return s->file_bytes;
}

uint64_t sb_image_src_file_done(const sb_image_src *s)
{
    return s->file_pos < s->file_bytes ? s->file_pos : s->file_bytes;
}

void sb_image_src_close(sb_image_src *s)
{
    if (!s)
        return;
    src_archive_close(s);
    if (s->gz) {
        inflateEnd(s->gz);
        free(s->gz);
    }
    if (s->fd >= 0)
        close(s->fd);
    free(s->peek);
    free(s->rbuf);
    free(s->member);
    free(s->path);
    free(s);
}
