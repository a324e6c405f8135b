/*
 * runtext.c -- TREC run text (format_run): lines "qid Q0 docid rank score
 * tag", each score as Python's repr(float) writes it, on up to min(cores, 8)
 * threads (the text does not depend on the count).
 *
 * A score's text is the shortest text that reads back as the double.
 * The digits: the shortest decimal in the double's rounding interval and, of
 * those, the closest to it (ties to an even digit), which is what Python's
 * repr (David Gay's dtoa, mode 0) gives; found as in Ulf Adams' Ryu (PLDI
 * 2018): the interval bounds are scaled by a 128-bit power of 5 (the tables
 * of tools/make_shortest_tables.py) and digits are removed while the bounds
 * still differ.  The layout is repr's: positional (with ".0" for whole
 * numbers) from 1e-4 up to below 1e16, else d.ddde+XX; "nan", "inf", "-0.0".
 * tests/test_io.py checks it against repr on doubles of every kind.
 */
#include "core.h"

#include <string.h>

#include "shortest_tables.h"

#define MANTISSA_BITS 52
#define EXPONENT_BITS 11
#define BIAS 1023
#define POW5_INV_BITS 125
#define POW5_BITS 125

static int pow5bits(int e) { return (int)(((uint32_t)e * 1217359u) >> 19) + 1; }
static int log10_pow2(int e) { return (int)(((uint32_t)e * 78913u) >> 18); }
static int log10_pow5(int e) { return (int)(((uint32_t)e * 732923u) >> 20); }

static int pow5_factor(uint64_t v)
{
    int count = 0;
    while (v % 5 == 0) {
        v /= 5;
        count++;
    }
    return count;
}

static int multiple_of_pow5(uint64_t v, int p) { return pow5_factor(v) >= p; }
static int multiple_of_pow2(uint64_t v, int p) { return (v & ((UINT64_C(1) << p) - 1)) == 0; }

#if !defined(__SIZEOF_INT128__)
/* a * b as a 128-bit (low, high) pair, from 32-bit halves (no __int128 here). */
static void mul_64x64(uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi)
{
    const uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    const uint64_t p0 = al * bl, p1 = al * bh, p2 = ah * bl, p3 = ah * bh;
    const uint64_t m1 = (p0 >> 32) + (p1 & 0xffffffffu) + (p2 & 0xffffffffu);
    *lo = (p0 & 0xffffffffu) | (m1 << 32);
    *hi = p3 + (p1 >> 32) + (p2 >> 32) + (m1 >> 32);
}
#endif

/* (m * mul) >> j for the 128-bit mul = (low, high) and 64 <= j < 128 + 64. */
static uint64_t mul_shift(uint64_t m, const uint64_t *mul, int j)
{
#if defined(__SIZEOF_INT128__)
    const unsigned __int128 b0 = (unsigned __int128)m * mul[0];
    const unsigned __int128 b2 = (unsigned __int128)m * mul[1];
    return (uint64_t)(((b0 >> 64) + b2) >> (j - 64));
#else
    /* 64 x 64 -> 128 products from 32-bit halves */
    uint64_t lo0, hi0, lo2, hi2, mid, sum_lo, sum_hi;
    mul_64x64(m, mul[0], &lo0, &hi0);
    mul_64x64(m, mul[1], &lo2, &hi2);
    (void)lo0;
    mid = hi0;
    sum_lo = lo2 + mid;
    sum_hi = hi2 + (sum_lo < lo2);
    j -= 64;
    if (j == 0)
        return sum_lo;
    if (j >= 64)
        return sum_hi >> (j - 64);
    return (sum_hi << (64 - j)) | (sum_lo >> j);
#endif
}

/* The shortest decimal of a finite nonzero double: digits (returned) and the
 * power of 10 (*exp10), value = digits * 10^exp10. */
static uint64_t shortest_digits(uint64_t mantissa, uint32_t exponent, int *exp10)
{
    int e2, e10, removed = 0;
    uint64_t m2, mv, vr, vp, vm, output;
    uint32_t mm_shift;
    int vm_zeros = 0, vr_zeros = 0, accept;
    int last = 0;
    if (exponent == 0) {
        e2 = 1 - BIAS - MANTISSA_BITS - 2;
        m2 = mantissa;
    } else {
        e2 = (int)exponent - BIAS - MANTISSA_BITS - 2;
        m2 = (UINT64_C(1) << MANTISSA_BITS) | mantissa;
    }
    accept = (m2 & 1) == 0;
    mv = 4 * m2;
    mm_shift = mantissa != 0 || exponent <= 1;
    if (e2 >= 0) {
        const int q = log10_pow2(e2) - (e2 > 3);
        const int k = POW5_INV_BITS + pow5bits(q) - 1;
        const int i = -e2 + q + k;
        e10 = q;
        vr = mul_shift(4 * m2, POW5_INV[q], i);
        vp = mul_shift(4 * m2 + 2, POW5_INV[q], i);
        vm = mul_shift(4 * m2 - 1 - mm_shift, POW5_INV[q], i);
        if (q <= 21) {
            if (mv % 5 == 0)
                vr_zeros = multiple_of_pow5(mv, q);
            else if (accept)
                vm_zeros = multiple_of_pow5(mv - 1 - mm_shift, q);
            else
                vp -= (uint64_t)multiple_of_pow5(mv + 2, q);
        }
    } else {
        const int q = log10_pow5(-e2) - (-e2 > 1);
        const int i = -e2 - q;
        const int k = pow5bits(i) - POW5_BITS;
        const int j = q - k;
        e10 = q + e2;
        vr = mul_shift(4 * m2, POW5[i], j);
        vp = mul_shift(4 * m2 + 2, POW5[i], j);
        vm = mul_shift(4 * m2 - 1 - mm_shift, POW5[i], j);
        if (q <= 1) {
            vr_zeros = 1;
            if (accept)
                vm_zeros = mm_shift == 1;
            else
                vp--;
        } else if (q < 63) {
            vr_zeros = multiple_of_pow2(mv, q);
        }
    }
    if (vm_zeros || vr_zeros) {
        while (vp / 10 > vm / 10) {
            vm_zeros &= vm % 10 == 0;
            vr_zeros &= last == 0;
            last = (int)(vr % 10);
            vr /= 10;
            vp /= 10;
            vm /= 10;
            removed++;
        }
        if (vm_zeros) {
            while (vm % 10 == 0) {
                vr_zeros &= last == 0;
                last = (int)(vr % 10);
                vr /= 10;
                vp /= 10;
                vm /= 10;
                removed++;
            }
        }
        if (vr_zeros && last == 5 && vr % 2 == 0)
            last = 4; /* exactly half-way: round to even */
        output = vr + (uint64_t)((vr == vm && (!accept || !vm_zeros)) || last >= 5);
    } else {
        int round_up = 0;
        if (vp / 100 > vm / 100) {
            round_up = vr % 100 >= 50;
            vr /= 100;
            vp /= 100;
            vm /= 100;
            removed += 2;
        }
        while (vp / 10 > vm / 10) {
            round_up = vr % 10 >= 5;
            vr /= 10;
            vp /= 10;
            vm /= 10;
            removed++;
        }
        output = vr + (uint64_t)(vr == vm || round_up);
    }
    *exp10 = e10 + removed;
    return output;
}

int rl_shortest_repr(double value, char *out)
{
    uint64_t bits, mantissa, digits_value;
    uint32_t exponent;
    char digits[24];
    int nd = 0, exp10, decpt, i, w = 0;
    memcpy(&bits, &value, sizeof bits);
    mantissa = bits & ((UINT64_C(1) << MANTISSA_BITS) - 1);
    exponent = (uint32_t)((bits >> MANTISSA_BITS) & ((1u << EXPONENT_BITS) - 1));
    if (exponent == (1u << EXPONENT_BITS) - 1 && mantissa != 0) {
        memcpy(out, "nan", 3); /* repr gives every NaN as "nan" */
        return 3;
    }
    if (bits >> 63)
        out[w++] = '-';
    if (exponent == (1u << EXPONENT_BITS) - 1) {
        memcpy(out + w, "inf", 3);
        return w + 3;
    }
    if (exponent == 0 && mantissa == 0) {
        memcpy(out + w, "0.0", 3);
        return w + 3;
    }
    digits_value = shortest_digits(mantissa, exponent, &exp10);
    {
        char rev[24];
        int n = 0;
        do {
            rev[n++] = (char)('0' + digits_value % 10);
            digits_value /= 10;
        } while (digits_value > 0);
        while (n > 0)
            digits[nd++] = rev[--n];
    }
    decpt = nd + exp10; /* value = 0.digits * 10^decpt */
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            out[w++] = '0';
            out[w++] = '.';
            for (i = 0; i < -decpt; i++)
                out[w++] = '0';
            memcpy(out + w, digits, (size_t)nd);
            w += nd;
        } else if (decpt >= nd) {
            memcpy(out + w, digits, (size_t)nd);
            w += nd;
            for (i = nd; i < decpt; i++)
                out[w++] = '0';
            out[w++] = '.';
            out[w++] = '0';
        } else {
            memcpy(out + w, digits, (size_t)decpt);
            w += decpt;
            out[w++] = '.';
            memcpy(out + w, digits + decpt, (size_t)(nd - decpt));
            w += nd - decpt;
        }
    } else {
        int e = decpt - 1, ae;
        out[w++] = digits[0];
        if (nd > 1) {
            out[w++] = '.';
            memcpy(out + w, digits + 1, (size_t)(nd - 1));
            w += nd - 1;
        }
        out[w++] = 'e';
        out[w++] = e < 0 ? '-' : '+';
        ae = e < 0 ? -e : e;
        if (ae >= 100)
            out[w++] = (char)('0' + ae / 100);
        out[w++] = (char)('0' + (ae / 10) % 10);
        out[w++] = (char)('0' + ae % 10);
    }
    return w;
}

/* ------------------------------------------------------------------------ */
/* the lines                                                                  */
/* ------------------------------------------------------------------------ */

/* The longest score text: "-2.2250738585072014e-308" (24 bytes). */
#define SCORE_TEXT_MAX 25
/* The longest rank: 19 digits. */
#define RANK_TEXT_MAX 19

typedef struct {
    const rl_run_text *R;
    int64_t q0, q1;
    char *buf;
    int64_t len;
    int bad; /* 1: order out of bounds, 2: out of memory */
} text_job;

static void *text_job_run(void *arg)
{
    text_job *J = (text_job *)arg;
    const rl_run_text *R = J->R;
    int64_t j, p, bound = 0;
    char *w;
    for (j = J->q0; j < J->q1; j++) {
        const int64_t lines = R->qo[j + 1] - R->qo[j];
        bound += lines * ((R->qid_off[j + 1] - R->qid_off[j]) + RANK_TEXT_MAX + SCORE_TEXT_MAX +
                          (int64_t)R->tag_len + 8);
        for (p = R->qo[j]; p < R->qo[j + 1]; p++) {
            const int64_t e = R->order[p];
            if (e < 0 || e >= R->n) {
                J->bad = 1;
                return NULL;
            }
            bound += R->doc_off[e + 1] - R->doc_off[e];
        }
    }
    J->buf = (char *)malloc((size_t)bound + 1);
    if (J->buf == NULL) {
        J->bad = 2;
        return NULL;
    }
    w = J->buf;
    for (j = J->q0; j < J->q1; j++) {
        const uint8_t *qid = R->qid_data + R->qid_off[j];
        const size_t qid_len = (size_t)(R->qid_off[j + 1] - R->qid_off[j]);
        for (p = R->qo[j]; p < R->qo[j + 1]; p++) {
            const int64_t e = R->order[p];
            const size_t doc_len = (size_t)(R->doc_off[e + 1] - R->doc_off[e]);
            char digits[RANK_TEXT_MAX + 1];
            int nd = 0;
            uint64_t rank = (uint64_t)(p - R->qo[j] + 1);
            memcpy(w, qid, qid_len);
            w += qid_len;
            memcpy(w, " Q0 ", 4);
            w += 4;
            memcpy(w, R->doc_data + R->doc_off[e], doc_len);
            w += doc_len;
            *w++ = ' ';
            do {
                digits[nd++] = (char)('0' + rank % 10);
                rank /= 10;
            } while (rank > 0);
            while (nd > 0)
                *w++ = digits[--nd];
            *w++ = ' ';
            w += rl_shortest_repr(R->scores[e], w);
            *w++ = ' ';
            memcpy(w, R->tag, R->tag_len);
            w += R->tag_len;
            *w++ = '\n';
        }
    }
    J->len = (int64_t)(w - J->buf);
    return NULL;
}

int rl_format_run(const rl_run_text *R, int64_t q_lo, int64_t q_hi, int threads,
                  rl_text_part *parts)
{
    text_job jobs[RL_MAX_THREADS];
    int64_t first[RL_MAX_THREADS + 1];
    int T = rl_worker_threads(R->qo[q_hi] - R->qo[q_lo], threads), t, bad = 0;
    if (T > RL_MAX_THREADS)
        T = RL_MAX_THREADS;
    rl_split_queries(R->qo + q_lo, q_hi - q_lo, T, first);
    for (t = 0; t < T; t++) {
        jobs[t].R = R;
        jobs[t].q0 = q_lo + first[t];
        jobs[t].q1 = q_lo + first[t + 1];
        jobs[t].buf = NULL;
        jobs[t].len = 0;
        jobs[t].bad = 0;
    }
    rl_run_jobs(text_job_run, jobs, sizeof(text_job), T);
    for (t = 0; t < RL_MAX_THREADS; t++) {
        parts[t].buf = t < T ? jobs[t].buf : NULL;
        parts[t].len = t < T ? jobs[t].len : 0;
        if (t < T && jobs[t].bad > bad)
            bad = jobs[t].bad;
    }
    return bad;
}
