/*
 * parse.c -- parse_trec over a whole buffer.
 *
 * Two passes over the text, so that the entries are written only once,
 * straight into the result arrays (fresh memory is expensive: every page of
 * a temporary copy costs a page fault and a page clear):
 *
 *   pass 1: per line, only the query id: intern it, and cut the file into
 *           "segments" (maximal runs of consecutive data lines of one query);
 *   plan:   sort the unique query ids in byte order and the segments stably
 *           by query, giving each query's output range;
 *   pass 2: parse and validate the segments in output order, writing the
 *           entries to their final place.  If pass 2 finds a problem, the
 *           segments are parsed again in file order to report the first
 *           problem of the file.
 *
 * The tokenizer reads whole 64-bit words and copies docids 16 bytes at a
 * time, so every region it scans ends with '\n' and is followed by at least
 * RL_PAD readable bytes: the file is parsed in place up to the last newline
 * that leaves RL_PAD bytes after it, and the rest of the file is copied into
 * a padded buffer (with a '\n' appended if the file lacks a final newline).
 *
 * The per-line loops of both passes are in tokenize.c, with the tokenizer;
 * this file cuts the work into regions and segments, runs it on threads,
 * and merges the results.
 */
#include "core.h"

#include <stdlib.h>

int rl_parser_init(rl_parser *P, int kind, int comments)
{
    memset(P, 0, sizeof(*P));
    P->kind = kind;
    P->comments = comments;
    P->qcap = 4096;
    P->qb = (uint8_t *)malloc(P->qcap);
    P->qoff_cap = 256;
    P->qoff = (int64_t *)malloc(P->qoff_cap * sizeof(int64_t));
    P->qh_cap = 256;
    P->qh = (uint64_t *)malloc(P->qh_cap * sizeof(uint64_t));
    P->qbad_cap = 256;
    P->qbad = (uint8_t *)malloc(P->qbad_cap);
    P->qmask = 1023;
    P->qtab = (int32_t *)malloc((P->qmask + 1) * sizeof(int32_t));
    P->seg_cap = 256;
    P->segs = (rl_segment *)malloc(P->seg_cap * sizeof(rl_segment));
    if (!P->qb || !P->qoff || !P->qh || !P->qbad || !P->qtab || !P->segs)
        return -1;
    memset(P->qtab, 0xFF, (P->qmask + 1) * sizeof(int32_t));
    P->qoff[0] = 0;
    return 0;
}

void rl_parser_free(rl_parser *P)
{
    free(P->qb);
    free(P->qoff);
    free(P->qh);
    free(P->qbad);
    free(P->qtab);
    free(P->segs);
    free(P->tail);
    memset(P, 0, sizeof(*P));
}

void rl_set_error(rl_parser *P, int err, int64_t line, const uint8_t *field, size_t flen)
{
    P->err = err;
    P->eline = line;
    if (field != NULL) {
        if (flen > RL_EFIELD_MAX)
            flen = RL_EFIELD_MAX;
        memcpy(P->efield, field, flen);
        P->eflen = flen;
    }
}

/* One thread's share of pass 1: the lines in [p, end), with a parser (and
 * so query ids and line numbers) of its own. */
typedef struct {
    rl_parser P;
    const uint8_t *p, *end;
    int rc;
} p1job;

static void *pass1_job(void *arg)
{
    p1job *J = (p1job *)arg;
    J->rc = rl_pass1_region(&J->P, J->p, J->end);
    return NULL;
}

/* Pass 1 over buf[0:k) (whole lines) on T threads: each thread scans about
 * k / T bytes (cut after a newline) into its own parser; their query ids,
 * segments and line counts are then merged into P in file order, so P ends
 * as if it had scanned the bytes itself (a query whose lines straddle a cut
 * has one more segment, which pass 2's stable ordering makes harmless).
 * Returns -1 when out of memory. */
static int pass1_parallel(rl_parser *P, const uint8_t *buf, size_t k, int T)
{
    p1job jobs[RL_MAX_THREADS];
    int32_t *map = NULL;
    size_t a = 0, map_cap = 0, i;
    int t, made = 0, rc = 0;
    if (T > RL_MAX_THREADS)
        T = RL_MAX_THREADS;
    for (t = 0; t < T; t++) {
        size_t b = t == T - 1 ? k : (k / (size_t)T) * (size_t)(t + 1);
        while (b < k && buf[b - 1] != '\n')
            b++;
        if (b < a)
            b = a;
        made = t + 1;
        if (rl_parser_init(&jobs[t].P, P->kind, P->comments) < 0) {
            rc = -1;
            break;
        }
        jobs[t].p = buf + a;
        jobs[t].end = buf + b;
        jobs[t].rc = 0;
        a = b;
    }
    if (rc == 0)
        rl_run_jobs(pass1_job, jobs, sizeof(p1job), T);
    for (t = 0; t < made && rc == 0; t++) {
        const rl_parser *Q = &jobs[t].P;
        int64_t lines = P->lineno;
        if (jobs[t].rc < 0 || rl_grow((void **)&map, &map_cap, Q->nq + 1, sizeof(int32_t)) ||
            rl_grow((void **)&P->segs, &P->seg_cap, P->nseg + Q->nseg, sizeof(rl_segment))) {
            rc = -1;
            break;
        }
        for (i = 0; i < Q->nq && rc == 0; i++) {
            int is_new = 0;
            map[i] = rl_intern_qid(P, Q->qb + Q->qoff[i], (size_t)(Q->qoff[i + 1] - Q->qoff[i]),
                                &is_new);
            if (map[i] < 0)
                rc = -1;
            else if (Q->qbad[i])
                P->qbad[map[i]] = 1;
        }
        for (i = 0; i < Q->nseg && rc == 0; i++) {
            rl_segment sg = Q->segs[i];
            sg.code = map[sg.code];
            sg.first_line += lines;
            P->segs[P->nseg++] = sg;
        }
        if (Q->nul_line && !P->nul_line)
            P->nul_line = Q->nul_line + lines;
        if (Q->cr_line && !P->cr_line)
            P->cr_line = Q->cr_line + lines;
        P->n += Q->n;
        P->lineno += Q->lineno;
        if (Q->n > 0)
            P->last_line = Q->last_line;
    }
    for (t = 0; t < made; t++)
        rl_parser_free(&jobs[t].P);
    free(map);
    return rc;
}

/* Pass 1 over the whole buffer.  NUL bytes and (with P->lone_cr) carriage
 * returns that do not end a line are found on the way, in every line (blank and
 * comment lines too): the first lone CR is the error, else the first NUL. */
int rl_pass1(rl_parser *P, const uint8_t *buf, size_t len, int threads)
{
    size_t k;
    int T;
    if (len == 0)
        return 0;
    /* in place: up to the last newline with at least RL_PAD bytes after it */
    k = len > RL_PAD ? len - RL_PAD : 0;
    while (k > 0 && buf[k - 1] != '\n')
        k--;
    T = rl_worker_threads((int64_t)(k / 40), threads); /* lines are about 40 bytes */
    if (k > 0 && (T > 1 ? pass1_parallel(P, buf, k, T) : rl_pass1_region(P, buf, buf + k)) < 0)
        goto nomem;
    if (k < len) {
        size_t tl = len - k, tl2 = tl + (buf[len - 1] != '\n');
        P->tail = (uint8_t *)malloc(tl2 + RL_PAD);
        if (P->tail == NULL)
            goto nomem;
        memcpy(P->tail, buf + k, tl);
        P->tail[tl] = '\n';
        memset(P->tail + tl2, 0, RL_PAD);
        if (rl_pass1_region(P, P->tail, P->tail + tl2) < 0)
            goto nomem;
        /* a CR ending a file without a final newline ends no line: the '\n' after
         * it was added here */
        if (buf[len - 1] == '\r' && !P->cr_line)
            P->cr_line = P->lineno;
    }
    if (P->lone_cr && P->cr_line) {
        rl_set_error(P, RL_E_CR, P->cr_line, NULL, 0);
        return -1;
    }
    if (P->nul_line) {
        rl_set_error(P, RL_E_NUL, P->nul_line, NULL, 0);
        return -1;
    }
    P->ub = (int64_t)len + 1;
    return 0;
nomem:
    rl_set_error(P, RL_E_NOMEM, 0, NULL, 0);
    return -1;
}

typedef struct {
    const uint8_t *p;
    size_t len;
    int32_t code;
} qkey;

static int qkey_cmp(const void *a, const void *b)
{
    const qkey *x = (const qkey *)a, *y = (const qkey *)b;
    return cmp_bytes(x->p, x->len, y->p, y->len);
}

void rl_plan_free(rl_plan *G)
{
    free(G->sorted);
    free(G->qoffs);
    free(G->seg_order);
}

int rl_make_plan(const rl_parser *P, rl_plan *G)
{
    size_t nq = P->nq, ns = P->nseg, i;
    qkey *keys = (qkey *)malloc((nq + 1) * sizeof(qkey));
    int64_t *cnt = (int64_t *)calloc(nq + 1, sizeof(int64_t));
    int32_t *rankof = (int32_t *)malloc((nq + 1) * sizeof(int32_t));
    G->sorted = (int32_t *)malloc((nq + 1) * sizeof(int32_t));
    G->qoffs = (int64_t *)calloc(nq + 1, sizeof(int64_t));
    G->seg_order = (int64_t *)malloc((ns + 1) * sizeof(int64_t));
    if (!G->sorted || !G->qoffs || !G->seg_order || !keys || !cnt || !rankof) {
        free(keys);
        free(cnt);
        free(rankof);
        return -1;
    }
    for (i = 0; i < nq; i++) {
        keys[i].p = P->qb + P->qoff[i];
        keys[i].len = (size_t)(P->qoff[i + 1] - P->qoff[i]);
        keys[i].code = (int32_t)i;
    }
    if (nq > 1)
        qsort(keys, nq, sizeof(qkey), qkey_cmp);
    for (i = 0; i < nq; i++) {
        G->sorted[i] = keys[i].code;
        rankof[keys[i].code] = (int32_t)i;
    }
    for (i = 0; i < ns; i++) {
        int32_t r = rankof[P->segs[i].code];
        G->qoffs[r + 1] += P->segs[i].count;
        cnt[r + 1]++;
    }
    for (i = 0; i < nq; i++) {
        G->qoffs[i + 1] += G->qoffs[i];
        cnt[i + 1] += cnt[i];
    }
    for (i = 0; i < ns; i++) /* stable counting sort of the segments */
        G->seg_order[cnt[rankof[P->segs[i].code]]++] = (int64_t)i;
    free(keys);
    free(cnt);
    free(rankof);
    return 0;
}

/* Pass 2 over the segments seg_order[s0:s1], appending to O. */
static void pass2_range(rl_parser *P, const rl_plan *G, rl_outbuf *O, size_t s0, size_t s1)
{
    size_t i;
    for (i = s0; i < s1; i++) {
#if defined(__GNUC__)
        /* segments of interleaved files are short and scattered: prefetch */
        if (i + 16 < s1)
            __builtin_prefetch(&P->segs[G->seg_order[i + 16]]);
        if (i + 8 < s1)
            __builtin_prefetch(P->segs[G->seg_order[i + 8]].start);
#endif
        if (rl_pass2_segment(P, &P->segs[G->seg_order[i]], O) < 0)
            break;
    }
}

/* One thread's share of pass 2: its own copy of the parser (for the error
 * fields; everything else is read-only) and its own window of the output. */
typedef struct {
    rl_parser P;
    const rl_plan *G;
    rl_outbuf O;
    size_t s0, s1;
    int64_t pos0, dpos0;
} p2job;

static void *pass2_job(void *arg)
{
    p2job *J = (p2job *)arg;
    pass2_range(&J->P, J->G, &J->O, J->s0, J->s1);
    return NULL;
}

/* Pass 2 on T threads.  Segment ranges with about n / T lines each go to the
 * threads; thread t writes its docid bytes from B_t = (bytes of the earlier
 * ranges' lines) + 16 t, which bounds them, so the windows never overlap (the
 * 16 leaves room for the 16-byte stores); afterwards the windows are moved
 * together and their offsets shifted.  P->err says whether a line had a
 * problem. */
static void pass2_parallel(rl_parser *P, const rl_plan *G, rl_outbuf *O, int T)
{
    p2job jobs[RL_MAX_THREADS];
    size_t i = 0;
    int64_t pos = 0, bytes = 0, end = 0;
    int t;
    if (T > RL_MAX_THREADS)
        T = RL_MAX_THREADS;
    for (t = 0; t < T; t++) {
        int64_t target = (P->n * (t + 1)) / T;
        p2job *J = &jobs[t];
        memcpy(&J->P, P, sizeof(rl_parser));
        J->G = G;
        J->s0 = i;
        J->pos0 = pos;
        J->dpos0 = bytes + 16 * (int64_t)t;
        while (i < P->nseg && (pos < target || t == T - 1)) {
            const rl_segment *sg = &P->segs[G->seg_order[i]];
            pos += sg->count;
            bytes += (int64_t)(sg->end - sg->start);
            i++;
        }
        J->s1 = i;
        J->O = *O;
        J->O.pos = J->pos0;
        J->O.dpos = J->dpos0;
    }
    for (t = 0; t < T; t++) /* each window ends where the next begins */
        jobs[t].O.dcap = t + 1 < T ? jobs[t + 1].dpos0 : O->dcap;
    rl_run_jobs(pass2_job, jobs, sizeof(p2job), T);
    for (t = 0; t < T; t++) { /* the first problem in output order; pass2 re-finds it in file order */
        if (jobs[t].P.err != RL_E_NONE) {
            P->err = jobs[t].P.err;
            P->eline = jobs[t].P.eline;
            P->ecount = jobs[t].P.ecount;
            P->eflen = jobs[t].P.eflen;
            memcpy(P->efield, jobs[t].P.efield, sizeof(P->efield));
            return;
        }
    }
    for (t = 0; t < T; t++) {
        const p2job *J = &jobs[t];
        int64_t shift = J->dpos0 - end, k;
        if (shift != 0) {
            memmove(O->db + end, O->db + J->dpos0, (size_t)(J->O.dpos - J->dpos0));
            for (k = J->pos0 + 1; k <= J->O.pos; k++)
                O->doff[k] -= shift;
        }
        end = J->O.dpos - shift;
    }
    O->pos = jobs[T - 1].O.pos;
    O->dpos = end;
}

/* Pass 2 over all segments in output order (on T threads when T > 1); on a
 * problem, again in file order, so that the error reported is the first one
 * in the file. */
void rl_pass2(rl_parser *P, const rl_plan *G, rl_outbuf *O, int T)
{
    size_t i;
    O->pos = 0;
    O->dpos = 0;
    O->doff[0] = 0;
    if (T < 2)
        pass2_range(P, G, O, 0, P->nseg);
    else
        pass2_parallel(P, G, O, T);
    if (P->err == RL_E_NONE || P->err == RL_E_INTERNAL || P->err == RL_E_NOMEM)
        return;
    P->err = RL_E_NONE;
    O->pos = 0;
    O->dpos = 0;
    for (i = 0; i < P->nseg; i++) {
        if (rl_pass2_segment(P, &P->segs[i], O) < 0)
            return;
    }
    rl_set_error(P, RL_E_INTERNAL, 0, NULL, 0); /* unreachable: the file has a problem */
}
