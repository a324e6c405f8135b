/*
 * pool.c -- the documents of several runs pooled per query (pool_runs, for
 * rank fusion).
 *
 * Each union query's documents are numbered in (run, rank) order of first
 * appearance, looked up in a generation-stamped hash table (gtable, core.h)
 * of each thread; a slot's idx is the query-local fused document, whose first
 * occurrence (entry * R + run) is kept in src, so keys are compared across
 * runs.  Pass 1 numbers and counts, pass 2 (after the caller allocated the
 * outputs) copies the fused docids and counts the runs of each document.  The
 * union queries are split over threads by their entry counts; the results do
 * not depend on the thread count.
 */
#include "core.h"

#include <stdlib.h>

/* One thread's share: union queries [u0, u1). */
typedef struct {
    const rl_pool_run *runs;
    const int64_t *const *inv; /* per run: union query -> the run's query, or -1 */
    int R;
    int64_t u0, u1;
    const int64_t *cap_start;   /* per union query: where its slots in src start */
    int64_t *src;               /* per slot: entry * R + run of its first occurrence */
    int64_t *count, *bytes;     /* per union query: fused documents, their bytes */
    const int64_t *fused_start; /* fused query offsets (pass 2) */
    const int64_t *byte_start;  /* where each union query's docid bytes start (pass 2) */
    uint8_t *out_data;
    int64_t *out_off, *out_count;
    gtable tab;
} pool_job;

struct rl_pool {
    pool_job jobs[RL_MAX_THREADS];
    int T, R;
    int64_t n_union;
    rl_pool_run *runs;
    int64_t **inv;
    int64_t *cap_start, *src, *count, *bytes, *byte_start;
};

static void *pool_pass1_job(void *arg)
{
    pool_job *J = (pool_job *)arg;
    const int R = J->R;
    int64_t u;
    for (u = J->u0; u < J->u1; u++) {
        int64_t *src = J->src + J->cap_start[u], local = 0, nbytes = 0;
        int r;
        gtable_clear(&J->tab);
        for (r = 0; r < R; r++) {
            const rl_pool_run *P = &J->runs[r];
            const int64_t j = J->inv[r][u];
            int64_t p;
            if (j < 0)
                continue;
            for (p = P->qo[j]; p < P->qo[j + 1]; p++) {
                const int64_t e = P->perm[p];
                const uint8_t *s = P->data + P->off[e];
                const size_t len = (size_t)(P->off[e + 1] - P->off[e]);
                const uint64_t h = hash_bytes(s, len);
                const uint32_t h32 = (uint32_t)h;
                size_t i = (size_t)(h >> 32) & J->tab.mask;
                slot_t *sl = J->tab.slots;
                int64_t found = -1;
                while (sl[i].gen == J->tab.gen) {
                    if (sl[i].h == h32) {
                        const int64_t code = src[sl[i].idx];
                        const rl_pool_run *Q = &J->runs[code % R];
                        const int64_t f = code / R;
                        if ((size_t)(Q->off[f + 1] - Q->off[f]) == len &&
                            memcmp(Q->data + Q->off[f], s, len) == 0) {
                            found = sl[i].idx;
                            break;
                        }
                    }
                    i = (i + 1) & J->tab.mask;
                }
                if (found < 0) {
                    sl[i].gen = J->tab.gen;
                    sl[i].h = h32;
                    sl[i].idx = local;
                    src[local] = e * R + r;
                    nbytes += (int64_t)len;
                    found = local++;
                }
                P->fid[p] = found;
                P->rank[p] = p - P->qo[j] + 1;
            }
        }
        J->count[u] = local;
        J->bytes[u] = nbytes;
    }
    return NULL;
}

static void *pool_pass2_job(void *arg)
{
    pool_job *J = (pool_job *)arg;
    const int R = J->R;
    int64_t u;
    for (u = J->u0; u < J->u1; u++) {
        const int64_t *src = J->src + J->cap_start[u];
        const int64_t start = J->fused_start[u];
        int64_t at = J->byte_start[u], k;
        int r;
        for (k = 0; k < J->count[u]; k++) {
            const rl_pool_run *Q = &J->runs[src[k] % R];
            const int64_t f = src[k] / R;
            const int64_t len = Q->off[f + 1] - Q->off[f];
            J->out_off[start + k] = at;
            memcpy(J->out_data + at, Q->data + Q->off[f], (size_t)len);
            at += len;
        }
        for (r = 0; r < R; r++) {
            const rl_pool_run *P = &J->runs[r];
            const int64_t j = J->inv[r][u];
            int64_t p;
            if (j < 0)
                continue;
            for (p = P->qo[j]; p < P->qo[j + 1]; p++) {
                P->fid[p] += start;
                J->out_count[P->fid[p]]++;
            }
        }
    }
    return NULL;
}

rl_pool *rl_pool_new(rl_pool_run *runs, int R, int64_t n_union, int threads)
{
    int64_t first[RL_MAX_THREADS + 1], u, j, total, maxcap = 0;
    const size_t nu = (size_t)n_union + 1;
    int r, t;
    rl_pool *P = (rl_pool *)calloc(1, sizeof(rl_pool));
    if (P == NULL)
        return NULL;
    P->R = R;
    P->n_union = n_union;
    P->runs = runs;
    P->inv = (int64_t **)calloc((size_t)(R > 0 ? R : 1), sizeof(int64_t *));
    P->cap_start = (int64_t *)calloc(nu, sizeof(int64_t));
    P->count = (int64_t *)calloc(nu, sizeof(int64_t));
    P->bytes = (int64_t *)calloc(nu, sizeof(int64_t));
    P->byte_start = (int64_t *)calloc(nu, sizeof(int64_t));
    if (P->inv == NULL || P->cap_start == NULL || P->count == NULL || P->bytes == NULL ||
        P->byte_start == NULL)
        goto nomem;
    for (r = 0; r < R; r++) {
        const rl_pool_run *X = &runs[r];
        int64_t *inv = (int64_t *)malloc(nu * sizeof(int64_t));
        if (inv == NULL)
            goto nomem;
        P->inv[r] = inv;
        for (u = 0; u < n_union; u++)
            inv[u] = -1;
        for (j = 0; j < X->nq; j++) {
            inv[X->qmap[j]] = j;
            P->cap_start[X->qmap[j] + 1] += X->qo[j + 1] - X->qo[j];
        }
    }
    for (u = 0; u < n_union; u++) {
        if (P->cap_start[u + 1] > maxcap)
            maxcap = P->cap_start[u + 1];
        P->cap_start[u + 1] += P->cap_start[u];
    }
    total = P->cap_start[n_union];
    P->src = (int64_t *)malloc(((size_t)total + 1) * sizeof(int64_t));
    if (P->src == NULL)
        goto nomem;
    P->T = rl_worker_threads(total, threads);
    if (P->T > RL_MAX_THREADS)
        P->T = RL_MAX_THREADS;
    rl_split_queries(P->cap_start, n_union, P->T, first);
    for (t = 0; t < P->T; t++) {
        pool_job *J = &P->jobs[t];
        J->runs = runs;
        J->inv = (const int64_t *const *)P->inv;
        J->R = R;
        J->u0 = first[t];
        J->u1 = first[t + 1];
        J->cap_start = P->cap_start;
        J->src = P->src;
        J->count = P->count;
        J->bytes = P->bytes;
        J->byte_start = P->byte_start;
        if (gtable_init(&J->tab, (size_t)maxcap) < 0)
            goto nomem;
    }
    return P;
nomem:
    rl_pool_free(P);
    return NULL;
}

void rl_pool_pass1(rl_pool *P)
{
    rl_run_jobs(pool_pass1_job, P->jobs, sizeof(pool_job), P->T);
}

int64_t rl_pool_offsets(const rl_pool *P, int64_t *fq)
{
    int64_t u;
    fq[0] = 0;
    P->byte_start[0] = 0;
    for (u = 0; u < P->n_union; u++) {
        fq[u + 1] = fq[u] + P->count[u];
        P->byte_start[u + 1] = P->byte_start[u] + P->bytes[u];
    }
    return P->byte_start[P->n_union];
}

void rl_pool_pass2(rl_pool *P, const int64_t *fq, uint8_t *out_data, int64_t *out_off,
                   int64_t *out_count)
{
    int t;
    const int64_t n_fused = fq[P->n_union];
    memset(out_count, 0, (size_t)n_fused * sizeof(int64_t));
    out_off[n_fused] = P->byte_start[P->n_union];
    for (t = 0; t < P->T; t++) {
        P->jobs[t].fused_start = fq;
        P->jobs[t].out_data = out_data;
        P->jobs[t].out_off = out_off;
        P->jobs[t].out_count = out_count;
    }
    rl_run_jobs(pool_pass2_job, P->jobs, sizeof(pool_job), P->T);
}

void rl_pool_free(rl_pool *P)
{
    int r, t;
    if (P == NULL)
        return;
    for (t = 0; t < RL_MAX_THREADS; t++)
        free(P->jobs[t].tab.slots);
    if (P->inv != NULL) {
        for (r = 0; r < P->R; r++)
            free(P->inv[r]);
    }
    free(P->inv);
    free(P->cap_start);
    free(P->src);
    free(P->count);
    free(P->bytes);
    free(P->byte_start);
    free(P);
}

/* ------------------------------------------------------------------------ */
/* affine_sum: normalised scores added up per fused document                 */
/* ------------------------------------------------------------------------ */

typedef struct {
    const rl_affine_run *run;
    int clip, bad;
    int64_t j0, j1, n_total;
    double *total;
} affine_job;

static void *affine_job_run(void *arg)
{
    affine_job *J = (affine_job *)arg;
    const rl_affine_run *A = J->run;
    const double w = A->weight;
    int64_t j, p;
    for (j = J->j0; j < J->j1; j++) {
        const double shift = A->shift[j], scale = A->scale[j];
        const int flat = A->flat[j] != 0;
        for (p = A->qo[j]; p < A->qo[j + 1]; p++) {
            const int64_t e = A->perm[p], f = A->fid[p];
            double v;
            if (e < 0 || e >= A->n || f < 0 || f >= J->n_total) {
                J->bad = 1;
                return NULL;
            }
            v = flat ? 1.0 : (A->scores[e] - shift) / scale;
            if (J->clip && !(v > 0.0) && v == v)
                v = 0.0;
            if (w != 1.0)
                v = w * v;
            J->total[f] += v;
        }
    }
    return NULL;
}

int rl_affine_sum(const rl_affine_run *run, int clip, double *total, int64_t n_total,
                  int threads)
{
    affine_job jobs[RL_MAX_THREADS];
    int64_t first[RL_MAX_THREADS + 1];
    int T = rl_worker_threads(run->n, threads), t;
    if (T > RL_MAX_THREADS)
        T = RL_MAX_THREADS;
    rl_split_queries(run->qo, run->nq, T, first);
    for (t = 0; t < T; t++) {
        jobs[t].run = run;
        jobs[t].clip = clip;
        jobs[t].bad = 0;
        jobs[t].j0 = first[t];
        jobs[t].j1 = first[t + 1];
        jobs[t].n_total = n_total;
        jobs[t].total = total;
    }
    rl_run_jobs(affine_job_run, jobs, sizeof(affine_job), T);
    for (t = 0; t < T; t++) {
        if (jobs[t].bad)
            return -1;
    }
    return 0;
}
