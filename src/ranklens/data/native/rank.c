/*
 * rank.c -- ranking each query by score, descending, with a tie policy.
 *
 * Queries already in score order only get their ties sorted; small ones are
 * merge sorted; large ones radix sorted on the top bits of the score and
 * finished with the full comparator.  Queries are split over threads.
 */
#include "core.h"

#include <stdlib.h>

enum { POLICY_TREC = 0, POLICY_INPUT = 1, POLICY_DOCID_ASC = 2 };

typedef struct {
    const double *scores;
    const uint8_t *data;
    const int64_t *off;
    int policy;
    int full; /* compare scores first (else: only the tie key) */
} rctx;

/* < 0 when entry a ranks before entry b. */
static inline int rcmp(const rctx *c, int64_t a, int64_t b)
{
    if (c->full) {
        double sa = c->scores[a], sb = c->scores[b];
        if (sa > sb)
            return -1;
        if (sa < sb)
            return 1;
    }
    if (c->policy != POLICY_INPUT) {
        int r = cmp_bytes(c->data + c->off[a], (size_t)(c->off[a + 1] - c->off[a]),
                          c->data + c->off[b], (size_t)(c->off[b + 1] - c->off[b]));
        if (r)
            return c->policy == POLICY_TREC ? (r < 0 ? 1 : -1) : r;
    }
    return (a > b) - (a < b);
}

/* Merge sort of entry indices (insertion sort for short runs).  tmp must
 * hold n / 2 + 1 elements. */
static void msort_idx(int64_t *a, int64_t *tmp, size_t n, const rctx *c)
{
    size_t h, i, j, k;
    if (n <= 16) {
        for (i = 1; i < n; i++) {
            int64_t x = a[i];
            j = i;
            while (j > 0 && rcmp(c, x, a[j - 1]) < 0) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    h = n / 2;
    msort_idx(a, tmp, h, c);
    msort_idx(a + h, tmp, n - h, c);
    if (rcmp(c, a[h - 1], a[h]) <= 0)
        return;
    memcpy(tmp, a, h * sizeof(int64_t));
    i = 0;
    j = h;
    k = 0;
    while (i < h && j < n) {
        if (rcmp(c, tmp[i], a[j]) <= 0)
            a[k++] = tmp[i++];
        else
            a[k++] = a[j++];
    }
    while (i < h)
        a[k++] = tmp[i++];
}

/* Sorts a short run (typically 2 or 3 tied entries) or hands it to msort. */
static inline void sort_run(int64_t *a, int64_t *tmp, size_t n, const rctx *c)
{
    if (n == 2) {
        if (rcmp(c, a[1], a[0]) < 0) {
            int64_t x = a[0];
            a[0] = a[1];
            a[1] = x;
        }
    }
    else {
        msort_idx(a, tmp, n, c);
    }
}

/* Order-preserving map of a finite double to uint64, -0.0 equal to 0.0,
 * inverted so that ascending keys mean descending scores. */
static inline uint64_t desc_key(double d)
{
    uint64_t u;
    d = d + 0.0; /* -0.0 -> +0.0 */
    memcpy(&u, &d, 8);
    u ^= (uint64_t)((int64_t)u >> 63) | (UINT64_C(1) << 63); /* branch-free */
    return ~u;
}

/* Stable LSD radix sort of a[0..n) on the high 32 bits (4 passes of 8 bits,
 * skipping the passes where every key has the same digit); returns the
 * buffer (a or b) holding the result. */
static uint64_t *radix_sort_hi32(uint64_t *a, uint64_t *b, size_t n)
{
    uint32_t hist[4][256];
    size_t i;
    int d;
    uint64_t *src = a, *dst = b, *t;
    memset(hist, 0, sizeof(hist));
    for (i = 0; i < n; i++) {
        uint64_t k = a[i];
        hist[0][(k >> 32) & 255]++;
        hist[1][(k >> 40) & 255]++;
        hist[2][(k >> 48) & 255]++;
        hist[3][(k >> 56) & 255]++;
    }
    for (d = 0; d < 4; d++) {
        uint32_t *h = hist[d], sum = 0, x;
        int shift = 32 + 8 * d, v;
        if (h[(src[0] >> shift) & 255] == n)
            continue;
        for (v = 0; v < 256; v++) {
            x = h[v];
            h[v] = sum;
            sum += x;
        }
        for (i = 0; i < n; i++) {
            uint64_t k = src[i];
            dst[h[(k >> shift) & 255]++] = k;
        }
        t = src;
        src = dst;
        dst = t;
    }
    return src;
}

#define SMALL_SORT 48

/* Ranks every segment.  A segment already in score order only needs its
 * runs of equal scores sorted by the tie key.  Otherwise, small segments
 * are merge sorted with the full comparator; larger ones are radix sorted
 * on the top 32 bits of the score key (with the segment-local index in the
 * low 32 bits, so the sort is stable), and each run of equal top bits is
 * then finished with the full comparator. */
static void rank_segments(const rctx *base, const int64_t *qo, int64_t nq, int64_t *perm,
                          uint64_t *bufa, uint64_t *bufb, int64_t *tmp)
{
    rctx full = *base, tie = *base;
    const double *sc = base->scores;
    int64_t j;
    full.full = 1;
    tie.full = 0;
    for (j = 0; j < nq; j++) {
        int64_t a = qo[j], b = qo[j + 1], len = b - a, t, r;
        int64_t *out = perm + a;
        int sorted = 1;
        if (len <= 0)
            continue;
        for (t = a; t + 1 < b; t++) {
            if (sc[t + 1] > sc[t]) {
                sorted = 0;
                break;
            }
        }
        if (sorted) {
            for (t = 0; t < len; t++)
                out[t] = a + t;
            if (base->policy == POLICY_INPUT)
                continue;
            for (t = 0; t < len; t = r) {
                for (r = t + 1; r < len && sc[a + r] == sc[a + t]; r++) {
                }
                if (r - t > 1)
                    sort_run(out + t, tmp, (size_t)(r - t), &tie);
            }
        }
        else if (len <= SMALL_SORT || (uint64_t)len > UINT32_MAX) {
            for (t = 0; t < len; t++)
                out[t] = a + t;
            msort_idx(out, tmp, (size_t)len, &full);
        }
        else {
            uint64_t *res;
            for (t = 0; t < len; t++)
                bufa[t] = (desc_key(sc[a + t]) & UINT64_C(0xFFFFFFFF00000000)) | (uint64_t)t;
            res = radix_sort_hi32(bufa, bufb, (size_t)len);
            for (t = 0; t < len; t++)
                out[t] = a + (int64_t)(res[t] & 0xFFFFFFFFu);
            for (t = 0; t < len; t = r) {
                uint64_t hk = res[t] >> 32;
                for (r = t + 1; r < len && (res[r] >> 32) == hk; r++) {
                }
                if (r - t > 1)
                    sort_run(out + t, tmp, (size_t)(r - t), &full);
            }
        }
    }
}

/* One thread's share of rank: queries [q0, q1) with buffers of its own. */
typedef struct {
    const rctx *ctx;
    const int64_t *qo;
    int64_t q0, q1;
    int64_t *perm;
    uint64_t *kva, *kvb;
    int64_t *tmp;
} rank_job;

static void *rank_run_job(void *arg)
{
    rank_job *J = (rank_job *)arg;
    rank_segments(J->ctx, J->qo + J->q0, J->q1 - J->q0, J->perm, J->kva, J->kvb, J->tmp);
    return NULL;
}

/* Ranks queries [0, nq) on T threads (or serially), each with its own
 * buffers for maxlen entries.  Returns -1 when out of memory. */
static int rank_parallel(const rctx *ctx, const int64_t *qo, int64_t nq, int64_t *perm,
                         int64_t maxlen, int T)
{
    rank_job jobs[RL_MAX_THREADS];
    int64_t first[RL_MAX_THREADS + 1];
    int t, made = 0, rc = 0;
    if (T > RL_MAX_THREADS)
        T = RL_MAX_THREADS;
    rl_split_queries(qo, nq, T, first);
    for (t = 0; t < T; t++) {
        rank_job *J = &jobs[t];
        J->ctx = ctx;
        J->qo = qo;
        J->perm = perm;
        J->q0 = first[t];
        J->q1 = first[t + 1];
        J->kva = (uint64_t *)malloc(((size_t)maxlen + 1) * sizeof(uint64_t));
        J->kvb = (uint64_t *)malloc(((size_t)maxlen + 1) * sizeof(uint64_t));
        J->tmp = (int64_t *)malloc(((size_t)maxlen / 2 + 1) * sizeof(int64_t));
        made = t + 1;
        if (!J->kva || !J->kvb || !J->tmp) {
            rc = -1;
            break;
        }
    }
    if (rc == 0)
        rl_run_jobs(rank_run_job, jobs, sizeof(rank_job), T);
    for (t = 0; t < made; t++) {
        free(jobs[t].kva);
        free(jobs[t].kvb);
        free(jobs[t].tmp);
    }
    return rc;
}

int rl_rank(const double *scores, const uint8_t *data, const int64_t *off, int policy,
            const int64_t *qo, int64_t nq, int64_t *perm, int64_t maxlen, int T)
{
    rctx ctx;
    ctx.scores = scores;
    ctx.data = data;
    ctx.off = off;
    ctx.policy = policy;
    ctx.full = 1;
    return rank_parallel(&ctx, qo, nq, perm, maxlen, T);
}
