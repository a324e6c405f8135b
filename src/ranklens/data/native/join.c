/*
 * join.c -- docids looked up per query: the repeated docids of each query
 * (find_duplicates) and the judgments of a ranked run from its qrels (align).
 *
 * Both look docids up in a generation-stamped hash table (gtable, core.h) of
 * their own per thread, cleared for each query with one increment, and split
 * the queries over threads; the results do not depend on the thread count.
 */
#include "core.h"

#include <stdlib.h>

/* ------------------------------------------------------------------------ */
/* find_duplicates                                                            */
/* ------------------------------------------------------------------------ */

/* One thread's share of find_duplicates: queries [q0, q1), with its own
 * table and its own lists of (duplicate, first occurrence). */
typedef struct {
    const int64_t *qo, *off, *order;
    const uint8_t *data;
    int64_t limit, q0, q1;
    gtable tab;
    int64_t *dup, *first;
    size_t m, cap;
    int nomem;
} dup_job;

static void *dup_run_job(void *arg)
{
    dup_job *J = (dup_job *)arg;
    const int64_t *q = J->qo, *off = J->off, *o = J->order;
    int64_t j;
    for (j = J->q0; j < J->q1 && !J->nomem; j++) {
        int64_t a = q[j], len = q[j + 1] - a, t;
        if (J->limit >= 0 && len > J->limit)
            len = J->limit;
        if (len < 2)
            continue;
        gtable_clear(&J->tab);
        for (t = 0; t < len; t++) {
            int64_t e = o ? o[a + t] : a + t, f;
            f = gtable_find_or_insert(&J->tab, J->data, off, J->data + off[e],
                                      (size_t)(off[e + 1] - off[e]), e);
            if (f >= 0) {
                if (J->m >= J->cap) {
                    size_t c1 = J->cap, c2 = J->cap;
                    if (rl_grow((void **)&J->dup, &c1, J->m + 1, sizeof(int64_t)) ||
                        rl_grow((void **)&J->first, &c2, J->m + 1, sizeof(int64_t))) {
                        J->nomem = 1;
                        break;
                    }
                    J->cap = c1 < c2 ? c1 : c2;
                }
                J->dup[J->m] = e;
                J->first[J->m] = f;
                J->m++;
            }
        }
    }
    return NULL;
}

struct rl_dups {
    dup_job jobs[RL_MAX_THREADS];
    int T;
};

rl_dups *rl_dups_new(const int64_t *qo, int64_t nq, const uint8_t *data, const int64_t *off,
                     const int64_t *order, int64_t limit, int64_t maxw, int T)
{
    int64_t first[RL_MAX_THREADS + 1];
    int t, nomem = 0;
    rl_dups *D = (rl_dups *)calloc(1, sizeof(rl_dups));
    if (D == NULL)
        return NULL;
    if (T > RL_MAX_THREADS)
        T = RL_MAX_THREADS;
    D->T = T;
    rl_split_queries(qo, nq, T, first);
    for (t = 0; t < T; t++) {
        dup_job *J = &D->jobs[t];
        J->qo = qo;
        J->off = off;
        J->order = order;
        J->data = data;
        J->limit = limit;
        J->q0 = first[t];
        J->q1 = first[t + 1];
        if (gtable_init(&J->tab, (size_t)maxw) < 0)
            nomem = 1;
    }
    if (nomem) {
        rl_dups_free(D);
        return NULL;
    }
    return D;
}

void rl_dups_run(rl_dups *D)
{
    rl_run_jobs(dup_run_job, D->jobs, sizeof(dup_job), D->T);
}

int64_t rl_dups_count(const rl_dups *D)
{
    size_t m = 0;
    int t, nomem = 0;
    for (t = 0; t < D->T; t++) {
        nomem |= D->jobs[t].nomem;
        m += D->jobs[t].m;
    }
    return nomem ? -1 : (int64_t)m;
}

void rl_dups_copy(const rl_dups *D, int64_t *dup, int64_t *first)
{
    size_t at = 0;
    int t;
    for (t = 0; t < D->T; t++) {
        if (D->jobs[t].m) {
            memcpy(dup + at, D->jobs[t].dup, D->jobs[t].m * sizeof(int64_t));
            memcpy(first + at, D->jobs[t].first, D->jobs[t].m * sizeof(int64_t));
        }
        at += D->jobs[t].m;
    }
}

void rl_dups_free(rl_dups *D)
{
    int t;
    if (D == NULL)
        return;
    for (t = 0; t < RL_MAX_THREADS; t++) {
        free(D->jobs[t].tab.slots);
        free(D->jobs[t].dup);
        free(D->jobs[t].first);
    }
    free(D);
}

/* ------------------------------------------------------------------------ */
/* align                                                                      */
/* ------------------------------------------------------------------------ */

/* The tie notice of one query, on its ranked judgments out[0..len): the 0-based
 * rank where the first group of equal scores holding documents of different gains
 * (max(judgment, 0)) begins, among the groups that begin before rank `limit`
 * (limit < 0: all), or -1 when there is none.  A group that the limit cuts counts
 * with all its documents: which of them stay is the tie-breaking's choice.  Runs
 * right after the join of the query, on data still in cache. */
static int64_t first_mixed_tie(const int64_t *out, const int64_t *perm, const double *scores,
                               int64_t len, int64_t limit)
{
    int64_t t, start = 0, gain;
    double prev;
    if (len < 2 || limit == 0)
        return -1;
    prev = scores[perm[0]];
    gain = out[0] > 0 ? out[0] : 0;
    for (t = 1; t < len; t++) {
        double s = scores[perm[t]];
        int64_t g = out[t] > 0 ? out[t] : 0;
        if (s == prev) {
            if (g != gain)
                return start;
        }
        else {
            if (limit >= 0 && t >= limit)
                break; /* the next group begins beyond the limit */
            start = t;
            gain = g;
            prev = s;
        }
    }
    return -1;
}

/* One thread's share of align: run queries [q0, q1), with its own table. */
typedef struct {
    rl_align_args a;
    int64_t q0, q1, bad;
    gtable tab;
} align_job;

static void *align_run_job(void *arg)
{
    align_job *J = (align_job *)arg;
    const int64_t *rq = J->a.rq, *roff = J->a.roff, *perm = J->a.perm, *r2q = J->a.r2q;
    const int64_t *qq = J->a.qq, *qoff = J->a.qoff, *qrel = J->a.qrel;
    const uint8_t *rdata = J->a.rdata, *qdata = J->a.qdata;
    const int64_t n_run = J->a.n_run;
    int64_t *out = J->a.out, j, bad = -1;
    gtable *tab = &J->tab;
    for (j = J->q0; j < J->q1 && bad < 0; j++) {
        int64_t ra = rq[j], rb = rq[j + 1], kq = r2q[j], i, t;
        if (J->a.ties != NULL)
            J->a.ties[j] = -1;
        if (kq < 0 || qq[kq + 1] == qq[kq]) { /* all unjudged: gains 0, no mixed ties */
            for (i = ra; i < rb; i++) {
                if (perm[i] < 0 || perm[i] >= n_run) {
                    bad = i;
                    break;
                }
                out[i] = -1;
            }
            continue;
        }
        if (qq[kq + 1] - qq[kq] <= 4) { /* few judgments (MS MARCO style): no hashing */
            const int64_t qa = qq[kq], qb = qq[kq + 1];
            for (i = ra; i < rb; i++) {
                int64_t e = perm[i], f = -1;
                size_t le;
                if (e < 0 || e >= n_run) {
                    bad = i;
                    break;
                }
                le = (size_t)(roff[e + 1] - roff[e]);
                for (t = qa; t < qb; t++) {
                    if ((size_t)(qoff[t + 1] - qoff[t]) == le &&
                        eq_bytes(qdata + qoff[t], rdata + roff[e], le)) {
                        f = t;
                        break;
                    }
                }
                out[i] = f < 0 ? -1 : (qrel[f] >= 0 ? qrel[f] : -2);
            }
            if (J->a.ties != NULL && bad < 0)
                J->a.ties[j] = first_mixed_tie(out + ra, perm + ra, J->a.scores, rb - ra,
                                               J->a.depth);
            continue;
        }
        gtable_clear(tab);
        for (t = qq[kq]; t < qq[kq + 1]; t++)
            (void)gtable_find_or_insert(tab, qdata, qoff, qdata + qoff[t],
                                        (size_t)(qoff[t + 1] - qoff[t]), t);
        for (i = ra; i < rb; i++) {
            int64_t e = perm[i], f;
            if (e < 0 || e >= n_run) {
                bad = i;
                break;
            }
            f = gtable_find(tab, qdata, qoff, rdata + roff[e], (size_t)(roff[e + 1] - roff[e]));
            out[i] = f < 0 ? -1 : (qrel[f] >= 0 ? qrel[f] : -2);
        }
        if (J->a.ties != NULL && bad < 0)
            J->a.ties[j] = first_mixed_tie(out + ra, perm + ra, J->a.scores, rb - ra,
                                           J->a.depth);
    }
    J->bad = bad;
    return NULL;
}

struct rl_align {
    align_job jobs[RL_MAX_THREADS];
    int T;
};

rl_align *rl_align_new(const rl_align_args *args, int64_t maxq, int T)
{
    int64_t first[RL_MAX_THREADS + 1];
    int k;
    rl_align *A = (rl_align *)calloc(1, sizeof(rl_align));
    if (A == NULL)
        return NULL;
    if (T > RL_MAX_THREADS)
        T = RL_MAX_THREADS;
    A->T = T;
    rl_split_queries(args->rq, args->nq_run, T, first);
    for (k = 0; k < T; k++) {
        align_job *J = &A->jobs[k];
        J->a = *args;
        J->bad = -1;
        J->q0 = first[k];
        J->q1 = first[k + 1];
        if (gtable_init(&J->tab, (size_t)maxq) < 0) {
            rl_align_free(A);
            return NULL;
        }
    }
    return A;
}

void rl_align_run(rl_align *A)
{
    rl_run_jobs(align_run_job, A->jobs, sizeof(align_job), A->T);
}

int64_t rl_align_bad(const rl_align *A)
{
    int64_t bad = -1;
    int k;
    for (k = 0; k < A->T && bad < 0; k++)
        bad = A->jobs[k].bad;
    return bad;
}

void rl_align_free(rl_align *A)
{
    int k;
    if (A == NULL)
        return;
    for (k = 0; k < RL_MAX_THREADS; k++)
        free(A->jobs[k].tab.slots);
    free(A);
}
