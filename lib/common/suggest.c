/*
 * suggest.c: the closest known word to a typo (storbench/suggest.h).
 */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "storbench/suggest.h"

/* Levenshtein distance with one row of 64 entries: O(len(a) * len(b)) time
 * on words of at most 63 bytes, which every option and value name is. */
size_t sb_suggest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost =
                tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
            size_t best = diag + cost;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            if (up + 1 < best)
                best = up + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

void sb_suggest_init(sb_suggest *s, const char *word)
{
    s->word = word;
    s->best = NULL;
    s->best_d = SIZE_MAX;
}

void sb_suggest_offer(sb_suggest *s, const char *candidate)
{
    if (!candidate || !s->word)
        return;
    size_t d = sb_suggest_distance(s->word, candidate);
    if (d < s->best_d) {
        s->best_d = d;
        s->best = candidate;
    }
}

const char *sb_suggest_result(const sb_suggest *s)
{
    if (!s->word || !s->best)
        return NULL;
    /* A typo changes a few letters; beyond that a suggestion is noise. */
    size_t limit = strlen(s->word) / 3 + 1;
    if (limit > 3)
        limit = 3;
    return s->best_d <= limit ? s->best : NULL;
}
