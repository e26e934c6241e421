/*
 * bmap.c: bmaptool's block map, parsed (libexpat) and checked, and the
 * range checksums (nettle) (image.h).
 *
 * expat calls us back per element; we keep the line of each element of
 * interest and the text of the one being read, and act at its end tag.
 * Everything that spans elements (the sizes against each other, the ranges
 * against the block count, the file checksum) is checked once the document
 * is parsed, with the line of the element the complaint is about. The
 * first error stops the parser and is the one reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <expat.h>

#include "image/image.h"

/* A bmap of a 4 TiB image with a range every other block is far below
 * this; anything bigger is not a bmap file. */
#define BMAP_MAX_FILE_BYTES ((uint64_t)256 << 20)
/* The element text kept: a number or a checksum, with some space. */
enum { BMAP_TEXT_MAX = 256 };

/* The leaf elements with a value. */
enum bmap_field {
    F_IMAGE_SIZE,
    F_BLOCK_SIZE,
    F_BLOCKS_COUNT,
    F_MAPPED_COUNT,
    F_CSUM_TYPE,
    F_FILE_CSUM, /* BmapFileChecksum (1.4, 2.x) */
    F_FILE_SHA1, /* BmapFileSHA1 (1.3) */
    F_RANGE,     /* (not a field: a Range's text) */
    F_COUNT,
};
static const char *const FIELD_NAMES[F_COUNT] = {
    "ImageSize",    "BlockSize",        "BlocksCount",  "MappedBlocksCount",
    "ChecksumType", "BmapFileChecksum", "BmapFileSHA1", "Range",
};

typedef struct bmap_parse {
    const char *name; /* the file, for messages */
    XML_Parser xp;
    sb_bmap *out;
    sb_error *err;
    sb_status st;
    unsigned depth;
    bool root_seen;
    unsigned long root_line;
    unsigned long field_line[F_COUNT]; /* 0: not seen */
    char field_text[F_COUNT][BMAP_TEXT_MAX];
    int reading;        /* the field whose text is being gathered, or -1 */
    size_t text_len;    /* of field_text[reading] */
    bool text_overflow; /* longer than BMAP_TEXT_MAX - 1 */
    bool in_blockmap;
    unsigned long blockmap_line; /* 0: no <BlockMap> yet */
    /* The Range being read: its checksum attributes (both kinds kept; the
     * version decides which counts, and the version comes first). */
    char range_sha1[BMAP_TEXT_MAX], range_chksum[BMAP_TEXT_MAX];
    struct range_meta {
        unsigned long line;
        size_t digest_len; /* bytes of the checksum given, 0 for none */
    } * meta;              /* per range, for the checks at the end */
    size_t cap;
} bmap_parse;

static sb_status bmap_fail(bmap_parse *p, unsigned long line, const char *fmt, ...) SB_PRINTF(3, 4);

/* Records the first error (later ones are consequences) and stops expat. */
static sb_status bmap_fail(bmap_parse *p, unsigned long line, const char *fmt, ...)
{
    if (p->st != SB_OK)
        return p->st;
    char what[SB_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    p->st = sb_error_set(p->err, SB_E_INVALID, 0, "%s:%lu: %s", p->name, line, what);
    if (p->xp)
        XML_StopParser(p->xp, XML_FALSE);
    return p->st;
}

static unsigned long cur_line(const bmap_parse *p)
{
    return (unsigned long)XML_GetCurrentLineNumber(p->xp);
}

/* s without leading and trailing white space, copied into buf. */
static const char *trimmed(const char *s, char *buf, size_t len)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    if (n >= len)
        n = len - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

/* A decimal integer (digits only), false when empty, other or too big. */
static bool parse_u64(const char *s, uint64_t *v)
{
    if (!*s)
        return false;
    uint64_t x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
    }
    *v = x;
    return true;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Exactly 2 * n hexadecimal digits into n bytes. */
static bool parse_hex(const char *s, unsigned char *out, size_t n)
{
    if (strlen(s) != 2 * n)
        return false;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return true;
}

static size_t csum_bytes(sb_bmap_csum c)
{
    return c == SB_BMAP_CSUM_SHA1     ? SHA1_DIGEST_SIZE
           : c == SB_BMAP_CSUM_SHA256 ? SHA256_DIGEST_SIZE
                                      : 0;
}

static const char *attr(const XML_Char **atts, const char *name)
{
    for (size_t i = 0; atts[i]; i += 2)
        if (!strcmp(atts[i], name))
            return atts[i + 1];
    return NULL;
}

/* "MAJOR.MINOR" */
static bool parse_version(const char *v, unsigned *major, unsigned *minor)
{
    char buf[BMAP_TEXT_MAX];
    trimmed(v, buf, sizeof buf);
    char *dot = strchr(buf, '.');
    if (!dot)
        return false;
    *dot = '\0';
    uint64_t ma, mi;
    if (!parse_u64(buf, &ma) || !parse_u64(dot + 1, &mi) || ma > 1000 || mi > 1000)
        return false;
    *major = (unsigned)ma;
    *minor = (unsigned)mi;
    return true;
}

static void XMLCALL on_start(void *data, const XML_Char *el, const XML_Char **atts)
{
    bmap_parse *p = data;
    p->depth++;
    if (p->depth == 1) {
        p->root_line = cur_line(p);
        if (strcmp(el, "bmap") != 0) {
            bmap_fail(p, cur_line(p), "the root element is <%s>, not <bmap>: not a bmap file", el);
            return;
        }
        p->root_seen = true;
        const char *v = attr(atts, "version");
        if (!v) {
            bmap_fail(p, cur_line(p), "<bmap> has no version attribute");
            return;
        }
        if (!parse_version(v, &p->out->major, &p->out->minor)) {
            bmap_fail(p, cur_line(p), "version '%s' is not MAJOR.MINOR", v);
            return;
        }
        if (p->out->major > 2 || p->out->major == 0)
            bmap_fail(p, cur_line(p),
                      "bmap format version %u.%u is not supported (storbench reads 1.x and 2.x)",
                      p->out->major, p->out->minor);
        return;
    }
    if (p->depth == 2 && !strcmp(el, "BlockMap")) {
        if (p->blockmap_line)
            bmap_fail(p, cur_line(p), "<BlockMap> appears twice (first at line %lu)",
                      p->blockmap_line);
        p->in_blockmap = true;
        p->blockmap_line = cur_line(p);
        return;
    }
    int f = -1;
    if (p->depth == 2) {
        for (int i = 0; i < F_RANGE; i++)
            if (!strcmp(el, FIELD_NAMES[i]))
                f = i;
        if (f < 0)
            return; /* an element a newer minor version may have added */
        if (p->field_line[f]) {
            bmap_fail(p, cur_line(p), "<%s> appears twice (first at line %lu)", el,
                      p->field_line[f]);
            return;
        }
        p->field_line[f] = cur_line(p);
    } else if (p->depth == 3 && p->in_blockmap && !strcmp(el, "Range")) {
        f = F_RANGE;
        const char *a = attr(atts, "sha1");
        trimmed(a ? a : "", p->range_sha1, sizeof p->range_sha1);
        a = attr(atts, "chksum");
        trimmed(a ? a : "", p->range_chksum, sizeof p->range_chksum);
    } else {
        return;
    }
    p->reading = f;
    p->text_len = 0;
    p->text_overflow = false;
    p->field_text[f][0] = '\0';
}

static void XMLCALL on_text(void *data, const XML_Char *s, int len)
{
    bmap_parse *p = data;
    if (p->reading < 0 || len <= 0)
        return;
    char *t = p->field_text[p->reading];
    size_t n = (size_t)len;
    if (p->text_len + n >= BMAP_TEXT_MAX) {
        p->text_overflow = true;
        n = BMAP_TEXT_MAX - 1 - p->text_len;
    }
    memcpy(t + p->text_len, s, n);
    p->text_len += n;
    t[p->text_len] = '\0';
}

/* A Range's text and checksum, appended to out->ranges. */
static void add_range(bmap_parse *p, const char *text)
{
    unsigned long line = cur_line(p);
    char buf[BMAP_TEXT_MAX], a[BMAP_TEXT_MAX], b[BMAP_TEXT_MAX];
    trimmed(text, buf, sizeof buf);
    char *dash = strchr(buf, '-');
    uint64_t first, last;
    if (dash) {
        *dash = '\0';
        if (!parse_u64(trimmed(buf, a, sizeof a), &first) ||
            !parse_u64(trimmed(dash + 1, b, sizeof b), &last)) {
            bmap_fail(p, line, "range '%s-%s' is not FIRST-LAST", buf, dash + 1);
            return;
        }
    } else if (parse_u64(buf, &first)) {
        last = first;
    } else {
        bmap_fail(p, line, "range '%s' is not FIRST-LAST or one block number", buf);
        return;
    }
    if (first > last) {
        bmap_fail(p, line, "range %llu-%llu ends before it starts", (unsigned long long)first,
                  (unsigned long long)last);
        return;
    }
    sb_bmap *o = p->out;
    if (o->n_ranges == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        sb_bmap_range *r = realloc(o->ranges, cap * sizeof *r);
        if (r)
            o->ranges = r;
        struct range_meta *m = r ? realloc(p->meta, cap * sizeof *m) : NULL;
        if (!m) {
            p->st = sb_error_nomem(p->err, "reading a bmap file");
            XML_StopParser(p->xp, XML_FALSE);
            return;
        }
        p->meta = m;
        p->cap = cap;
    }
    sb_bmap_range *r = &o->ranges[o->n_ranges];
    struct range_meta *m = &p->meta[o->n_ranges];
    memset(r, 0, sizeof *r);
    r->first = first;
    r->last = last;
    m->line = line;
    m->digest_len = 0;
    /* Which attribute holds the checksum: 1.3 "sha1", 1.4 and 2.x "chksum"
     * (the version, on the root, is known by now). Whether its length fits
     * the type is checked at the end: <ChecksumType> may come later. */
    const char *cs = o->major == 1 && o->minor == 3                      ? p->range_sha1
                     : o->major == 2 || (o->major == 1 && o->minor == 4) ? p->range_chksum
                                                                         : "";
    if (*cs) {
        size_t n = strlen(cs);
        if ((n != 2 * SHA1_DIGEST_SIZE && n != 2 * SHA256_DIGEST_SIZE) ||
            !parse_hex(cs, r->digest, n / 2)) {
            bmap_fail(p, line, "range %llu-%llu: checksum '%s' is not a SHA1 or SHA256 in hex",
                      (unsigned long long)first, (unsigned long long)last, cs);
            return;
        }
        r->has_digest = true;
        m->digest_len = n / 2;
    }
    o->n_ranges++;
}

static void XMLCALL on_end(void *data, const XML_Char *el)
{
    bmap_parse *p = data;
    (void)el;
    if (p->depth == 2 && p->in_blockmap && !strcmp(el, "BlockMap"))
        p->in_blockmap = false;
    if (p->reading >= 0) {
        int f = p->reading;
        p->reading = -1;
        if (p->text_overflow)
            bmap_fail(p, cur_line(p), "<%s> holds more than %d characters", FIELD_NAMES[f],
                      BMAP_TEXT_MAX - 1);
        else if (f == F_RANGE)
            add_range(p, p->field_text[f]);
    }
    p->depth--;
}

/* bmap files have no DOCTYPE; refusing one keeps entity expansion out. */
static void XMLCALL on_doctype(void *data, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal_subset)
{
    bmap_parse *p = data;
    (void)name, (void)sysid, (void)pubid, (void)has_internal_subset;
    bmap_fail(p, cur_line(p), "a bmap file has no DOCTYPE");
}

/* The number in field f (which must be there). */
static bool field_u64(bmap_parse *p, enum bmap_field f, uint64_t *v)
{
    char buf[BMAP_TEXT_MAX];
    if (!p->field_line[f]) {
        bmap_fail(p, p->root_line, "<%s> is missing", FIELD_NAMES[f]);
        return false;
    }
    if (!parse_u64(trimmed(p->field_text[f], buf, sizeof buf), v)) {
        bmap_fail(p, p->field_line[f], "<%s> '%s' is not a decimal number", FIELD_NAMES[f], buf);
        return false;
    }
    return true;
}

/* bmaptool's rule: the checksum of the file whose first copy of the stated
 * value is replaced by as many '0's. */
static void verify_file_csum(bmap_parse *p, enum bmap_field f, const char *data, size_t len)
{
    sb_bmap *o = p->out;
    char stated[BMAP_TEXT_MAX];
    trimmed(p->field_text[f], stated, sizeof stated);
    size_t n = csum_bytes(o->csum);
    unsigned char want[SHA256_DIGEST_SIZE], got[SHA256_DIGEST_SIZE];
    if (!parse_hex(stated, want, n)) {
        bmap_fail(p, p->field_line[f], "<%s> '%s' is not a %s checksum in hex", FIELD_NAMES[f],
                  stated, o->csum == SB_BMAP_CSUM_SHA1 ? "SHA1" : "SHA256");
        return;
    }
    size_t hexlen = 2 * n;
    const char *at = memmem(data, len, stated, hexlen);
    if (!at) { /* it was read from this file: only an odd encoding could hide it */
        bmap_fail(p, p->field_line[f], "<%s> value not found verbatim in the file", FIELD_NAMES[f]);
        return;
    }
    static const char zeros[2 * SHA256_DIGEST_SIZE + 1] =
        "0000000000000000000000000000000000000000000000000000000000000000";
    size_t pos = (size_t)(at - data);
    sb_bmap_digest d;
    sb_bmap_digest_init(&d, o->csum);
    sb_bmap_digest_update(&d, data, pos);
    sb_bmap_digest_update(&d, zeros, hexlen);
    sb_bmap_digest_update(&d, data + pos + hexlen, len - pos - hexlen);
    if (o->csum == SB_BMAP_CSUM_SHA1)
        sha1_digest(&d.u.sha1, SHA1_DIGEST_SIZE, got);
    else
        sha256_digest(&d.u.sha256, SHA256_DIGEST_SIZE, got);
    if (memcmp(got, want, n) != 0) {
        char hex[2 * SHA256_DIGEST_SIZE + 1];
        for (size_t i = 0; i < n; i++)
            snprintf(hex + 2 * i, 3, "%02x", got[i]);
        bmap_fail(p, p->field_line[f],
                  "the file's checksum is %s, <%s> says %s: the file was changed or damaged", hex,
                  FIELD_NAMES[f], stated);
    }
}

/* Everything that spans elements, once the document is read. */
static void check_document(bmap_parse *p, const char *data, size_t len)
{
    sb_bmap *o = p->out;
    uint64_t bs;
    if (!field_u64(p, F_IMAGE_SIZE, &o->image_size) || !field_u64(p, F_BLOCK_SIZE, &bs) ||
        !field_u64(p, F_BLOCKS_COUNT, &o->blocks_count) ||
        !field_u64(p, F_MAPPED_COUNT, &o->mapped_count))
        return;
    if (bs < 512 || bs > (1u << 30) || (bs & (bs - 1))) {
        bmap_fail(p, p->field_line[F_BLOCK_SIZE],
                  "<BlockSize> %llu is not a power of two from 512 to 1 GiB",
                  (unsigned long long)bs);
        return;
    }
    o->block_size = (uint32_t)bs;
    if (o->image_size == 0) {
        bmap_fail(p, p->field_line[F_IMAGE_SIZE], "<ImageSize> is 0: an empty image");
        return;
    }
    uint64_t blocks = o->image_size / bs + (o->image_size % bs != 0);
    if (o->blocks_count != blocks) {
        bmap_fail(p, p->field_line[F_BLOCKS_COUNT],
                  "<BlocksCount> %llu does not match <ImageSize> %llu in blocks of %llu bytes "
                  "(%llu)",
                  (unsigned long long)o->blocks_count, (unsigned long long)o->image_size,
                  (unsigned long long)bs, (unsigned long long)blocks);
        return;
    }
    if (o->mapped_count > o->blocks_count) {
        bmap_fail(p, p->field_line[F_MAPPED_COUNT],
                  "<MappedBlocksCount> %llu is more than the %llu blocks of the image",
                  (unsigned long long)o->mapped_count, (unsigned long long)o->blocks_count);
        return;
    }
    if (!p->blockmap_line) {
        bmap_fail(p, p->root_line, "<BlockMap> is missing");
        return;
    }

    /* The checksum type, by version (see image.h). */
    enum bmap_field file_field = F_COUNT;
    if (o->major == 2 || (o->major == 1 && o->minor == 4)) {
        char t[BMAP_TEXT_MAX];
        if (!p->field_line[F_CSUM_TYPE]) {
            bmap_fail(p, p->root_line, "<ChecksumType> is missing (format %u.%u has one)", o->major,
                      o->minor);
            return;
        }
        trimmed(p->field_text[F_CSUM_TYPE], t, sizeof t);
        if (!strcmp(t, "sha256")) {
            o->csum = SB_BMAP_CSUM_SHA256;
        } else if (!strcmp(t, "sha1")) {
            o->csum = SB_BMAP_CSUM_SHA1;
        } else {
            bmap_fail(p, p->field_line[F_CSUM_TYPE],
                      "<ChecksumType> '%s' is not supported (sha1 or sha256)", t);
            return;
        }
        file_field = F_FILE_CSUM;
    } else if (o->major == 1 && o->minor == 3) {
        o->csum = SB_BMAP_CSUM_SHA1;
        file_field = F_FILE_SHA1;
    } else {
        o->csum = SB_BMAP_CSUM_NONE;
    }

    uint64_t mapped = 0;
    for (size_t i = 0; i < o->n_ranges; i++) {
        const sb_bmap_range *r = &o->ranges[i];
        unsigned long line = p->meta[i].line;
        if (r->last >= o->blocks_count) {
            bmap_fail(p, line, "range %llu-%llu goes past the image's last block %llu",
                      (unsigned long long)r->first, (unsigned long long)r->last,
                      (unsigned long long)(o->blocks_count - 1));
            return;
        }
        if (i > 0 && r->first <= o->ranges[i - 1].last) {
            bmap_fail(p, line, "range %llu-%llu %s range %llu-%llu on line %lu",
                      (unsigned long long)r->first, (unsigned long long)r->last,
                      r->first < o->ranges[i - 1].first ? "comes after" : "overlaps",
                      (unsigned long long)o->ranges[i - 1].first,
                      (unsigned long long)o->ranges[i - 1].last, p->meta[i - 1].line);
            return;
        }
        if (r->has_digest && p->meta[i].digest_len != csum_bytes(o->csum)) {
            bmap_fail(p, line, "range %llu-%llu: the checksum is not a %s (<ChecksumType>)",
                      (unsigned long long)r->first, (unsigned long long)r->last,
                      o->csum == SB_BMAP_CSUM_SHA1 ? "SHA1" : "SHA256");
            return;
        }
        mapped += r->last - r->first + 1;
    }
    if (mapped != o->mapped_count) {
        bmap_fail(p, p->field_line[F_MAPPED_COUNT],
                  "<MappedBlocksCount> is %llu, the ranges hold %llu blocks",
                  (unsigned long long)o->mapped_count, (unsigned long long)mapped);
        return;
    }
    if (file_field != F_COUNT && p->field_line[file_field])
        verify_file_csum(p, file_field, data, len);
}

sb_status sb_bmap_parse(const char *name, const void *data, size_t len, sb_bmap *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    bmap_parse p = { .name = name, .out = out, .err = err, .reading = -1 };
    if (len > BMAP_MAX_FILE_BYTES || len > INT_MAX)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "%s: %llu bytes is too big for a bmap file (at most 256 MiB)", name,
                            (unsigned long long)len);
    p.xp = XML_ParserCreate(NULL);
    if (!p.xp)
        return sb_error_nomem(err, "starting the XML parser");
    XML_SetUserData(p.xp, &p);
    XML_SetElementHandler(p.xp, on_start, on_end);
    XML_SetCharacterDataHandler(p.xp, on_text);
    XML_SetStartDoctypeDeclHandler(p.xp, on_doctype);
    if (XML_Parse(p.xp, data, (int)len, XML_TRUE) == XML_STATUS_ERROR && p.st == SB_OK)
        bmap_fail(&p, cur_line(&p), "not a well-formed XML file: %s",
                  XML_ErrorString(XML_GetErrorCode(p.xp)));
    if (p.st == SB_OK && !p.root_seen)
        bmap_fail(&p, cur_line(&p), "no <bmap> element");
    if (p.st == SB_OK) {
        XML_ParserFree(p.xp);
        p.xp = NULL;
        check_document(&p, data, len);
    }
    if (p.xp)
        XML_ParserFree(p.xp);
    free(p.meta);
    if (p.st != SB_OK)
        sb_bmap_free(out);
    return p.st;
}

sb_status sb_bmap_load(const char *path, sb_bmap *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return sb_error_set(err, SB_E_NOTFOUND, 0, "'%s' does not exist", path);
        return sb_error_sys(err, errno, "cannot open '%s'", path);
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return sb_error_sys(err, e, "cannot examine '%s'", path);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' is not a regular file: not a bmap file",
                            path);
    }
    if ((uint64_t)st.st_size > BMAP_MAX_FILE_BYTES) {
        close(fd);
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is %llu bytes: too big for a bmap file (at most 256 MiB)", path,
                            (unsigned long long)st.st_size);
    }
    size_t len = (size_t)st.st_size;
    char *data = malloc(len ? len : 1);
    if (!data) {
        close(fd);
        return sb_error_nomem(err, "reading a bmap file");
    }
    size_t have = 0;
    while (have < len) {
        ssize_t n = read(fd, data + have, len - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            free(data);
            close(fd);
            return sb_error_sys(err, e, "cannot read '%s'", path);
        }
        if (n == 0)
            break; /* it shrank: parse what there is */
        have += (size_t)n;
    }
    close(fd);
    sb_status st_ = sb_bmap_parse(path, data, have, out, err);
    free(data);
    return st_;
}

void sb_bmap_free(sb_bmap *b)
{
    if (!b)
        return;
    free(b->ranges);
    memset(b, 0, sizeof *b);
}

uint64_t sb_bmap_range_offset(const sb_bmap *b, const sb_bmap_range *r)
{
    return r->first * b->block_size;
}

uint64_t sb_bmap_range_bytes(const sb_bmap *b, const sb_bmap_range *r)
{
    uint64_t start = r->first * b->block_size, end = (r->last + 1) * b->block_size;
    if (end > b->image_size)
        end = b->image_size;
    return end > start ? end - start : 0;
}

void sb_bmap_digest_init(sb_bmap_digest *d, sb_bmap_csum csum)
{
    d->csum = csum;
    if (csum == SB_BMAP_CSUM_SHA1)
        sha1_init(&d->u.sha1);
    else if (csum == SB_BMAP_CSUM_SHA256)
        sha256_init(&d->u.sha256);
}

void sb_bmap_digest_update(sb_bmap_digest *d, const void *buf, size_t len)
{
    if (d->csum == SB_BMAP_CSUM_SHA1)
        sha1_update(&d->u.sha1, len, buf);
    else if (d->csum == SB_BMAP_CSUM_SHA256)
        sha256_update(&d->u.sha256, len, buf);
}

bool sb_bmap_digest_matches(sb_bmap_digest *d, const sb_bmap_range *r)
{
    unsigned char got[SHA256_DIGEST_SIZE];
    if (d->csum == SB_BMAP_CSUM_SHA1) {
        sha1_digest(&d->u.sha1, SHA1_DIGEST_SIZE, got);
        return !r->has_digest || !memcmp(got, r->digest, SHA1_DIGEST_SIZE);
    }
    if (d->csum == SB_BMAP_CSUM_SHA256) {
        sha256_digest(&d->u.sha256, SHA256_DIGEST_SIZE, got);
        return !r->has_digest || !memcmp(got, r->digest, SHA256_DIGEST_SIZE);
    }
    return true;
}
