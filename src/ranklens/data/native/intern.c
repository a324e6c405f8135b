/*
 * intern.c -- query-id interning, and the growing of arrays.
 *
 * Pass 1 gives every distinct query id a code (0, 1, ... in order of first
 * appearance) through an open-addressing table of codes probed by the ids'
 * hashes; the ids' bytes, offsets, hashes and "not valid UTF-8" flags live
 * in the parser (core.h).  rl_intern_column does the same for a whole string
 * column that is already in memory (an Arrow column of a DataFrame).  rl_grow
 * is the doubling realloc behind the interner and the other lists that grow
 * (segments, duplicates).
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

/* The open-addressing table of rl_intern_column: codes probed by hash. */
static int column_rehash(int64_t **tab, size_t *mask, const uint64_t *hashes, int64_t nu)
{
    size_t ncap = (*mask + 1) * 2, j;
    int64_t c, *t;
    if (ncap > SIZE_MAX / sizeof(int64_t))
        return -1;
    t = (int64_t *)malloc(ncap * sizeof(int64_t));
    if (t == NULL)
        return -1;
    memset(t, 0xFF, ncap * sizeof(int64_t));
    for (c = 0; c < nu; c++) {
        j = (size_t)hashes[c] & (ncap - 1);
        while (t[j] >= 0)
            j = (j + 1) & (ncap - 1);
        t[j] = c;
    }
    free(*tab);
    *tab = t;
    *mask = ncap - 1;
    return 0;
}

/* Codes for the strings of a column (0, 1, ... in order of first appearance)
 * and, for each code, the row where it first appears.  codes has n items,
 * first room for n.  Returns the number of distinct strings, or -1 when out
 * of memory.  The table grows with the distinct strings, so a long column of
 * few ids (a run's query column) stays cheap. */
int64_t rl_intern_column(const uint8_t *data, const int64_t *off, int64_t n, int64_t *codes,
                         int64_t *first)
{
    size_t mask = 1023, hcap = 0, j;
    int64_t *tab, nu = 0, i, c;
    uint64_t *hashes = NULL;
    tab = (int64_t *)malloc((mask + 1) * sizeof(int64_t));
    if (tab == NULL)
        return -1;
    memset(tab, 0xFF, (mask + 1) * sizeof(int64_t));
    for (i = 0; i < n; i++) {
        const uint8_t *s = data + off[i];
        size_t len = (size_t)(off[i + 1] - off[i]);
        uint64_t h;
        /* a run grouped by query repeats the previous id: no hashing then */
        if (i > 0 && (size_t)(off[i] - off[i - 1]) == len &&
            memcmp(data + off[i - 1], s, len) == 0) {
            codes[i] = codes[i - 1];
            continue;
        }
        h = hash_bytes(s, len);
        j = (size_t)h & mask;
        while ((c = tab[j]) >= 0) {
            const int64_t r = first[c];
            if (hashes[c] == h && (size_t)(off[r + 1] - off[r]) == len &&
                memcmp(data + off[r], s, len) == 0)
                break;
            j = (j + 1) & mask;
        }
        if (c < 0) {
            if (rl_grow((void **)&hashes, &hcap, (size_t)nu + 1, sizeof(uint64_t)))
                goto oom;
            c = nu++;
            tab[j] = c;
            hashes[c] = h;
            first[c] = i;
            if ((size_t)nu * 2 > mask + 1 && column_rehash(&tab, &mask, hashes, nu))
                goto oom;
        }
        codes[i] = c;
    }
    free(tab);
    free(hashes);
    return nu;
oom:
    free(tab);
    free(hashes);
    return -1;
}
