/*
 * test_image.c: lib/image: the image source on real files of every
 * compression (made here, at run time, with libarchive's write API and
 * libzstd, in a temporary directory), truncated and damaged ones, the
 * refusals; sb_image_hash's golden values and sensitivity; bmap files in
 * bmaptool's layout, valid and each refusal.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#include <zstd.h>

#include "image/image.h"
#include "unit_tmp.h"

/* The image: 3 MiB + 123 bytes, pseudo-random (so it does not shrink and
 * every block of every format holds data), made once. */
enum { IMG_BYTES = (3 << 20) + 123 };

static char tmpdir[256];
static unsigned char *img;

static void fill_random(unsigned char *p, size_t n, uint64_t seed)
{
    uint64_t x = seed | 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (unsigned char)(x >> 24);
    }
}

static int group_setup(void **state)
{
    (void)state;
    if (!sb_unit_mkdtemp(tmpdir, sizeof tmpdir, "image"))
        return -1;
    img = malloc(IMG_BYTES);
    if (!img)
        return -1;
    fill_random(img, IMG_BYTES, 0x5eed);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    free(img);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *tpath(const char *name)
{
    static char buf[8][512];
    static unsigned next;
    char *p = buf[next++ % 8];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

/* ---- fixtures --------------------------------------------------------- */

/* The image (len bytes at data) through libarchive's raw format and one
 * filter (ARCHIVE_FILTER_*; NONE writes it as is). */
static void write_filtered(const char *path, int filter, const void *data, size_t len)
{
    struct archive *a = archive_write_new();
    assert_non_null(a);
    assert_int_equal(archive_write_set_format_raw(a), ARCHIVE_OK);
    switch (filter) {
    case ARCHIVE_FILTER_GZIP: assert_int_equal(archive_write_add_filter_gzip(a), ARCHIVE_OK); break;
    case ARCHIVE_FILTER_XZ: assert_int_equal(archive_write_add_filter_xz(a), ARCHIVE_OK); break;
    case ARCHIVE_FILTER_ZSTD: assert_int_equal(archive_write_add_filter_zstd(a), ARCHIVE_OK); break;
    case ARCHIVE_FILTER_BZIP2:
        assert_int_equal(archive_write_add_filter_bzip2(a), ARCHIVE_OK);
        break;
    default: break;
    }
    /* Fast levels: the data is random, and qemu runs this too. */
    if (filter != ARCHIVE_FILTER_NONE)
        assert_true(archive_write_set_filter_option(a, NULL, "compression-level", "1") >=
                    ARCHIVE_WARN);
    assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, "data");
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_size(e, (la_int64_t)len);
    assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
    archive_entry_free(e);
    if (len)
        assert_int_equal(archive_write_data(a, data, len), (la_ssize_t)len);
    assert_int_equal(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
}

/* A zip of n members named names[i], each the image's first len bytes
 * (stored or deflated). */
static void write_zip(const char *path, const char *const *names, size_t n, size_t len, bool stored)
{
    struct archive *a = archive_write_new();
    assert_non_null(a);
    assert_int_equal(archive_write_set_format_zip(a), ARCHIVE_OK);
    assert_true(archive_write_set_format_option(a, "zip", "compression",
                                                stored ? "store" : "deflate") >= ARCHIVE_WARN);
    assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, names[i]);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, (la_int64_t)len);
        assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
        archive_entry_free(e);
        assert_int_equal(archive_write_data(a, img, len), (la_ssize_t)len);
    }
    assert_int_equal(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
}

static void write_file(const char *path, const void *data, size_t len, int flags)
{
    int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    unsigned char *p = malloc((size_t)st.st_size + 1);
    assert_non_null(p);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(read(fd, p, (size_t)st.st_size), (ssize_t)st.st_size);
    close(fd);
    *len = (size_t)st.st_size;
    return p;
}

/* A zstd file made by libzstd itself, which states the content size in
 * each frame and (as the zstd program does) a checksum. */
static void write_zstd_sized(const char *path, const void *data, size_t len, int flags)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    assert_non_null(c);
    assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)));
    assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1)));
    size_t cap = ZSTD_compressBound(len);
    void *out = malloc(cap);
    assert_non_null(out);
    size_t n = ZSTD_compress2(c, out, cap, data, len);
    assert_false(ZSTD_isError(n));
    write_file(path, out, n, flags);
    free(out);
    ZSTD_freeCCtx(c);
}

/* Reads the whole image in pieces of odd sizes into a new buffer. */
static sb_status read_all(sb_image_src *s, unsigned char **out, size_t *len, sb_error *err)
{
    static const size_t pieces[] = { 1, 4093, 65537, 7, 1048573, 333, 2 << 20 };
    size_t cap = IMG_BYTES * 2 + 4096, have = 0;
    unsigned char *buf = malloc(cap);
    assert_non_null(buf);
    sb_status st = SB_OK;
    for (size_t i = 0;; i++) {
        size_t want = pieces[i % (sizeof pieces / sizeof pieces[0])], got = 99;
        if (want > cap - have)
            want = cap - have;
        st = sb_image_src_read(s, buf + have, want, &got, err);
        assert_true(got <= want);
        have += got;
        if (st != SB_OK || got < want)
            break;
    }
    if (st == SB_OK) { /* once at the end, it stays there */
        size_t got = 99;
        assert_int_equal(sb_image_src_read(s, buf, 16, &got, err), SB_OK);
        assert_int_equal(got, 0);
    }
    *out = buf;
    *len = have;
    return st;
}

static void expect_image(const char *path, const char *compression, bool size_known,
                         const void *data, size_t len)
{
    sb_error err;
    sb_image_src *s = NULL;
    assert_int_equal(sb_image_src_open(path, &s, &err), SB_OK);
    assert_string_equal(sb_image_src_compression(s), compression);
    uint64_t size = 0;
    assert_int_equal(sb_image_src_size(s, &size), size_known);
    if (size_known)
        assert_int_equal(size, len);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(sb_image_src_file_bytes(s), (uint64_t)st.st_size);
    unsigned char *got;
    size_t n;
    assert_int_equal(read_all(s, &got, &n, &err), SB_OK);
    assert_int_equal(n, len);
    assert_memory_equal(got, data, len);
    assert_int_equal(sb_image_src_file_done(s), (uint64_t)st.st_size);
    free(got);
    sb_image_src_close(s);
}

/* ---- the image source ------------------------------------------------- */

static void test_roundtrip(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int filter;
        const char *compression;
        bool size_known;
    } cases[] = {
        { "plain.img", ARCHIVE_FILTER_NONE, "none", true },
        { "image.gz", ARCHIVE_FILTER_GZIP, "gzip", false },
        { "image.xz", ARCHIVE_FILTER_XZ, "xz", true },
        /* libarchive streams zstd: its frames state no content size */
        { "image.zst", ARCHIVE_FILTER_ZSTD, "zstd", false },
        { "image.bz2", ARCHIVE_FILTER_BZIP2, "bzip2", false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = tpath(cases[i].name);
        write_filtered(path, cases[i].filter, img, IMG_BYTES);
        expect_image(path, cases[i].compression, cases[i].size_known, img, IMG_BYTES);
        unlink(path);
    }
    /* Named like something else: the content decides. */
    const char *path = tpath("disguised.img");
    write_filtered(path, ARCHIVE_FILTER_GZIP, img, IMG_BYTES);
    expect_image(path, "gzip", false, img, IMG_BYTES);
    unlink(path);
}

static void test_zip(void **state)
{
    (void)state;
    static const char *const one[] = { "disk.img" };
    for (int stored = 0; stored < 2; stored++) {
        const char *path = tpath("one.zip");
        write_zip(path, one, 1, IMG_BYTES, stored);
        sb_image_src *s = NULL;
        sb_error err;
        assert_int_equal(sb_image_src_open(path, &s, &err), SB_OK);
        assert_string_equal(sb_image_src_member(s), "disk.img");
        sb_image_src_close(s);
        expect_image(path, "zip", true, img, IMG_BYTES);
        unlink(path);
    }
}

static void test_zstd_sizes(void **state)
{
    (void)state;
    /* One frame with its size, then two frames concatenated (sizes sum). */
    const char *path = tpath("sized.zst");
    write_zstd_sized(path, img, IMG_BYTES, O_TRUNC);
    expect_image(path, "zstd", true, img, IMG_BYTES);
    write_zstd_sized(path, img, 1000, O_TRUNC);
    write_zstd_sized(path, img + 1000, IMG_BYTES - 1000, O_APPEND);
    expect_image(path, "zstd", true, img, IMG_BYTES);
    unlink(path);
}

static void test_xz_multistream(void **state)
{
    (void)state;
    const char *a = tpath("a.xz"), *b = tpath("b.xz"), *ab = tpath("ab.img.xz");
    size_t half = IMG_BYTES / 2;
    write_filtered(a, ARCHIVE_FILTER_XZ, img, half);
    write_filtered(b, ARCHIVE_FILTER_XZ, img + half, IMG_BYTES - half);
    size_t na, nb;
    unsigned char *pa = slurp(a, &na), *pb = slurp(b, &nb);
    write_file(ab, pa, na, O_TRUNC);
    write_file(ab, pb, nb, O_APPEND);
    free(pa);
    free(pb);
    expect_image(ab, "xz", true, img, IMG_BYTES);
    unlink(a);
    unlink(b);
    unlink(ab);
}

/* Opens path and reads it all: the error the reading ends with (open
 * succeeds; what it holds at first is valid). When the file was cut
 * short (intact), what came before the error is the image; a damaged one
 * may have delivered the damage before the check at its block's or
 * member's end found it (the caller's verification compares anyway). */
static sb_status read_broken(const char *path, bool intact, sb_error *err, size_t *n)
{
    sb_image_src *s = NULL;
    sb_status st = sb_image_src_open(path, &s, err);
    if (st != SB_OK)
        return st;
    unsigned char *got;
    st = read_all(s, &got, n, err);
    if (st != SB_OK) {
        assert_true(*n <= IMG_BYTES);
        if (intact)
            assert_memory_equal(got, img, *n);
        /* and it stays failed */
        size_t g = 1;
        sb_error again;
        assert_int_equal(sb_image_src_read(s, got, 16, &g, &again), st);
        assert_int_equal(g, 0);
        assert_string_equal(again.msg, err->msg);
    }
    free(got);
    sb_image_src_close(s);
    return st;
}

static void test_truncated_and_corrupt(void **state)
{
    (void)state;
    static const struct {
        int filter;
        const char *name;
    } cases[] = {
        { ARCHIVE_FILTER_GZIP, "gzip" },
        { ARCHIVE_FILTER_XZ, "xz" },
        { ARCHIVE_FILTER_ZSTD, "zstd" },
        { ARCHIVE_FILTER_BZIP2, "bzip2" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = tpath("broken");
        if (cases[i].filter == ARCHIVE_FILTER_ZSTD)
            write_zstd_sized(path, img, IMG_BYTES, O_TRUNC); /* with its checksum */
        else
            write_filtered(path, cases[i].filter, img, IMG_BYTES);
        size_t len;
        unsigned char *whole = slurp(path, &len);
        char want[128];

        /* Cut at 60%, and cut by just the last byte. */
        size_t cuts[] = { len * 6 / 10, len - 1 };
        for (size_t c = 0; c < 2; c++) {
            unlink(path);
            write_file(path, whole, cuts[c], O_TRUNC);
            sb_error err;
            size_t n = 0;
            assert_int_equal(read_broken(path, true, &err, &n), SB_E_INVALID);
            snprintf(want, sizeof want, "is truncated: the %s data ends after %zu bytes",
                     cases[i].name, n);
            if (!strstr(err.msg, want))
                fail_msg("%s cut to %zu of %zu: '%s', expected '%s'", cases[i].name, cuts[c], len,
                         err.msg, want);
        }

        /* One bit flipped in the middle of the compressed data. */
        unlink(path);
        whole[len / 2] ^= 0x10;
        write_file(path, whole, len, O_TRUNC);
        sb_error err;
        size_t n = 0;
        assert_int_equal(read_broken(path, false, &err, &n), SB_E_INVALID);
        snprintf(want, sizeof want, ": the %s data is corrupt after %zu bytes of image (",
                 cases[i].name, n);
        if (!strstr(err.msg, want))
            fail_msg("%s with a bit flipped: '%s', expected '%s'", cases[i].name, err.msg, want);
        free(whole);
        unlink(path);
    }
}

static void test_refusals(void **state)
{
    (void)state;
    sb_image_src *s = (sb_image_src *)1;
    sb_error err;
    char want[600];

    const char *missing = tpath("missing.img");
    assert_int_equal(sb_image_src_open(missing, &s, &err), SB_E_NOTFOUND);
    assert_null(s);
    snprintf(want, sizeof want, "'%s' does not exist", missing);
    assert_string_equal(err.msg, want);

    assert_int_equal(sb_image_src_open(tmpdir, &s, &err), SB_E_INVALID);
    snprintf(want, sizeof want, "'%s' is a directory, not an image file", tmpdir);
    assert_string_equal(err.msg, want);

    const char *empty = tpath("empty.img");
    write_file(empty, "", 0, O_TRUNC);
    assert_int_equal(sb_image_src_open(empty, &s, &err), SB_E_INVALID);
    snprintf(want, sizeof want, "'%s' is empty (0 bytes)", empty);
    assert_string_equal(err.msg, want);
    unlink(empty);

    const char *emptygz = tpath("empty.img.gz");
    write_filtered(emptygz, ARCHIVE_FILTER_GZIP, NULL, 0);
    assert_int_equal(sb_image_src_open(emptygz, &s, &err), SB_E_INVALID);
    snprintf(want, sizeof want, "'%s' holds an empty image: its gzip data decompresses to 0 bytes",
             emptygz);
    assert_string_equal(err.msg, want);
    unlink(emptygz);

    static const char *const three[] = { "a.img", "b.img", "c.img" };
    const char *zip = tpath("three.zip");
    write_zip(zip, three, 3, 1000, false);
    assert_int_equal(sb_image_src_open(zip, &s, &err), SB_E_INVALID);
    snprintf(want, sizeof want, "'%s' holds 3 files: storbench image takes a zip of one image",
             zip);
    assert_string_equal(err.msg, want);
    write_zip(zip, three, 2, 1000, true);
    assert_int_equal(sb_image_src_open(zip, &s, &err), SB_E_INVALID);
    snprintf(want, sizeof want, "'%s' holds 2 files: storbench image takes a zip of one image",
             zip);
    assert_string_equal(err.msg, want);
    write_zip(zip, three, 0, 0, false);
    assert_int_equal(sb_image_src_open(zip, &s, &err), SB_E_INVALID);
    snprintf(want, sizeof want, "'%s' holds no file: storbench image takes a zip of one image",
             zip);
    assert_string_equal(err.msg, want);
    write_zip(zip, three, 1, 0, false);
    assert_int_equal(sb_image_src_open(zip, &s, &err), SB_E_INVALID);
    snprintf(want, sizeof want, "'%s': its member 'a.img' is empty (0 bytes)", zip);
    assert_string_equal(err.msg, want);
    unlink(zip);

    if (geteuid() != 0) {
        const char *locked = tpath("locked.img");
        write_file(locked, "x", 1, O_TRUNC);
        assert_int_equal(chmod(locked, 0), 0);
        assert_int_equal(sb_image_src_open(locked, &s, &err), SB_E_PERM);
        assert_non_null(strstr(err.msg, "cannot open '"));
        unlink(locked);
    } else {
        printf("(an unreadable file is not tested: root reads everything)\n");
    }

    sb_image_src_close(NULL);
}

/* ---- the block hash --------------------------------------------------- */

static void test_hash(void **state)
{
    (void)state;
    /* Golden values: the same on every architecture (the cross builds run
     * this under qemu). The input: bytes 1, 8, 15, ... (i * 7 + 1). */
    unsigned char seq[1024 + 8];
    for (size_t i = 0; i < sizeof seq; i++)
        seq[i] = (unsigned char)(i * 7 + 1);
    static const struct {
        size_t len;
        uint64_t h;
    } golden[] = {
        { 0, 0x721844cad59a7e1aULL },   { 1, 0x9d698b2bd9ca3dbfULL },
        { 7, 0x63fff6105a12fde9ULL },   { 8, 0x1c2a35c240951347ULL },
        { 31, 0x234b32c3acadd61aULL },  { 32, 0x2fea46966c491521ULL },
        { 100, 0x8008609597319ce4ULL }, { 1024, 0x9300d4dde0a447f9ULL },
    };
    for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
        uint64_t h = sb_image_hash(seq, golden[i].len);
        if (h != golden[i].h)
            fail_msg("sb_image_hash(%zu bytes) = 0x%016llxULL, golden 0x%016llxULL", golden[i].len,
                     (unsigned long long)h, (unsigned long long)golden[i].h);
    }
    /* Alignment does not matter. */
    unsigned char moved[1024 + 8];
    for (size_t off = 1; off < 8; off++) {
        memcpy(moved + off, seq, 1000);
        assert_int_equal(sb_image_hash(moved + off, 1000), sb_image_hash(seq, 1000));
    }
    /* Every single-bit flip changes it, for every length 0..70; and the
     * lengths differ from each other. */
    uint64_t by_len[71];
    for (size_t len = 0; len <= 70; len++) {
        unsigned char b[70];
        memcpy(b, seq, len);
        uint64_t h0 = sb_image_hash(b, len);
        by_len[len] = h0;
        for (size_t bit = 0; bit < len * 8; bit++) {
            b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
            assert_true(sb_image_hash(b, len) != h0);
            b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        }
        for (size_t k = 0; k < len; k++)
            assert_true(by_len[k] != h0);
    }
    /* Zeros of different lengths differ too. */
    unsigned char z[64] = { 0 };
    for (size_t len = 1; len <= 64; len++)
        assert_true(sb_image_hash(z, len) != sb_image_hash(z, len - 1));
}

/* ---- bmap files ------------------------------------------------------- */

enum { BM_BLOCK = 4096, BM_BLOCKS = 11, BM_IMAGE = 10 * BM_BLOCK + 100 };

typedef struct bm_range {
    uint64_t first, last;
} bm_range;

typedef struct bm_opts {
    const char *version; /* "2.0", "1.4", "1.3", "3.0" */
    const char *csum;    /* "sha256", "sha1" or NULL (no checksums) */
    bool file_csum;      /* a correct BmapFileChecksum / BmapFileSHA1 */
    uint64_t mapped;     /* 0: the ranges' sum */
    const bm_range *ranges;
    size_t n;
} bm_opts;

static void hexify(const unsigned char *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static size_t digest_of(const char *csum, const void *p, size_t len, unsigned char *out)
{
    if (!strcmp(csum, "sha1")) {
        struct sha1_ctx c;
        sha1_init(&c);
        sha1_update(&c, len, p);
        sha1_digest(&c, SHA1_DIGEST_SIZE, out);
        return SHA1_DIGEST_SIZE;
    }
    struct sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, len, p);
    sha256_digest(&c, SHA256_DIGEST_SIZE, out);
    return SHA256_DIGEST_SIZE;
}

/* A bmap file as bmaptool lays it out, of the image's first BM_IMAGE bytes. */
static char *make_bmap(const bm_opts *o)
{
    size_t cap = 16384, len = 0;
    char *x = malloc(cap);
    assert_non_null(x);
#define ADD(...) (len += (size_t)snprintf(x + len, cap - len, __VA_ARGS__))
    bool v13 = !strcmp(o->version, "1.3");
    const char *attr = v13 ? "sha1" : "chksum";
    const char *file_el = v13 ? "BmapFileSHA1" : "BmapFileChecksum";
    size_t hexlen = o->csum && !strcmp(o->csum, "sha1") ? 40 : 64;
    uint64_t mapped = 0;
    for (size_t i = 0; i < o->n; i++)
        mapped += o->ranges[i].last - o->ranges[i].first + 1;
    ADD("<?xml version=\"1.0\" ?>\n"
        "<!-- This file contains the block map for an image file, which is basically\n"
        "     a list of useful (mapped) block numbers in the image file. In other words,\n"
        "     it lists only those blocks which contain data (boot sector, partition\n"
        "     table, file-system metadata, files, directories, extents, etc). These\n"
        "     blocks have to be copied to the target device. The other blocks do not\n"
        "     contain any useful data and do not have to be copied to the target\n"
        "     device. -->\n\n");
    ADD("<bmap version=\"%s\">\n", o->version);
    ADD("    <!-- Image size in bytes: 40.2 KiB -->\n    <ImageSize> %d </ImageSize>\n\n",
        BM_IMAGE);
    ADD("    <!-- Size of a block in bytes -->\n    <BlockSize> %d </BlockSize>\n\n", BM_BLOCK);
    ADD("    <!-- Count of blocks in the image file -->\n    <BlocksCount> %d </BlocksCount>\n\n",
        BM_BLOCKS);
    ADD("    <!-- Count of mapped blocks: 28.0 KiB or 63.6%%     -->\n"
        "    <MappedBlocksCount> %llu </MappedBlocksCount>\n\n",
        (unsigned long long)(o->mapped ? o->mapped : mapped));
    if (o->csum && !v13)
        ADD("    <!-- Type of checksum used in this file -->\n"
            "    <ChecksumType> %s </ChecksumType>\n\n",
            o->csum);
    size_t file_at = 0;
    if (o->csum && o->file_csum) {
        ADD("    <!-- The checksum of this bmap file. When it is calculated, the value of\n"
            "         the checksum has be zero (all ASCII \"0\" symbols).  -->\n    <%s> ",
            file_el);
        file_at = len;
        ADD("%.*s </%s>\n\n", (int)hexlen,
            "0000000000000000000000000000000000000000000000000000000000000000", file_el);
    }
    ADD("    <!-- The block map which consists of elements which may either be a\n"
        "         range of blocks or a single block. The '%s' attribute\n"
        "         (if present) is the checksum of this blocks range. -->\n"
        "    <BlockMap>\n",
        attr);
    for (size_t i = 0; i < o->n; i++) {
        const bm_range *r = &o->ranges[i];
        char range[64];
        if (r->first == r->last)
            snprintf(range, sizeof range, "%llu", (unsigned long long)r->first);
        else
            snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)r->first,
                     (unsigned long long)r->last);
        if (o->csum) {
            uint64_t start = r->first * BM_BLOCK, end = (r->last + 1) * BM_BLOCK;
            if (end > BM_IMAGE)
                end = BM_IMAGE;
            unsigned char d[32];
            char hex[65];
            size_t n = digest_of(o->csum, img + start, end > start ? end - start : 0, d);
            hexify(d, n, hex);
            ADD("        <Range %s=\"%s\"> %s </Range>\n", attr, hex, range);
        } else {
            ADD("        <Range> %s </Range>\n", range);
        }
    }
    ADD("    </BlockMap>\n</bmap>\n");
#undef ADD
    assert_true(len < cap);
    if (file_at) {
        unsigned char d[32];
        char hex[65];
        size_t n = digest_of(o->csum, x, len, d);
        hexify(d, n, hex);
        memcpy(x + file_at, hex, 2 * n);
    }
    return x;
}

static const bm_range RANGES[] = { { 0, 1 }, { 3, 3 }, { 7, 10 } };

static void test_bmap_valid(void **state)
{
    (void)state;
    const char *versions[] = { "2.0", "1.4", "1.3", "1.2" };
    const char *csums[] = { "sha256", "sha1", "sha1", NULL };
    const sb_bmap_csum kinds[] = { SB_BMAP_CSUM_SHA256, SB_BMAP_CSUM_SHA1, SB_BMAP_CSUM_SHA1,
                                   SB_BMAP_CSUM_NONE };
    for (size_t v = 0; v < 4; v++) {
        bm_opts o = { versions[v], csums[v], true, 0, RANGES, 3 };
        char *text = make_bmap(&o);
        const char *path = tpath("image.bmap");
        write_file(path, text, strlen(text), O_TRUNC);
        sb_bmap b;
        sb_error err;
        if (sb_bmap_load(path, &b, &err) != SB_OK)
            fail_msg("version %s: %s", versions[v], err.msg);
        assert_int_equal(b.major, versions[v][0] - '0');
        assert_int_equal(b.minor, versions[v][2] - '0');
        assert_int_equal(b.image_size, BM_IMAGE);
        assert_int_equal(b.block_size, BM_BLOCK);
        assert_int_equal(b.blocks_count, BM_BLOCKS);
        assert_int_equal(b.mapped_count, 7);
        assert_int_equal(b.csum, kinds[v]);
        assert_int_equal(b.n_ranges, 3);
        for (size_t i = 0; i < 3; i++) {
            const sb_bmap_range *r = &b.ranges[i];
            assert_int_equal(r->first, RANGES[i].first);
            assert_int_equal(r->last, RANGES[i].last);
            assert_int_equal(r->has_digest, kinds[v] != SB_BMAP_CSUM_NONE);
            /* The range's bytes, fed in uneven pieces, match; one byte
             * changed does not. */
            uint64_t off = sb_bmap_range_offset(&b, r), n = sb_bmap_range_bytes(&b, r);
            assert_int_equal(off, RANGES[i].first * BM_BLOCK);
            sb_bmap_digest d;
            sb_bmap_digest_init(&d, b.csum);
            for (uint64_t at = 0; at < n;) {
                uint64_t step = n - at < 1001 ? n - at : 1001;
                sb_bmap_digest_update(&d, img + off + at, (size_t)step);
                at += step;
            }
            assert_true(sb_bmap_digest_matches(&d, r));
            if (kinds[v] != SB_BMAP_CSUM_NONE) {
                img[off] ^= 1;
                sb_bmap_digest_init(&d, b.csum);
                sb_bmap_digest_update(&d, img + off, (size_t)n);
                assert_false(sb_bmap_digest_matches(&d, r));
                img[off] ^= 1;
            }
        }
        /* The last range ends with the image, inside its last block. */
        assert_int_equal(sb_bmap_range_bytes(&b, &b.ranges[2]), BM_IMAGE - 7 * BM_BLOCK);
        sb_bmap_free(&b);
        sb_bmap_free(&b); /* twice is fine */
        free(text);
        unlink(path);
    }
}

/* The line (1-based) of the first occurrence of what in text. */
static unsigned long line_of(const char *text, const char *what)
{
    const char *at = strstr(text, what);
    assert_non_null(at);
    unsigned long line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* text, with its first from replaced by to, is refused on the line of
 * line_at with a message holding what. */
static void expect_refused(const char *text, const char *from, const char *to, const char *line_at,
                           const char *what)
{
    size_t len = strlen(text);
    char *x = malloc(len + (to ? strlen(to) : 0) + 1);
    assert_non_null(x);
    const char *at = from ? strstr(text, from) : NULL;
    if (from)
        assert_non_null(at);
    if (at) {
        size_t pre = (size_t)(at - text);
        memcpy(x, text, pre);
        strcpy(x + pre, to);
        strcat(x, at + strlen(from));
    } else {
        strcpy(x, text);
    }
    const char *path = tpath("bad.bmap");
    write_file(path, x, strlen(x), O_TRUNC);
    sb_bmap b;
    sb_error err;
    assert_int_equal(sb_bmap_load(path, &b, &err), SB_E_INVALID);
    assert_null(b.ranges);
    char want[512];
    snprintf(want, sizeof want, "%s:%lu: ", path, line_of(x, line_at));
    if (strncmp(err.msg, want, strlen(want)) != 0 || !strstr(err.msg, what))
        fail_msg("got '%s', expected '%s...%s'", err.msg, want, what);
    free(x);
    unlink(path);
}

static void test_bmap_refused(void **state)
{
    (void)state;
    bm_opts o = { "2.0", "sha256", true, 0, RANGES, 3 };
    char *good = make_bmap(&o);

    /* Not well-formed: the line of the bad end tag. */
    expect_refused(good, "</BlockSize>", "</BlockSiz>", "</BlockSiz>",
                   "not a well-formed XML file: mismatched tag");
    /* The file's checksum: one digit of a range's checksum changed. */
    char *p = strstr(good, "<Range chksum=\"") + 15;
    char digit[2] = { *p == '0' ? '1' : '0', 0 };
    char from[80];
    snprintf(from, sizeof from, "%.20s", p);
    char to[80];
    snprintf(to, sizeof to, "%s%.19s", digit, p + 1);
    expect_refused(good, from, to, "<BmapFileChecksum>", "the file was changed or damaged");
    /* Format 3 */
    expect_refused(good, "version=\"2.0\"", "version=\"3.0\"", "<bmap version",
                   "bmap format version 3.0 is not supported");
    /* Counts */
    expect_refused(good, "<BlocksCount> 11", "<BlocksCount> 12", "<BlocksCount>",
                   "<BlocksCount> 12 does not match <ImageSize> 41060");
    expect_refused(good, "<ChecksumType> sha256", "<ChecksumType> md5", "<ChecksumType>",
                   "<ChecksumType> 'md5' is not supported");
    expect_refused(good, "<BlockSize> 4096", "<BlockSize> 4096x", "<BlockSize>",
                   "is not a decimal number");
    free(good);

    /* Without a file checksum, the checks of the ranges themselves. */
    static const bm_range overlap[] = { { 0, 3 }, { 3, 4 } }, unsorted[] = { { 3, 3 }, { 0, 1 } },
                          past[] = { { 0, 1 }, { 9, 11 } };
    bm_opts ov = { "2.0", "sha256", false, 0, overlap, 2 };
    char *t = make_bmap(&ov);
    expect_refused(t, NULL, NULL, "> 3-4 <", "range 3-4 overlaps range 0-3 on line");
    free(t);
    bm_opts un = { "2.0", "sha256", false, 0, unsorted, 2 };
    t = make_bmap(&un);
    expect_refused(t, NULL, NULL, "> 0-1 <", "range 0-1 comes after range 3-3 on line");
    free(t);
    bm_opts pa = { "2.0", "sha256", false, 0, past, 2 };
    t = make_bmap(&pa);
    expect_refused(t, NULL, NULL, "> 9-11 <", "goes past the image's last block 10");
    free(t);
    bm_opts mm = { "1.4", "sha1", false, 6, RANGES, 3 };
    t = make_bmap(&mm);
    expect_refused(t, NULL, NULL, "<MappedBlocksCount>",
                   "<MappedBlocksCount> is 6, the ranges hold 7 blocks");
    /* A missing element: the line of <bmap>. */
    expect_refused(t, "<BlockSize> 4096 </BlockSize>", "", "<bmap version",
                   "<BlockSize> is missing");
    /* A DOCTYPE */
    expect_refused(t, "<bmap version", "<!DOCTYPE bmap [ <!ENTITY a \"b\"> ]>\n<bmap version",
                   "<!DOCTYPE", "a bmap file has no DOCTYPE");
    free(t);

    /* A missing file; garbage; an empty file. */
    sb_bmap b;
    sb_error err;
    assert_int_equal(sb_bmap_load(tpath("none.bmap"), &b, &err), SB_E_NOTFOUND);
    assert_int_equal(sb_bmap_parse("x.bmap", "", 0, &b, &err), SB_E_INVALID);
    assert_non_null(strstr(err.msg, "x.bmap:1: "));
    assert_int_equal(sb_bmap_parse("x.bmap", "<html/>", 7, &b, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "x.bmap:1: the root element is <html>, not <bmap>: not a bmap "
                                 "file");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_zip),
        cmocka_unit_test(test_zstd_sizes),
        cmocka_unit_test(test_xz_multistream),
        cmocka_unit_test(test_truncated_and_corrupt),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_bmap_valid),
        cmocka_unit_test(test_bmap_refused),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
