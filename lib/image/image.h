/*
 * image.h (library-internal): an OS image as a stream of bytes, bmaptool's
 * block map, and the hashes `storbench image` compares and verifies with.
 *
 * An sb_image_src turns an image file (raw, compressed, or a zip of one
 * image) into the image's bytes, in order, for one thread: the runner of
 * `storbench image` opens one per decompression thread and nothing here is
 * shared between sources (no globals, no caches). It is the only code that
 * reads an image file (through libarchive, and liblzma and libzstd for the
 * sizes their indexes state). libarchive reads it with only its "raw" and
 * "zip" formats enabled, never tar, cpio or iso9660: a disk image is never
 * taken apart as an archive, whatever its first bytes look like. Its
 * filters are the ones libarchive decodes in this process (gzip, bzip2, xz,
 * lzma, lzip, zstd, lz4, compress); lrzip, lzop and grzip, which libarchive
 * can only run as external programs, and the uu and rpm wrappers are not
 * enabled, so such a file is read as raw bytes like any unrecognised one.
 * A gzip file, recognised by libarchive, is decoded by zlib, which checks
 * each member's CRC32 and length (libarchive's gzip reader does not).
 *
 * An sb_bmap is a parsed and checked bmap file (bmaptool's XML, format 1.x
 * and 2.x): which blocks of the image hold data, and the checksum of each
 * range of them; sb_bmap_digest computes those checksums (nettle).
 */
#ifndef SB_IMAGE_H
#define SB_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nettle/sha1.h>
#include <nettle/sha2.h>

#include "storbench/status.h"

/* ---- the image source -------------------------------------------------- */

typedef struct sb_image_src sb_image_src;

/* Opens path: an uncompressed image (.img, .iso, any name: anything not
 * recognised as compressed is raw bytes), or gzip, xz, zstd, bzip2 (and
 * lzma, lzip, lz4, compress), recognised by content, not name, or a .zip
 * holding exactly one regular file (stored, deflated or any method
 * libarchive decodes; directory entries are not counted). The first bytes
 * of the image are decoded here (so that an empty one is refused before
 * anything is written); a decoding error met then is kept and returned by
 * the first sb_image_src_read, exactly as if it were met there.
 * Refusals, each one line in err, *out NULL:
 *   SB_E_NOTFOUND "'PATH' does not exist";
 *   SB_E_INVALID  "'PATH' is a directory, not an image file" (a device, a
 *                 FIFO, a socket: "is a block device", ...);
 *   an unreadable file: the errno's status, "cannot open 'PATH': ...";
 *   SB_E_INVALID  "'X.zip' holds 3 files: storbench image takes a zip of one
 *                 image", "'X.zip' holds no file: ...", "'X.zip': its member
 *                 'M' is a symbolic link, not a file", "'X.zip': its member
 *                 'M' is encrypted (storbench image reads unencrypted zips)";
 *   SB_E_INVALID  an empty image: "'PATH' is empty (0 bytes)", "'X.zip': its
 *                 member 'M' is empty (0 bytes)", "'PATH' holds an empty
 *                 image: its gzip data decompresses to 0 bytes";
 *   SB_E_NOMEM, or libarchive refusing to start: SB_E_IO with its message.
 * The source owns its descriptor and buffers; sb_image_src_close frees it. */
SB_MUST_CHECK sb_status sb_image_src_open(const char *path, sb_image_src **out, sb_error *err);

/* "none", "gzip", "xz", "zstd", "bzip2" ("lzma", "lzip", "lz4",
 * "compress" for the rarer ones), or for a zip "zip" (the member's own
 * compression does not matter to callers). Never NULL; a constant. */
const char *sb_image_src_compression(const sb_image_src *s);

/* A zip's member name (owned by s), else NULL. */
const char *sb_image_src_member(const sb_image_src *s);

/* The image's size in bytes when known without decompressing it all, in
 * *bytes: a raw file's size, a zip member's size (its central directory),
 * an xz file's uncompressed size from its index (liblzma's
 * lzma_file_info_decoder over the file; the streams of a multi-stream file
 * sum), a zstd file whose every frame states its content size
 * (ZSTD_findDecompressedSize over the file mmapped read-only; when the
 * address space refuses the mapping, as a huge file on 32-bit ARM may,
 * unknown). All of it is worked out by sb_image_src_open. false, *bytes
 * untouched: unknown (gzip, bzip2, lzma, lzip, lz4, compress, a zstd frame
 * without its size, an xz whose index cannot be read: such a file is
 * reported as corrupt or truncated only when read). When known, reading
 * delivers exactly that many bytes or fails: more is corrupt, fewer is
 * truncated (or, for a zip, corrupt). */
bool sb_image_src_size(const sb_image_src *s, uint64_t *bytes);

/* The image file's size (compressed, the whole zip) and how far into it
 * the reading has come (the file offset after the last read, so a zip's
 * central directory, read first, does not count), for progress when the
 * image's size is unknown. file_done <= file_bytes. */
uint64_t sb_image_src_file_bytes(const sb_image_src *s);
uint64_t sb_image_src_file_done(const sb_image_src *s);

/* Reads the next len bytes of the image into buf (caller-owned, len
 * bytes). *got = len except at the end of the image: then fewer, and 0 on
 * every call once at the end. On failure *got is the number of bytes put
 * in buf before it (valid image bytes), and every later call fails the same
 * way. Errors:
 *   SB_E_INVALID "'PATH': the xz data is corrupt after N bytes of image
 *                (<libarchive's message>)" (for a zip: "the zip member
 *                'M' is corrupt ..."), when the decoder refuses the data,
 *                or when a known size (sb_image_src_size) is overrun or,
 *                for a zip, not reached;
 *   SB_E_INVALID "'PATH' is truncated: the xz data ends after N bytes of
 *                image" when the file ends inside the compressed stream
 *                (or before a raw file's size: it shrank while read);
 *   an I/O error reading the file: its errno's status, "cannot read
 *   'PATH' at offset N: ..." (err->offset the file offset). */
SB_MUST_CHECK sb_status sb_image_src_read(sb_image_src *s, void *buf, size_t len, size_t *got,
                                          sb_error *err);

/* Closes the file and frees s; safe on NULL. */
void sb_image_src_close(sb_image_src *s);

/* ---- the block hash ---------------------------------------------------- */

/* A 64-bit hash of len bytes at buf (any alignment; buf may be NULL when
 * len is 0), to compare a block read back with the one written. Not
 * cryptographic: four lanes of 8-byte little-endian words, each taken in by
 * a multiply-rotate-multiply step that is a bijection of the lane for a
 * fixed word and of the word for a fixed lane, the tail (len % 8 bytes)
 * as one zero-padded word, and the length and the four lanes folded by a
 * bijective xorshift-multiply finaliser. So flipping any one bit of the
 * input always changes the result, and the result is the same on every
 * architecture (words are loaded with memcpy and byte-swapped on a
 * big-endian machine). Several GB/s on x86-64 and on ARMv8 cores. */
uint64_t sb_image_hash(const void *buf, size_t len);

/* ---- bmaptool's block map ---------------------------------------------- */

typedef enum sb_bmap_csum {
    SB_BMAP_CSUM_NONE,
    SB_BMAP_CSUM_SHA1,
    SB_BMAP_CSUM_SHA256
} sb_bmap_csum;

typedef struct sb_bmap_range {
    uint64_t first, last;     /* block numbers, inclusive */
    unsigned char digest[32]; /* the range's checksum (20 bytes used for SHA1) */
    bool has_digest;
} sb_bmap_range;

typedef struct sb_bmap {
    unsigned major, minor; /* format version */
    uint64_t image_size;   /* bytes */
    uint32_t block_size;   /* bytes, a power of two >= 512 */
    uint64_t blocks_count, mapped_count;
    sb_bmap_csum csum;
    sb_bmap_range *ranges; /* sorted, disjoint, within blocks_count; owned */
    size_t n_ranges;
} sb_bmap;

/* Reads, parses and checks the bmap file at path (libexpat), as bmaptool
 * does, into *out (which the caller frees with sb_bmap_free; zeroed on
 * failure). The format, as bmaptool writes it: a root <bmap
 * version="MAJOR.MINOR"> holding <ImageSize>, <BlockSize>, <BlocksCount>,
 * <MappedBlocksCount> and a <BlockMap> of <Range> elements, each "FIRST-LAST"
 * or "BLOCK". Checksums by version: 1.0 to 1.2 have none; 1.3 has SHA1 in
 * Range attributes "sha1" and the file's own in <BmapFileSHA1>; 1.4 (a
 * mistaken number for 2.0) and 2.x name the type in <ChecksumType> ("sha1"
 * or "sha256"), with Range attributes "chksum" and <BmapFileChecksum>. The
 * file's checksum, when present, is verified by bmaptool's rule: the
 * checksum of the whole file after the first occurrence of the stated value
 * is replaced by as many ASCII '0's. Elements this parser does not know are
 * ignored (a newer minor version may add some).
 * Refused, every time SB_E_INVALID "FILE:LINE: what is wrong" (the line
 * from expat, of the element at fault or of <bmap> for a missing one): not
 * well-formed XML (expat's message), a DOCTYPE (bmap files have none), a
 * root other than <bmap>, a version that is not MAJOR.MINOR or whose major
 * is above 2 or 0, an element missing or given twice, a number that is not
 * a decimal integer (or overflows), a block size that is not a power of two
 * >= 512 (or above 1 GiB), an empty image, BlocksCount !=
 * ceil(ImageSize / BlockSize), a range with first > last, past the last
 * block, unsorted or overlapping the one before it, ranges summing to other
 * than MappedBlocksCount, an unknown ChecksumType, a checksum of the wrong
 * length or not hexadecimal, a file checksum that does not match. Reading
 * the file: the errno's status ("cannot read 'FILE': ..."); a file over
 * 256 MiB is refused (SB_E_INVALID). */
SB_MUST_CHECK sb_status sb_bmap_load(const char *path, sb_bmap *out, sb_error *err);

/* sb_bmap_load on len bytes at data already in memory, name standing for
 * the file in messages (the fuzzer's entry point). */
SB_MUST_CHECK sb_status sb_bmap_parse(const char *name, const void *data, size_t len, sb_bmap *out,
                                      sb_error *err);

/* Frees b's ranges and zeroes it; safe on NULL and on a zeroed sb_bmap. */
void sb_bmap_free(sb_bmap *b);

/* The bytes of range r of an image of b: from r->first * block_size to
 * (r->last + 1) * block_size, cut at image_size (the last block of an image
 * whose size is not a multiple of the block size is short, and bmaptool
 * hashes only what is there). */
uint64_t sb_bmap_range_offset(const sb_bmap *b, const sb_bmap_range *r);
uint64_t sb_bmap_range_bytes(const sb_bmap *b, const sb_bmap_range *r);

/* The checksum of a range's bytes, fed in pieces (nettle's sha1 and
 * sha256). Caller-allocated (on the stack is fine), no heap memory, no
 * cleanup; one per thread. */
typedef struct sb_bmap_digest {
    sb_bmap_csum csum;
    union {
        struct sha1_ctx sha1;
        struct sha256_ctx sha256;
    } u;
} sb_bmap_digest;

/* Starts a digest of the given kind (SB_BMAP_CSUM_NONE: feeding is a no-op). */
void sb_bmap_digest_init(sb_bmap_digest *d, sb_bmap_csum csum);
/* Feeds len bytes at buf. */
void sb_bmap_digest_update(sb_bmap_digest *d, const void *buf, size_t len);
/* Finishes the digest: true when the bytes fed match r's checksum (always
 * true for SB_BMAP_CSUM_NONE or a range without one). d must be started
 * again (sb_bmap_digest_init) before it is fed again. */
bool sb_bmap_digest_matches(sb_bmap_digest *d, const sb_bmap_range *r);

#endif
