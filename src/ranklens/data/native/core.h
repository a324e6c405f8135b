/*
 * core.h -- what the C files of ranklens' native core share.
 *
 * The native core is the extension module ranklens.data._core (see module.c for
 * what it exports).  Its files, one job each:
 *
 *   module.c    the Python binding: argument parsing and checks, numpy arrays,
 *               Python errors, the method table and the module init; the only
 *               file that includes Python.h and numpy
 *   tokenize.c  lines of TREC text to fields and values: the tokenizer, UTF-8
 *               checks, number parsing, and the per-line loops of parse_trec's
 *               two passes (kept beside the tokenizer so that it inlines there)
 *   parse.c     parse_trec over a whole buffer: pass 1 (threads, padded tail),
 *               the grouping plan, pass 2 (threads, output windows)
 *   intern.c    query-id interning (while parsing, and of a string column in
 *               memory), and the growing of arrays
 *   threads.c   how many threads, running jobs on them, splitting the queries
 *   rank.c      ranking each query by score with a tie policy
 *   join.c      docids looked up per query: duplicates and the run/qrels join
 *   pool.c      the documents of several runs pooled per query, and the sums of
 *               their normalised scores (rank fusion)
 *   columns.c   string columns gathered by index, entries grouped by query
 *   runtext.c   TREC run text, scores as Python's repr (shortest round trip)
 *
 * Everything works on "string columns": a column of n byte strings is a
 * uint8 array ``data`` holding all bytes back to back plus an int64 array
 * ``offsets`` of length n + 1, string i being data[offsets[i]:offsets[i + 1]].
 * Entries are grouped by query through query offsets: query j owns entries
 * [qo[j], qo[j + 1]).
 *
 * Nothing outside module.c touches Python objects, so all of it may run with
 * the GIL released.  There is no global mutable state: all tables are const.
 */
#ifndef RANKLENS_CORE_H
#define RANKLENS_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The functions declared here are hidden, so the module still exports only
 * PyInit__core, and calls between its files need no PLT. */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* ------------------------------------------------------------------------ */
/* Byte strings (inline: on the hot paths of several files)                  */
/* ------------------------------------------------------------------------ */

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t fmix64(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ULL;
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ULL;
    x ^= x >> 32;
    return x;
}

static inline uint32_t load32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* A fast 64-bit hash of a byte string (multiply/xorshift rounds over 64-bit
 * words, small strings read wyhash-style with overlapping loads, and a final
 * avalanche).  Reads only the n bytes at p.  Not meant to resist flooding. */
static inline uint64_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)n * 0xff51afd7ed558ccdULL);
    if (n > 8) {
        const uint8_t *last = p + n - 8;
        while (p < last) {
            h = (h ^ load64(p)) * 0xbf58476d1ce4e5b9ULL;
            h ^= h >> 29;
            p += 8;
        }
        h = (h ^ load64(last)) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 29;
    }
    else {
        uint64_t t;
        if (n >= 4)
            t = ((uint64_t)load32(p) << 32) | load32(p + n - 4);
        else if (n > 0)
            t = ((uint64_t)p[0] << 16) | ((uint64_t)p[n >> 1] << 8) | p[n - 1];
        else
            t = 0;
        h = (h ^ t) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 29;
    }
    return fmix64(h);
}

/* Whether the n bytes at a and at b are equal: inline for short strings (ids are
 * mostly a few bytes, where a call to memcmp costs more than the comparison), with
 * overlapping loads that read only the n bytes. */
static inline int eq_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n >= 8) {
        size_t i;
        for (i = 0; i + 8 < n; i += 8) {
            if (load64(a + i) != load64(b + i))
                return 0;
        }
        return load64(a + n - 8) == load64(b + n - 8);
    }
    if (n >= 4)
        return load32(a) == load32(b) && load32(a + n - 4) == load32(b + n - 4);
    if (n > 0)
        return a[0] == b[0] && a[n >> 1] == b[n >> 1] && a[n - 1] == b[n - 1];
    return 1;
}

/* Byte-order comparison: memcmp over the common prefix, then shorter first.
 * (Inline, 8 bytes at a time: most ids are short and differ early.) */
static inline int cmp_bytes(const uint8_t *a, size_t la, const uint8_t *b, size_t lb)
{
    size_t m = la < lb ? la : lb;
#if !defined(RL_NO_SIMD) && defined(__GNUC__) && defined(__BYTE_ORDER__) && \
    defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    size_t i = 0;
    for (; i + 8 <= m; i += 8) {
        uint64_t x = load64(a + i), y = load64(b + i);
        if (x != y) {
            x = __builtin_bswap64(x);
            y = __builtin_bswap64(y);
            return x < y ? -1 : 1;
        }
    }
    for (; i < m; i++) {
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    }
#else
    if (m) {
        int r = memcmp(a, b, m);
        if (r)
            return r < 0 ? -1 : 1;
    }
#endif
    return (la > lb) - (la < lb);
}

/* ------------------------------------------------------------------------ */
/* Hash tables of docids per query (inline: join.c and pool.c)               */
/* ------------------------------------------------------------------------ */

/* Smallest power of two >= 2 * n (at least 16): a hash table size giving a
 * load factor of at most 1/2.  Returns 0 on overflow. */
static inline size_t table_size(size_t n)
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

static inline int gtable_init(gtable *t, size_t max_keys)
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

static inline void gtable_clear(gtable *t)
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
            if (le == len && eq_bytes(data + off[e], s, len))
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
            if (le == len && eq_bytes(data + off[e], s, len))
                return e;
        }
        i = (i + 1) & t->mask;
    }
    return -1;
}

/* ------------------------------------------------------------------------ */
/* threads.c                                                                  */
/* ------------------------------------------------------------------------ */

#define RL_MAX_THREADS 8

/* How many threads to use for n lines or entries (`requested` when it is
 * positive, at most RL_MAX_THREADS; see threads.c for the automatic choice). */
int rl_worker_threads(int64_t n, int requested);

/* Runs fn(jobs[t]) for every t < T (jobs: T elements of `size` bytes), on
 * up to T threads; returns when all are done. */
void rl_run_jobs(void *(*fn)(void *), void *jobs, size_t size, int T);

/* Splits queries [0, nq) (entries qo[0] .. qo[nq]) into T consecutive ranges
 * of about equal entry counts: range t is [first[t], first[t + 1]). */
void rl_split_queries(const int64_t *qo, int64_t nq, int T, int64_t *first);

/* ------------------------------------------------------------------------ */
/* parse_trec: the state of the two passes (tokenize.c, parse.c, intern.c)    */
/* ------------------------------------------------------------------------ */

/* What went wrong (rl_parser.err). */
enum {
    RL_E_NONE = 0,
    RL_E_NOMEM,
    RL_E_INTERNAL,
    RL_E_NUL,
    RL_E_COLS,
    RL_E_NOTNUM,
    RL_E_NONFINITE,
    RL_E_REL,
    RL_E_UTF8,
    RL_E_CR
};

#define RL_EFIELD_MAX 160 /* enough bytes for 40 characters of UTF-8 */
#define RL_PAD 64         /* readable bytes after the end of a region */
#define RL_NO_RANK INT64_MIN /* a run's rank field that is not an integer */

typedef struct {
    const uint8_t *start; /* start of the segment's first data line */
    const uint8_t *end;   /* start of the next segment (or end of region) */
    int64_t first_line;   /* line number of the first data line */
    int64_t count;        /* data lines */
    int32_t code;         /* query */
} rl_segment;

typedef struct {
    int kind;     /* 0 = run, 1 = qrels */
    int comments; /* skip '#' lines */
    int lone_cr;  /* a carriage return that does not end a line is an error */
    int64_t lineno;
    /* pass 1: the first line holding a NUL byte, and a carriage return not
     * followed by '\n' (0: none; lines of the parser's own region) */
    int64_t nul_line, cr_line;
    int64_t n;  /* data lines */
    int64_t ub; /* bytes of the data lines: an upper bound of the docid bytes */

    /* interned query ids */
    uint8_t *qb;
    size_t qlen, qcap;
    int64_t *qoff; /* qoff_cap >= nq + 1 */
    size_t qoff_cap;
    uint64_t *qh;
    size_t qh_cap;
    uint8_t *qbad; /* query id is not valid UTF-8 */
    size_t qbad_cap;
    size_t nq;
    int32_t *qtab; /* -1 = empty */
    size_t qmask;

    rl_segment *segs;
    size_t nseg, seg_cap;

    const uint8_t *last_line; /* start of the last data line */
    uint8_t *tail;            /* padded copy of the end of the file */

    /* error */
    int err;
    int64_t eline;
    int64_t ecount;
    uint8_t efield[RL_EFIELD_MAX];
    size_t eflen;
} rl_parser;

/* Where pass 2 writes. */
typedef struct {
    void *vals;     /* double (run) or int64_t (qrels) */
    int64_t *lines; /* physical line numbers */
    int64_t *ranks; /* run: the rank column (RL_NO_RANK where not an integer), or NULL */
    int strict;     /* ranks: only digits (at most 18) on lines of exactly 6 fields */
    int64_t *doff;  /* n + 1 */
    uint8_t *db;    /* docid bytes, capacity dcap */
    int64_t n, dcap, pos, dpos;
} rl_outbuf;

/* Grouping plan: the queries in byte order and the segments in output order. */
typedef struct {
    int32_t *sorted;    /* rank -> query code */
    int64_t *qoffs;     /* nq + 1 */
    int64_t *seg_order; /* segments, stably sorted by query rank */
} rl_plan;

/* intern.c: grows *p (elements of el bytes, capacity *cap) to hold at least
 * need; returns -1 when out of memory. */
int rl_grow(void **p, size_t *cap, size_t need, size_t el);

/* intern.c: codes (first-appearance order) of the n strings of a column and
 * the first row of each code; returns the number of codes, -1 when out of
 * memory. */
int64_t rl_intern_column(const uint8_t *data, const int64_t *off, int64_t n, int64_t *codes,
                         int64_t *first);

/* intern.c: interns a query id; returns its code, or -1 when out of memory. */
int32_t rl_intern_qid(rl_parser *P, const uint8_t *s, size_t len, int *is_new);

/* tokenize.c: pass 1 over the lines of [p, end) (end[-1] == '\n', RL_PAD
 * bytes readable after end).  Returns -1 when out of memory. */
int rl_pass1_region(rl_parser *P, const uint8_t *p, const uint8_t *end);

/* tokenize.c: pass 2 over one segment: parses and validates its lines,
 * appending the entries to O.  Returns 0, or -1 after rl_set_error. */
int rl_pass2_segment(rl_parser *P, const rl_segment *sg, rl_outbuf *O);

/* tokenize.c: the 6th field of a (validated) run line: its start, and its
 * length in *len. */
const uint8_t *rl_run_tag(const uint8_t *p, size_t *len);

/* parse.c */
int rl_parser_init(rl_parser *P, int kind, int comments);
void rl_parser_free(rl_parser *P);
void rl_set_error(rl_parser *P, int err, int64_t line, const uint8_t *field, size_t flen);
/* Pass 1 over the whole buffer; -1 (with P->err set) on a problem. */
int rl_pass1(rl_parser *P, const uint8_t *buf, size_t len, int threads);
/* The grouping plan of a parser after pass 1; -1 when out of memory. */
int rl_make_plan(const rl_parser *P, rl_plan *G);
void rl_plan_free(rl_plan *G);
/* Pass 2 on T threads; P->err says whether a line had a problem (the first
 * one in the file). */
void rl_pass2(rl_parser *P, const rl_plan *G, rl_outbuf *O, int T);

/* ------------------------------------------------------------------------ */
/* rank.c                                                                     */
/* ------------------------------------------------------------------------ */

/* Ranks queries [0, nq) (query offsets qo) by score, descending, into perm;
 * ties by `policy`: 0 = docid descending (trec_eval), 1 = input order,
 * 2 = docid ascending (docids: the string column data/off).  maxlen: the
 * longest query.  Runs on T threads.  Returns -1 when out of memory. */
int rl_rank(const double *scores, const uint8_t *data, const int64_t *off, int policy,
            const int64_t *qo, int64_t nq, int64_t *perm, int64_t maxlen, int T);

/* ------------------------------------------------------------------------ */
/* join.c                                                                     */
/* ------------------------------------------------------------------------ */

/* find_duplicates: rl_dups_new sets the search up (NULL when out of memory),
 * rl_dups_run runs it (on its threads), rl_dups_count says how many were
 * found (-1 when out of memory) and rl_dups_copy copies them out, in query
 * order; rl_dups_free frees (NULL is fine). */
typedef struct rl_dups rl_dups;
rl_dups *rl_dups_new(const int64_t *qo, int64_t nq, const uint8_t *data, const int64_t *off,
                     const int64_t *order, int64_t limit, int64_t maxw, int T);
void rl_dups_run(rl_dups *D);
int64_t rl_dups_count(const rl_dups *D);
void rl_dups_copy(const rl_dups *D, int64_t *dup, int64_t *first);
void rl_dups_free(rl_dups *D);

/* align: the judgments of the ranked run entries (out[i] for run entry
 * perm[i]: the relevance, -2 if negative, -1 if unjudged).  With scores (else
 * NULL), in the same pass, the tie notice of every run query: ties[j] is the
 * 0-based rank where query j's first group of equal scores holding documents
 * of different gains (max(judgment, 0)) begins, among the groups that begin
 * before rank `depth` (depth < 0: all; a group the depth cuts counts whole),
 * or -1 when there is none. */
typedef struct {
    const int64_t *rq, *roff, *perm, *r2q; /* run: query and docid offsets, order, qrels query */
    const int64_t *qq, *qoff, *qrel;       /* qrels: query and docid offsets, relevance */
    const uint8_t *rdata, *qdata;          /* docid bytes of the run and the qrels */
    int64_t *out;                          /* n_run judgments */
    int64_t n_run, nq_run;
    const double *scores; /* n_run scores, or NULL: no tie notice */
    int64_t depth;        /* tie notice: groups that begin before this rank (< 0: all) */
    int64_t *ties;        /* nq_run tie notices (with scores) */
} rl_align_args;

/* rl_align_new sets the join up (NULL when out of memory), rl_align_run runs
 * it, rl_align_bad gives the first position whose perm entry is out of
 * bounds (-1: none), rl_align_free frees (NULL is fine). */
typedef struct rl_align rl_align;
rl_align *rl_align_new(const rl_align_args *args, int64_t maxq, int T);
void rl_align_run(rl_align *A);
int64_t rl_align_bad(const rl_align *A);
void rl_align_free(rl_align *A);

/* ------------------------------------------------------------------------ */
/* pool.c                                                                     */
/* ------------------------------------------------------------------------ */

/* One input run of pool_runs (checked by the caller: valid string column and
 * query offsets, perm a permutation of [0, n), qmap increasing and below the
 * number of union queries), and where its outputs go: fid[p] and rank[p] for
 * the entry perm[p] (n each). */
typedef struct {
    const int64_t *qo, *qmap, *off, *perm; /* query offsets, union query of each, docids, order */
    const uint8_t *data;                   /* docid bytes */
    int64_t nq, n;                         /* queries, entries */
    int64_t *fid, *rank;                   /* outputs: fused document, rank (from 1) */
} rl_pool_run;

/* pool_runs: rl_pool_new sets the pooling of R runs over n_union union
 * queries up (NULL when out of memory; `threads` as for rl_worker_threads);
 * rl_pool_pass1 numbers the fused documents of each union query in (run,
 * rank) order of first appearance; rl_pool_offsets writes the fused query
 * offsets (n_union + 1) and returns the bytes of the fused docids;
 * rl_pool_pass2 (given those offsets) writes the fused docid column (out_data, out_off: fused + 1),
 * how many runs retrieved each fused document (out_count) and turns the runs'
 * fid into global fused indices; rl_pool_free frees (NULL is fine).  The
 * results do not depend on the thread count. */
typedef struct rl_pool rl_pool;
rl_pool *rl_pool_new(rl_pool_run *runs, int R, int64_t n_union, int threads);
void rl_pool_pass1(rl_pool *P);
int64_t rl_pool_offsets(const rl_pool *P, int64_t *fq);
void rl_pool_pass2(rl_pool *P, const int64_t *fq, uint8_t *out_data, int64_t *out_off,
                   int64_t *out_count);
void rl_pool_free(rl_pool *P);

/* affine_sum: one run of the normalised score sums (rank fusion's Comb*
 * methods).  For each query j of the run and each entry p in its ranked
 * range [qo[j], qo[j + 1]): v = flat[j] ? 1 : (scores[perm[p]] - shift[j]) /
 * scale[j]; with clip, v = +0 unless v > 0 or NaN (numpy's maximum(v, 0));
 * then total[fid[p]] += v (weight * v when weight != 1).  A run's fid are
 * distinct, so its queries are split over threads.  Returns -1 (nothing
 * more written) when a perm or fid value is out of bounds, else 0. */
typedef struct {
    const int64_t *qo, *perm, *fid;
    const double *scores, *shift, *scale;
    const uint8_t *flat;
    int64_t nq, n;
    double weight;
} rl_affine_run;
int rl_affine_sum(const rl_affine_run *run, int clip, double *total, int64_t n_total,
                  int threads);

/* ------------------------------------------------------------------------ */
/* runtext.c                                                                  */
/* ------------------------------------------------------------------------ */

/* repr(value) of a double into out (at least 25 bytes): the shortest text
 * that reads back as value, in Python's layout ("nan", "-inf" included);
 * returns its length. */
int rl_shortest_repr(double value, char *out);

/* A run to write as TREC text: query j's lines are the entries
 * order[qo[j]:qo[j + 1]] (checked by the caller: valid columns and query
 * offsets), qid j is qid_data[qid_off[j]:qid_off[j + 1]]. */
typedef struct {
    const int64_t *qo, *qid_off, *doc_off, *order;
    const uint8_t *qid_data, *doc_data;
    const double *scores;
    const char *tag;
    size_t tag_len;
    int64_t n; /* entries */
} rl_run_text;

/* One thread's text: a malloc'd buffer (the caller frees it) and its length. */
typedef struct {
    char *buf;
    int64_t len;
} rl_text_part;

/* The lines of queries [q_lo, q_hi), split over threads (`threads` as for
 * rl_worker_threads): parts[0..RL_MAX_THREADS) in order (NULL buffers after
 * the last).  Returns 0, 1 when an order value is out of bounds, 2 when out
 * of memory (the parts written so far are still to be freed). */
int rl_format_run(const rl_run_text *R, int64_t q_lo, int64_t q_hi, int threads,
                  rl_text_part *parts);

/* ------------------------------------------------------------------------ */
/* columns.c                                                                  */
/* ------------------------------------------------------------------------ */

/* group_by_query's stable counting sort; take_strings' offsets and bytes. */
int64_t rl_group_by_code(const int64_t *codes, int64_t n, int64_t nq, int64_t *order,
                         int64_t *qoffs, int64_t *cur);
int64_t rl_take_offsets(const int64_t *idx, int64_t m, const int64_t *off, int64_t n,
                        int64_t *off2, int64_t *total);
void rl_take_bytes(const int64_t *idx, int64_t m, const int64_t *off, const uint8_t *src,
                   const int64_t *off2, uint8_t *dst);

/* The decimal text of n integers as a string column ("-12", "0", ...): first
 * the offsets (n + 1 elements; returns the total bytes), then the bytes. */
/* starts[j], starts[j] + step, ... (counts[j] values) for j = 0 .. m-1, back to
 * back into out (room for the sum of counts, each >= 0); returns that sum. */
int64_t rl_ranges(const int64_t *starts, const int64_t *counts, int64_t m, int64_t step,
                  int64_t *out);
int64_t rl_decimal_offsets(const int64_t *values, int64_t n, int64_t *offsets);
void rl_decimal_bytes(const int64_t *values, int64_t n, const int64_t *offsets, uint8_t *data);
/* The integer each of the n strings (data, off) writes plainly in decimal
 * (str(v) for 0 <= v < 10^18: digits only, no leading zero but for "0"), -1
 * for any other string. */
#define RL_DECIMAL_DIGITS 18
void rl_decimal_values(const uint8_t *data, const int64_t *off, int64_t n, int64_t *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* RANKLENS_CORE_H */
