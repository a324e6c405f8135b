/*
 * join.c -- docids looked up per query: the repeated docids of each query
 * (find_duplicates) and the judgments of a ranked run from its qrels (align).
 *
 * Both look docids up in a generation-stamped hash table of their own per
 * thread, cleared for each query with one increment, and split the queries
 * over threads; the results do not depend on the thread count.
 */
#include "core.h"

#include <stdlib.h>

/* Smallest power of two >= 2 * n (at least 16): a hash table size giving a
 * load factor of at most 1/2.  Returns 0 on overflow. */
static size_t table_size(size_t n)
{
    size_t c = 16;
    while (c < 2 * n) {
        if (c > SIZE_MAX / 4)
            return 0;
        c *= 2;
    }
    return c;
}

/* One slot of a generation-stamped open-addressing hash table: a slot is in
 * use when its gen equals the table's current generation, so "clearing" the
 * table is a single increment. */
typedef struct {
    uint32_t gen;
    uint32_t h;  /* low 32 bits of the hash, to skip most memcmp calls */
    int64_t idx; /* entry index */
} slot_t;

typedef struct {
    slot_t *slots;
    size_t mask;
    uint32_t gen;
} gtable;

static int gtable_init(gtable *t, size_t max_keys)
{
    size_t cap = table_size(max_keys);
    t->slots = NULL;
    t->mask = 0;
    t->gen = 0;
    if (cap == 0 || cap > SIZE_MAX / sizeof(slot_t))
        return -1;
    t->slots = (slot_t *)calloc(cap, sizeof(slot_t));
    if (t->slots == NULL)
        return -1;
    t->mask = cap - 1;
    return 0;
}

static void gtable_clear(gtable *t)
{
    if (t->gen == UINT32_MAX) {
        memset(t->slots, 0, (t->mask + 1) * sizeof(slot_t));
        t->gen = 0;
    }
    t->gen++;
}

/* Looks string s up in the table (keys are entries of the column data/off);
 * returns the stored entry index, or -1 after inserting `idx` when absent. */
static inline int64_t gtable_find_or_insert(gtable *t, const uint8_t *data, const int64_t *off,
                                            const uint8_t *s, size_t len, int64_t idx)
{
    uint64_t h = hash_bytes(s, len);
    uint32_t h32 = (uint32_t)h;
    size_t i = (size_t)(h >> 32) & t->mask;
    slot_t *sl = t->slots;
    const uint32_t gen = t->gen;
    while (sl[i].gen == gen) {
        if (sl[i].h == h32) {
            int64_t e = sl[i].idx;
            size_t le = (size_t)(off[e + 1] - off[e]);
            if (le == len && memcmp(data + off[e], s, len) == 0)
                return e;
        }
        i = (i + 1) & t->mask;
    }
    sl[i].gen = gen;
    sl[i].h = h32;
    sl[i].idx = idx;
    return -1;
}

static inline int64_t gtable_find(const gtable *t, const uint8_t *data, const int64_t *off,
                                  const uint8_t *s, size_t len)
{
    uint64_t h = hash_bytes(s, len);
    uint32_t h32 = (uint32_t)h;
    size_t i = (size_t)(h >> 32) & t->mask;
    const slot_t *sl = t->slots;
    const uint32_t gen = t->gen;
    while (sl[i].gen == gen) {
        if (sl[i].h == h32) {
            int64_t e = sl[i].idx;
            size_t le = (size_t)(off[e + 1] - off[e]);
            if (le == len && memcmp(data + off[e], s, len) == 0)
                return e;
        }
        i = (i + 1) & t->mask;
    }
    return -1;
}

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
        if (kq < 0 || qq[kq + 1] == qq[kq]) {
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
                        memcmp(qdata + qoff[t], rdata + roff[e], le) == 0) {
                        f = t;
                        break;
                    }
                }
                out[i] = f < 0 ? -1 : (qrel[f] >= 0 ? qrel[f] : -2);
            }
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
