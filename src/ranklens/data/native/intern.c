/*
 * intern.c -- query-id interning, and the growing of arrays.
 *
 * Pass 1 gives every distinct query id a code (0, 1, ... in order of first
 * appearance) through an open-addressing table of codes probed by the ids'
 * hashes; the ids' bytes, offsets, hashes and "not valid UTF-8" flags live
 * in the parser (core.h).  rl_grow is the doubling realloc behind the
 * interner and the other lists that grow (segments, duplicates).
 */
#include "core.h"

#include <stdlib.h>

/* Grows *p (elements of el bytes, capacity *cap) to hold at least need. */
int rl_grow(void **p, size_t *cap, size_t need, size_t el)
{
    size_t nc;
    void *q;
    if (need <= *cap)
        return 0;
    nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / el)
            return -1;
        nc *= 2;
    }
    q = realloc(*p, nc * el);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static int qtab_rehash(rl_parser *P)
{
    size_t ncap = (P->qmask + 1) * 2, i, j;
    int32_t *t;
    if (ncap > SIZE_MAX / sizeof(int32_t))
        return -1;
    t = (int32_t *)malloc(ncap * sizeof(int32_t));
    if (t == NULL)
        return -1;
    memset(t, 0xFF, ncap * sizeof(int32_t));
    for (i = 0; i < P->nq; i++) {
        j = (size_t)P->qh[i] & (ncap - 1);
        while (t[j] >= 0)
            j = (j + 1) & (ncap - 1);
        t[j] = (int32_t)i;
    }
    free(P->qtab);
    P->qtab = t;
    P->qmask = ncap - 1;
    return 0;
}

/* Interns a query id; returns its code, or -1 when out of memory. */
int32_t rl_intern_qid(rl_parser *P, const uint8_t *s, size_t len, int *is_new)
{
    uint64_t h = hash_bytes(s, len);
    size_t i = (size_t)h & P->qmask;
    int32_t c;
    while ((c = P->qtab[i]) >= 0) {
        if (P->qh[c] == h && (size_t)(P->qoff[c + 1] - P->qoff[c]) == len &&
            memcmp(P->qb + P->qoff[c], s, len) == 0) {
            *is_new = 0;
            return c;
        }
        i = (i + 1) & P->qmask;
    }
    if (P->nq >= (size_t)INT32_MAX - 1)
        return -1;
    if (rl_grow((void **)&P->qoff, &P->qoff_cap, P->nq + 2, sizeof(int64_t)) ||
        rl_grow((void **)&P->qh, &P->qh_cap, P->nq + 1, sizeof(uint64_t)) ||
        rl_grow((void **)&P->qbad, &P->qbad_cap, P->nq + 1, 1) ||
        rl_grow((void **)&P->qb, &P->qcap, P->qlen + len, 1))
        return -1;
    c = (int32_t)P->nq;
    memcpy(P->qb + P->qlen, s, len);
    P->qlen += len;
    P->qoff[c + 1] = (int64_t)P->qlen;
    P->qh[c] = h;
    P->qbad[c] = 0;
    P->qtab[i] = c;
    P->nq++;
    if (P->nq * 2 > P->qmask + 1 && qtab_rehash(P))
        return -1;
    *is_new = 1;
    return c;
}
