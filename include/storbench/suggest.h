/*
 * suggest.h: "did you mean ...?" for a word that names nothing: the
 * closest of a set of known words, by edit distance, or none when even the
 * closest is too far to be a typo.
 *
 *     sb_suggest s;
 *     sb_suggest_init(&s, "iodeph");
 *     for (...) sb_suggest_offer(&s, known[i]);
 *     const char *near = sb_suggest_result(&s);   // "iodepth", or NULL
 *
 * The rule (the one job files have always used): the Levenshtein distance,
 * letters compared without case, is at most len(word) / 3 + 1 and never
 * more than 3; on a tie the first word offered wins. Words longer than 63
 * bytes are never close. Nothing is allocated: the result points at the
 * caller's candidate.
 */
#ifndef STORBENCH_SUGGEST_H
#define STORBENCH_SUGGEST_H

#include <stddef.h>

typedef struct sb_suggest {
    const char *word; /* what was typed (not copied) */
    const char *best; /* the closest candidate so far, or NULL */
    size_t best_d;    /* its distance */
} sb_suggest;

void sb_suggest_init(sb_suggest *s, const char *word);
/* Considers candidate (NULL is ignored); it must outlive s's result. */
void sb_suggest_offer(sb_suggest *s, const char *candidate);
/* The closest candidate if it is within the rule's distance, else NULL. */
const char *sb_suggest_result(const sb_suggest *s);
/* The edit distance between a and b (without case), or SIZE_MAX when
 * either is longer than 63 bytes. */
size_t sb_suggest_distance(const char *a, const char *b);

#endif
