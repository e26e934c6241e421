/*
 * unit_tmp.h: the temporary directory of a unit test that works on real
 * files: $TMPDIR (else /tmp)/sb-WHAT-XXXXXX, created with mkdtemp. The test
 * removes what it made in it, and then the directory.
 */
#ifndef SB_UNIT_TMP_H
#define SB_UNIT_TMP_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Creates the directory and writes its path to buf (len bytes); false when
 * it could not be created. */
static inline bool sb_unit_mkdtemp(char *buf, size_t len, const char *what)
{
    const char *base = getenv("TMPDIR");
    snprintf(buf, len, "%s/sb-%s-XXXXXX", base && *base ? base : "/tmp", what);
    return mkdtemp(buf) != NULL;
}

#endif
