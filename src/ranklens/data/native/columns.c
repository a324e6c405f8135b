/*
 * columns.c -- string columns gathered by index (take_strings), entries
 * grouped by query code (group_by_query), integers as decimal text
 * (decimal_strings) and runs of consecutive values (ranges).
 */
#include "core.h"

/* Stable counting sort of entries 0 .. n-1 by codes[i] (0 <= code < nq):
 * order gets the entries grouped by code, qoffs (nq + 1 elements) the start
 * of each group; cur is room for nq values.  Returns the first i whose code
 * is outside [0, nq) (order and qoffs then unfinished), or -1. */
int64_t rl_group_by_code(const int64_t *codes, int64_t n, int64_t nq, int64_t *order,
                         int64_t *qoffs, int64_t *cur)
{
    const int64_t *c = codes;
    int64_t *q = qoffs, *o = order, i, bad = -1;
    memset(q, 0, ((size_t)nq + 1) * sizeof(int64_t));
    for (i = 0; i < n; i++) {
        int64_t v = c[i];
        if (v < 0 || v >= nq) {
            bad = i;
            break;
        }
        q[v + 1]++;
    }
    if (bad < 0) {
        for (i = 0; i < nq; i++)
            q[i + 1] += q[i];
        memcpy(cur, q, (size_t)nq * sizeof(int64_t));
        for (i = 0; i < n; i++)
            o[cur[c[i]]++] = i;
    }
    return bad;
}

/* The offsets (off2, m + 1 elements) and the byte count (*total) of the
 * column of n strings (offsets off) gathered at idx[0 .. m-1].  Returns the
 * first k whose idx[k] is outside [0, n) (off2 then unfinished), or -1. */
int64_t rl_take_offsets(const int64_t *idx, int64_t m, const int64_t *off, int64_t n,
                        int64_t *off2, int64_t *total)
{
    const int64_t *ix = idx, *of = off;
    int64_t *o2 = off2, k, bad = -1, t = 0;
    o2[0] = 0;
    for (k = 0; k < m; k++) {
        int64_t e = ix[k];
        if (e < 0 || e >= n) {
            bad = k;
            break;
        }
        t += of[e + 1] - of[e];
        o2[k + 1] = t;
    }
    *total = t;
    return bad;
}

/* The bytes of that gather: string idx[k] of (src, off) to dst at off2[k]. */
void rl_take_bytes(const int64_t *idx, int64_t m, const int64_t *off, const uint8_t *src,
                   const int64_t *off2, uint8_t *dst)
{
    const int64_t *ix = idx, *of = off, *o2 = off2;
    int64_t k;
    for (k = 0; k < m; k++) {
        int64_t e = ix[k];
        memcpy(dst + o2[k], src + of[e], (size_t)(o2[k + 1] - o2[k]));
    }
}

/* 10^1 .. 10^19. */
static const uint64_t POW10[19] = {
    UINT64_C(10),
    UINT64_C(100),
    UINT64_C(1000),
    UINT64_C(10000),
    UINT64_C(100000),
    UINT64_C(1000000),
    UINT64_C(10000000),
    UINT64_C(100000000),
    UINT64_C(1000000000),
    UINT64_C(10000000000),
    UINT64_C(100000000000),
    UINT64_C(1000000000000),
    UINT64_C(10000000000000),
    UINT64_C(100000000000000),
    UINT64_C(1000000000000000),
    UINT64_C(10000000000000000),
    UINT64_C(100000000000000000),
    UINT64_C(1000000000000000000),
    UINT64_C(10000000000000000000),
};

/* "00" "01" ... "99": two digits at a time. */
static const char PAIRS[201] = "00010203040506070809101112131415161718192021222324252627282930313233"
                               "34353637383940414243444546474849505152535455565758596061626364656667"
                               "6869707172737475767778798081828384858687888990919293949596979899";

/* The number of decimal digits of v (v == 0: 1), by comparisons (no division:
 * three times faster than dividing by 10 digit by digit, 2026-11-27). */
static inline int decimal_digits(uint64_t v)
{
    int d = 1;
    while (d < 20 && v >= POW10[d - 1])
        d++;
    return d;
}

/* |v| as an unsigned number (also for INT64_MIN). */
static uint64_t magnitude(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

int64_t rl_decimal_offsets(const int64_t *values, int64_t n, int64_t *offsets)
{
    int64_t i, t = 0;
    offsets[0] = 0;
    for (i = 0; i < n; i++) {
        t += decimal_digits(magnitude(values[i])) + (values[i] < 0);
        offsets[i + 1] = t;
    }
    return t;
}

void rl_decimal_bytes(const int64_t *values, int64_t n, const int64_t *offsets, uint8_t *data)
{
    int64_t i;
    for (i = 0; i < n; i++) {
        uint64_t m = magnitude(values[i]);
        uint8_t *end = data + offsets[i + 1];
        while (m >= 100) { /* two digits at a time, from the last */
            unsigned r = (unsigned)(m % 100);
            m /= 100;
            end -= 2;
            end[0] = (uint8_t)PAIRS[2 * r];
            end[1] = (uint8_t)PAIRS[2 * r + 1];
        }
        if (m >= 10) {
            end -= 2;
            end[0] = (uint8_t)PAIRS[2 * m];
            end[1] = (uint8_t)PAIRS[2 * m + 1];
        }
        else {
            *--end = (uint8_t)('0' + m);
        }
        if (values[i] < 0)
            *--end = '-';
    }
}

void rl_decimal_values(const uint8_t *data, const int64_t *off, int64_t n, int64_t *out)
{
    int64_t i;
    for (i = 0; i < n; i++) {
        const uint8_t *s = data + off[i];
        int64_t len = off[i + 1] - off[i], j, v = 0;
        int ok = len >= 1 && len <= RL_DECIMAL_DIGITS && (s[0] != '0' || len == 1);
        for (j = 0; ok && j < len; j++) {
            unsigned d = (unsigned)s[j] - (unsigned)'0';
            ok = d < 10u;
            v = v * 10 + (int64_t)d;
        }
        out[i] = ok ? v : -1;
    }
}

int64_t rl_ranges(const int64_t *starts, const int64_t *counts, int64_t m, int64_t step,
                  int64_t *out)
{
    int64_t j, i, at = 0;
    for (j = 0; j < m; j++) {
        uint64_t v = (uint64_t)starts[j]; /* wraps like numpy's int64, never undefined */
        for (i = 0; i < counts[j]; i++, v += (uint64_t)step)
            out[at++] = (int64_t)v;
    }
    return at;
}
