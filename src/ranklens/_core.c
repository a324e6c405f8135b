/*
 * ranklens._core -- the native core of ranklens.
 *
 * Plain C99 on the CPython and numpy C APIs.  Everything here works on
 * "string columns": a column of n byte strings is a 1-D uint8 array ``data``
 * holding all bytes back to back plus a 1-D int64 array ``offsets`` of length
 * n + 1, string i being data[offsets[i]:offsets[i + 1]].
 *
 * Exported functions (see the module docstring for the details):
 *   parse_trec(buf, kind, comments, threads=0)
 *   encode_strings(seq)
 *   group_by_query(q_codes, n_queries)
 *   take_strings(data, offsets, idx)
 *   rank(q_offsets, doc_data, doc_offsets, scores, policy, threads=0)
 *   find_duplicates(q_offsets, doc_data, doc_offsets, order, limit, threads=0)
 *   align(run_q_offsets, run_doc_data, run_doc_offsets, perm, run_to_qrels,
 *         qrels_q_offsets, qrels_doc_data, qrels_doc_offsets, qrels_rel, threads=0)
 *   pool_runs(runs, n_union, threads=0)
 *
 * The heavy loops run with the GIL released.  There is no global mutable
 * state: all tables below are const.  parse_trec's second pass, rank,
 * find_duplicates and align run on up to min(cores, 8) POSIX threads for
 * large inputs (RANKLENS_NUM_THREADS=N caps it, 1 turns threads off; the
 * `threads` argument sets it); the result does not depend on the count.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef NPY_NO_DEPRECATED_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#endif
#include <numpy/arrayobject.h>

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Small utilities                                                            */
/* ------------------------------------------------------------------------ */

/* Byte classes for the TREC tokenizer: 0 = ordinary ASCII, 1 = byte >= 0x80,
 * 2 = whitespace other than '\n' (C isspace: ' ', \t, \v, \f, \r), 3 = '\n'.
 * Classes < 2 belong to a field. */
static const uint8_t CLS[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 2, 2, 2, 0, 0, /* 0x00 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x10 */
    2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x30 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x40 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x50 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x60 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x70 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x80 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x90 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xA0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xB0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xC0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xD0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xE0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xF0 */
};

enum { C_HIGH = 1, C_SPACE = 2, C_NL = 3 };

/* Exact powers of ten representable as doubles (Clinger's fast path). */
static const double P10[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

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

/* Strict UTF-8: proper continuation bytes, no overlong forms, no surrogates,
 * nothing above U+10FFFF. */
static int utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
        }
        else if (c >= 0xC2 && c <= 0xDF) {
            if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80)
                return 0;
            i += 2;
        }
        else if (c >= 0xE0 && c <= 0xEF) {
            uint8_t c1;
            if (i + 2 >= n)
                return 0;
            c1 = s[i + 1];
            if ((c1 & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80)
                return 0;
            if (c == 0xE0 && c1 < 0xA0) /* overlong */
                return 0;
            if (c == 0xED && c1 >= 0xA0) /* surrogate */
                return 0;
            i += 3;
        }
        else if (c >= 0xF0 && c <= 0xF4) {
            uint8_t c1;
            if (i + 3 >= n)
                return 0;
            c1 = s[i + 1];
            if ((c1 & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80 ||
                (s[i + 3] & 0xC0) != 0x80)
                return 0;
            if (c == 0xF0 && c1 < 0x90) /* overlong */
                return 0;
            if (c == 0xF4 && c1 >= 0x90) /* > U+10FFFF */
                return 0;
            i += 4;
        }
        else {
            return 0;
        }
    }
    return 1;
}

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
/* numpy argument helpers                                                     */
/* ------------------------------------------------------------------------ */

/* A C-contiguous aligned 1-D array of `type` (a new reference), converting
 * (safely) when needed. */
static PyArrayObject *as_array(PyObject *obj, int type, const char *name)
{
    PyArrayObject *a;
    if (obj == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s must be an array, not None", name);
        return NULL;
    }
    a = (PyArrayObject *)PyArray_FromAny(obj, PyArray_DescrFromType(type), 1, 1,
                                         NPY_ARRAY_IN_ARRAY, NULL);
    return a;
}

/* Output arrays of at least this many bytes get their data from plain malloc
 * rather than from numpy's allocator.  numpy madvise()s every block of 4 MiB
 * or more with MADV_HUGEPAGE, and where transparent huge pages have
 * defrag=madvise, first touching such memory stalls in direct compaction;
 * glibc's malloc serves big blocks with mmap and no such advice.  (Smaller
 * arrays stay with numpy, whose small-block cache is the faster there.) */
#define BIG_ARRAY_BYTES ((size_t)1 << 20)

static const char BUFFER_CAPSULE[] = "ranklens._core.buffer";

static void buffer_capsule_free(PyObject *cap)
{
    free(PyCapsule_GetPointer(cap, BUFFER_CAPSULE));
}

/* The item size of the types this module creates arrays of (0: another). */
static size_t item_size(int type)
{
    switch (type) {
    case NPY_UINT8:
        return 1;
    case NPY_INT64:
    case NPY_FLOAT64:
        return 8;
    default:
        return 0;
    }
}

/* malloc room for n items of `type` (at least one byte, so never NULL on
 * success); NULL with MemoryError set on failure. */
static void *alloc_buffer(npy_intp n, int type)
{
    size_t isz = item_size(type);
    void *buf;
    if (n < 0 || isz == 0 || (size_t)n > (size_t)PY_SSIZE_T_MAX / isz) {
        PyErr_NoMemory();
        return NULL;
    }
    buf = malloc(n > 0 ? (size_t)n * isz : 1);
    if (buf == NULL)
        PyErr_NoMemory();
    return buf;
}

/* A C-contiguous, aligned, writeable 1-D array of n items of `type` over
 * `buf` (from malloc, non-NULL), which the array owns through a capsule base
 * that frees it.  Takes buf over: on failure buf is freed and NULL returned
 * with an exception set. */
static PyArrayObject *wrap_buffer(void *buf, npy_intp n, int type)
{
    npy_intp dims[1];
    PyObject *cap, *arr;
    cap = PyCapsule_New(buf, BUFFER_CAPSULE, buffer_capsule_free);
    if (cap == NULL) {
        free(buf);
        return NULL;
    }
    dims[0] = n;
    arr = PyArray_SimpleNewFromData(1, dims, type, buf);
    if (arr == NULL) {
        Py_DECREF(cap); /* frees buf */
        return NULL;
    }
    /* Steals the reference to cap, also on failure. */
    if (PyArray_SetBaseObject((PyArrayObject *)arr, cap) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return (PyArrayObject *)arr;
}

/* A new uninitialized C-contiguous 1-D array of n items of `type`. */
static PyArrayObject *new_array(npy_intp n, int type)
{
    npy_intp dims[1];
    size_t isz = item_size(type);
    if (isz != 0 && n >= 0 && (size_t)n >= BIG_ARRAY_BYTES / isz) {
        void *buf = alloc_buffer(n, type);
        return buf ? wrap_buffer(buf, n, type) : NULL;
    }
    dims[0] = n;
    return (PyArrayObject *)PyArray_EMPTY(1, dims, type, 0);
}

#define I64(a) ((int64_t *)PyArray_DATA(a))
#define LEN(a) ((int64_t)PyArray_DIM((a), 0))

/* Checks that (data, offsets) is a valid string column; returns n or -1. */
static int64_t check_column(PyArrayObject *data, PyArrayObject *offsets, const char *name)
{
    const int64_t *o = I64(offsets);
    int64_t m = LEN(offsets), dl = LEN(data), i;
    if (m < 1) {
        PyErr_Format(PyExc_ValueError, "%s offsets must hold at least one element", name);
        return -1;
    }
    if (o[0] < 0 || o[m - 1] > dl) {
        PyErr_Format(PyExc_ValueError, "%s offsets point outside the data", name);
        return -1;
    }
    for (i = 0; i + 1 < m; i++) {
        if (o[i + 1] < o[i]) {
            PyErr_Format(PyExc_ValueError, "%s offsets must be non-decreasing", name);
            return -1;
        }
    }
    return m - 1;
}

/* Checks query offsets: q[0] == 0, non-decreasing, q[-1] == n.  Returns the
 * number of queries or -1. */
static int64_t check_qoffsets(PyArrayObject *q, int64_t n, const char *name)
{
    const int64_t *o = I64(q);
    int64_t m = LEN(q), i;
    if (m < 1) {
        PyErr_Format(PyExc_ValueError, "%s must hold at least one element", name);
        return -1;
    }
    if (o[0] != 0 || o[m - 1] != n) {
        PyErr_Format(PyExc_ValueError, "%s must start at 0 and end at the number of entries (%lld)",
                     name, (long long)n);
        return -1;
    }
    for (i = 0; i + 1 < m; i++) {
        if (o[i + 1] < o[i]) {
            PyErr_Format(PyExc_ValueError, "%s must be non-decreasing", name);
            return -1;
        }
    }
    return m - 1;
}

/* ------------------------------------------------------------------------ */
/* parse_trec                                                                 */
/* ------------------------------------------------------------------------ */
/*
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
 * PAD readable bytes: the file is parsed in place up to the last newline
 * that leaves PAD bytes after it, and the rest of the file is copied into a
 * padded buffer (with a '\n' appended if the file lacks a final newline).
 */

enum {
    E_NONE = 0,
    E_NOMEM,
    E_INTERNAL,
    E_NUL,
    E_COLS,
    E_NOTNUM,
    E_NONFINITE,
    E_REL,
    E_UTF8
};

#define EFIELD_MAX 160 /* enough bytes for 40 characters of UTF-8 */
#define NUMBUF 64      /* numbers are at most NUMBUF - 1 characters */
#define PAD 64         /* readable bytes after the end of a region */

/* Word-at-a-time (little-endian GCC/Clang) and SSE2 fast paths; define
 * RL_NO_SIMD to build the portable byte-at-a-time code only. */
#if !defined(RL_NO_SIMD) && defined(__GNUC__) && defined(__BYTE_ORDER__) && \
    defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RL_SWAR 1
#if defined(__SSE2__)
#include <emmintrin.h>
#define RL_SSE2 1
#endif
#endif

typedef struct {
    const uint8_t *start; /* start of the segment's first data line */
    const uint8_t *end;   /* start of the next segment (or end of region) */
    int64_t first_line;   /* line number of the first data line */
    int64_t count;        /* data lines */
    int32_t code;         /* query */
} segment;

typedef struct {
    int kind;     /* 0 = run, 1 = qrels */
    int comments; /* skip '#' lines */
    int64_t lineno;
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

    segment *segs;
    size_t nseg, seg_cap;

    const uint8_t *last_line; /* start of the last data line */
    uint8_t *tail;            /* padded copy of the end of the file */

    /* error */
    int err;
    int64_t eline;
    int64_t ecount;
    uint8_t efield[EFIELD_MAX];
    size_t eflen;
} parser;

/* Where pass 2 writes. */
typedef struct {
    void *vals;     /* double (run) or int64_t (qrels) */
    int64_t *lines; /* physical line numbers */
    int64_t *doff;  /* n + 1 */
    uint8_t *db;    /* docid bytes, capacity dcap */
    int64_t n, dcap, pos, dpos;
} outbuf;

static int parser_init(parser *P, int kind, int comments)
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
    P->segs = (segment *)malloc(P->seg_cap * sizeof(segment));
    if (!P->qb || !P->qoff || !P->qh || !P->qbad || !P->qtab || !P->segs)
        return -1;
    memset(P->qtab, 0xFF, (P->qmask + 1) * sizeof(int32_t));
    P->qoff[0] = 0;
    return 0;
}

static void parser_free(parser *P)
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

/* Grows *p (elements of el bytes, capacity *cap) to hold at least need. */
static int grow(void **p, size_t *cap, size_t need, size_t el)
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

static int qtab_rehash(parser *P)
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
static int32_t intern_qid(parser *P, const uint8_t *s, size_t len, int *is_new)
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
    if (grow((void **)&P->qoff, &P->qoff_cap, P->nq + 2, sizeof(int64_t)) ||
        grow((void **)&P->qh, &P->qh_cap, P->nq + 1, sizeof(uint64_t)) ||
        grow((void **)&P->qbad, &P->qbad_cap, P->nq + 1, 1) ||
        grow((void **)&P->qb, &P->qcap, P->qlen + len, 1))
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

static void set_error(parser *P, int err, int64_t line, const uint8_t *field, size_t flen)
{
    P->err = err;
    P->eline = line;
    if (field != NULL) {
        if (flen > EFIELD_MAX)
            flen = EFIELD_MAX;
        memcpy(P->efield, field, flen);
        P->eflen = flen;
    }
}

/* Scans a field starting at p; returns its end (a whitespace byte).  Sets
 * *hi when the field holds a byte >= 0x80. */
static inline const uint8_t *scan_field(const uint8_t *p, unsigned *hi)
{
#ifdef RL_SWAR
    for (;;) {
        uint64_t x = load64(p);
        /* high bit of each byte that is < 0x21 or >= 0x80; exact for the
         * lowest such byte, which is all we use */
        uint64_t m = ((x - UINT64_C(0x2121212121212121)) | x) & UINT64_C(0x8080808080808080);
        unsigned tz, c;
        if (m == 0) {
            p += 8;
            continue;
        }
        tz = (unsigned)__builtin_ctzll(m);
        c = (unsigned)(x >> (tz & 56)) & 0xFF;
        p += tz >> 3;
        if (c <= 0x20 && ((UINT64_C(0x100003E00) >> c) & 1)) /* ' ', \t \n \v \f \r */
            return p;
        *hi |= c >> 7;
        p++;
    }
#else
    uint8_t c;
    while ((c = CLS[*p]) < C_SPACE) {
        *hi |= c;
        p++;
    }
    return p;
#endif
}

/* Equality of two byte strings of length n, both followed by readable
 * padding (so whole words can be loaded). */
static inline int padded_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
#ifdef RL_SWAR
    if (n <= 8) {
        uint64_t m = n == 8 ? ~UINT64_C(0) : ((UINT64_C(1) << (8 * n)) - 1);
        return ((load64(a) ^ load64(b)) & m) == 0;
    }
    if (n <= 16) {
        return load64(a) == load64(b) && load64(a + n - 8) == load64(b + n - 8);
    }
#endif
    return memcmp(a, b, n) == 0;
}

/* Strict decimal number syntax check + strtod, for what the fast path does
 * not handle.  Returns E_NONE, E_NOTNUM or E_NONFINITE. */
static int slow_double(const uint8_t *s, size_t n, double *out)
{
    char buf[NUMBUF];
    char *endp;
    size_t i;
    double v;
    if (n == 0 || n >= NUMBUF)
        return E_NOTNUM;
    for (i = 0; i < n; i++) {
        if (s[i] == 'x' || s[i] == 'X') /* hexadecimal floats */
            return E_NOTNUM;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    v = strtod(buf, &endp);
    if (endp != buf + n)
        return E_NOTNUM;
    if (!isfinite(v))
        return E_NONFINITE;
    *out = v;
    return E_NONE;
}

static inline int is_digit(uint8_t c) { return (unsigned)(c - '0') < 10u; }

/* Parses a decimal floating point literal.  Simple literals (at most 19
 * significant digits, value exactly m * 10^e with m <= 2^53, |e| <= 22) are
 * converted exactly with one correctly rounded IEEE operation (Clinger's
 * fast path, so the result equals strtod's); everything else goes through
 * strtod.  Returns E_NONE, E_NOTNUM or E_NONFINITE. */
static inline int parse_double(const uint8_t *s, size_t n, double *out)
{
    const uint8_t *p = s, *e = s + n;
    uint64_t m = 0;
    int nd = 0, any = 0, neg = 0;
    int64_t dexp = 0;
    if (n >= NUMBUF)
        return E_NOTNUM;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    while (p < e && is_digit(*p)) {
        unsigned d = (unsigned)(*p - '0');
        any = 1;
        if (m != 0 || d != 0) {
            if (nd >= 19)
                return slow_double(s, n, out);
            m = m * 10 + d;
            nd++;
        }
        p++;
    }
    if (p < e && *p == '.') {
        p++;
        while (p < e && is_digit(*p)) {
            unsigned d = (unsigned)(*p - '0');
            any = 1;
            if (m != 0 || d != 0) {
                if (nd >= 19)
                    return slow_double(s, n, out);
                m = m * 10 + d;
                nd++;
            }
            dexp--;
            p++;
        }
    }
    if (!any)
        return slow_double(s, n, out);
    if (p < e && (*p == 'e' || *p == 'E')) {
        int eneg = 0;
        int64_t ev = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-')) {
            eneg = *p == '-';
            p++;
        }
        if (p >= e || !is_digit(*p))
            return slow_double(s, n, out);
        while (p < e && is_digit(*p)) {
            if (ev < 100000)
                ev = ev * 10 + (*p - '0');
            p++;
        }
        dexp += eneg ? -ev : ev;
    }
    if (p != e)
        return slow_double(s, n, out);
    if (m == 0) {
        *out = neg ? -0.0 : 0.0;
        return E_NONE;
    }
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    if (m <= (UINT64_C(1) << 53) && dexp >= -22 && dexp <= 22) {
        double v = (double)m;
        v = dexp < 0 ? v / P10[-dexp] : v * P10[dexp];
        *out = neg ? -v : v;
        return E_NONE;
    }
#endif
    return slow_double(s, n, out);
}

/* Parses a relevance: an integer literal fitting int64, or a decimal float
 * literal with an integral value of magnitude < 2^53. */
static inline int parse_rel(const uint8_t *s, size_t n, int64_t *out)
{
    const uint8_t *p = s, *e = s + n;
    int neg = 0, ok = 1;
    uint64_t v = 0;
    double d;
    if (n >= NUMBUF)
        return E_REL;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    if (p < e) {
        const uint8_t *q = p;
        while (q < e && is_digit(*q)) {
            unsigned dg = (unsigned)(*q - '0');
            if (v > (UINT64_C(9223372036854775808) - dg) / 10) { /* beyond 2^63 */
                ok = 0;
                break;
            }
            v = v * 10 + dg;
            q++;
        }
        if (ok && q == e) {
            if (!neg && v <= (uint64_t)INT64_MAX) {
                *out = (int64_t)v;
                return E_NONE;
            }
            if (neg) {
                *out = v == (UINT64_C(1) << 63) ? INT64_MIN : -(int64_t)v;
                return E_NONE;
            }
        }
    }
    if (slow_double(s, n, &d) != E_NONE)
        return E_REL;
    if (d != trunc(d) || fabs(d) >= 9007199254740992.0)
        return E_REL;
    *out = (int64_t)d;
    return E_NONE;
}

/* A tokenized line: its first `want` fields. */
typedef struct {
    const uint8_t *fs[6];
    size_t fl[6];
    int nf;        /* fields found, at most want */
    int64_t total; /* fields on the line (when counted; else > want means "more") */
    unsigned hi;   /* bit k: field k holds a byte >= 0x80 */
} line_t;

/* Byte-at-a-time tokenizer for any line. */
static const uint8_t *tokenize_slow(const uint8_t *p, const uint8_t *end, int want,
                                    int count_extra, line_t *L)
{
    int nf = 0;
    unsigned hi = 0;
    while (CLS[*p] == C_SPACE)
        p++;
    while (*p != '\n' && nf < want) {
        unsigned h = 0;
        const uint8_t *s = p;
        p = scan_field(p, &h);
        L->fs[nf] = s;
        L->fl[nf] = (size_t)(p - s);
        hi |= h << nf;
        nf++;
        while (CLS[*p] == C_SPACE)
            p++;
    }
    L->nf = nf;
    L->hi = hi;
    L->total = nf;
    if (*p != '\n') {
        if (count_extra) {
            int64_t c = nf;
            while (*p != '\n') {
                unsigned h = 0;
                p = scan_field(p, &h);
                c++;
                while (CLS[*p] == C_SPACE)
                    p++;
            }
            L->total = c;
        }
        else {
            L->total = nf + 1;
            p = (const uint8_t *)memchr(p, '\n', (size_t)(end - p));
        }
    }
    return p + 1;
}

#ifdef RL_SSE2
/* Bit masks of the 32 bytes at p: whitespace (including '\n'), '\n', and
 * "special" bytes (>= 0x80, or control characters that are not whitespace). */
static inline void masks32(const uint8_t *p, uint64_t *ws, uint64_t *nl, uint64_t *sp)
{
    const __m128i c20 = _mm_set1_epi8(0x20), c0a = _mm_set1_epi8('\n');
    const __m128i c08 = _mm_set1_epi8(8), c0e = _mm_set1_epi8(14), c21 = _mm_set1_epi8(0x21);
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    __m128i wa = _mm_or_si128(_mm_cmpeq_epi8(a, c20),
                              _mm_and_si128(_mm_cmpgt_epi8(a, c08), _mm_cmplt_epi8(a, c0e)));
    __m128i wb = _mm_or_si128(_mm_cmpeq_epi8(b, c20),
                              _mm_and_si128(_mm_cmpgt_epi8(b, c08), _mm_cmplt_epi8(b, c0e)));
    uint64_t w = (uint64_t)(uint32_t)_mm_movemask_epi8(wa) |
                 ((uint64_t)(uint32_t)_mm_movemask_epi8(wb) << 16);
    uint64_t n = (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, c0a)) |
                 ((uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, c0a)) << 16);
    /* signed compare: bytes >= 0x80 are negative, so "< 0x21" flags them too */
    uint64_t l = (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmplt_epi8(a, c21)) |
                 ((uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmplt_epi8(b, c21)) << 16);
    *ws = w;
    *nl = n;
    *sp = l & ~w;
}
#endif

/* Tokenizes the line starting at p, in a region [.., end) with end[-1] ==
 * '\n' and PAD readable bytes after end; returns the start of the next line.
 * Lines of at most 63 bytes of printable ASCII and whitespace take a fast
 * path: the whitespace of the whole line is found with SSE2 compares and
 * the fields are read off the bit mask, with no byte loop. */
static inline const uint8_t *tokenize(const uint8_t *p, const uint8_t *end, int want,
                                      int count_extra, line_t *L)
{
#ifdef RL_SSE2
    uint64_t w, nl, sp, lm, starts, ends;
    unsigned e;
    int k;
    masks32(p, &w, &nl, &sp);
    if (nl == 0) {
        uint64_t w2, nl2, sp2;
        masks32(p + 32, &w2, &nl2, &sp2);
        w |= w2 << 32;
        nl = nl2 << 32;
        sp |= sp2 << 32;
        if (nl == 0)
            return tokenize_slow(p, end, want, count_extra, L);
    }
    e = (unsigned)__builtin_ctzll(nl);
    lm = (UINT64_C(1) << e) - 1;
    if (sp & lm)
        return tokenize_slow(p, end, want, count_extra, L);
    w = (w & lm) | (UINT64_C(1) << e);
    starts = ~w & ((w << 1) | 1) & lm;
    ends = w & (~w << 1);
    for (k = 0; k < want && starts != 0; k++) {
        unsigned s0 = (unsigned)__builtin_ctzll(starts), e0 = (unsigned)__builtin_ctzll(ends);
        starts &= starts - 1;
        ends &= ends - 1;
        L->fs[k] = p + s0;
        L->fl[k] = e0 - s0;
    }
    L->nf = k;
    L->hi = 0;
    L->total = k;
    if (starts != 0) {
        int64_t c = k;
        if (count_extra) {
            while (starts != 0) {
                starts &= starts - 1;
                c++;
            }
        }
        else {
            c++;
        }
        L->total = c;
    }
    return p + e + 1;
#else
    return tokenize_slow(p, end, want, count_extra, L);
#endif
}

/* Pass 1 over the lines of [p, end) (end[-1] == '\n', PAD bytes readable
 * after end). */
static int pass1_region(parser *P, const uint8_t *p, const uint8_t *end)
{
    const uint8_t *cq = NULL; /* query id of the current segment */
    size_t cql = 0;
    int64_t cur = -1, n = 0, ln = P->lineno;
    line_t L;
    while (p < end) {
        const uint8_t *ls = p, *s;
        size_t len;
        ln++;
        p = tokenize(p, end, 1, 0, &L);
        if (L.nf == 0) /* blank line */
            continue;
        s = L.fs[0];
        len = L.fl[0];
        if (*s == '#' && P->comments)
            continue;
        if (cur >= 0 && len == cql && padded_eq(s, cq, cql)) {
            P->segs[cur].count++;
        }
        else {
            int is_new = 0;
            int32_t code = intern_qid(P, s, len, &is_new);
            segment *sg;
            if (code < 0)
                return -1;
            if (is_new && (L.hi & 1u) && !utf8_valid(s, len))
                P->qbad[code] = 1;
            if (grow((void **)&P->segs, &P->seg_cap, P->nseg + 1, sizeof(segment)))
                return -1;
            if (cur >= 0)
                P->segs[cur].end = ls;
            cur = (int64_t)P->nseg++;
            sg = &P->segs[cur];
            sg->start = ls;
            sg->end = end;
            sg->first_line = ln;
            sg->count = 1;
            sg->code = code;
            cq = s;
            cql = len;
        }
        P->last_line = ls;
        n++;
    }
    if (cur >= 0)
        P->segs[cur].end = end;
    P->n += n;
    P->lineno = ln;
    return 0;
}

/* Pass 2 over one segment: parses and validates its lines, appending the
 * entries to O.  Returns 0, or -1 after set_error. */
static int pass2_segment(parser *P, const segment *sg, outbuf *O)
{
    const int kind = P->kind;
    const int want = kind == 0 ? 6 : 4;
    const uint8_t *p = sg->start, *end = sg->end;
    int64_t ln = sg->first_line - 1, pos = O->pos, dpos = O->dpos;
    int first = 1;
    line_t L;
    if (pos + sg->count > O->n) {
        set_error(P, E_INTERNAL, 0, NULL, 0);
        return -1;
    }
    while (p < end) {
        const uint8_t *d;
        size_t dl;
        int rc;

        ln++;
        p = tokenize(p, end, want, kind == 1, &L);
        if (L.nf == 0)
            continue;
        if (*L.fs[0] == '#' && P->comments)
            continue;
        if (L.nf < want || (kind == 1 && L.total > want)) {
            set_error(P, E_COLS, ln, NULL, 0);
            P->ecount = L.total;
            return -1;
        }
        if (first) {
            first = 0;
            if (P->qbad[sg->code]) {
                set_error(P, E_UTF8, ln, NULL, 0);
                return -1;
            }
        }
        d = L.fs[2];
        dl = L.fl[2];
        if ((L.hi & 4u) && !utf8_valid(d, dl)) {
            set_error(P, E_UTF8, ln, NULL, 0);
            return -1;
        }
        if (kind == 0) {
            double v = 0.0;
            rc = parse_double(L.fs[4], L.fl[4], &v);
            if (rc != E_NONE) {
                set_error(P, rc, ln, L.fs[4], L.fl[4]);
                return -1;
            }
            if ((L.hi & 32u) && !utf8_valid(L.fs[5], L.fl[5])) {
                set_error(P, E_UTF8, ln, NULL, 0);
                return -1;
            }
            ((double *)O->vals)[pos] = v;
        }
        else {
            int64_t v = 0;
            rc = parse_rel(L.fs[3], L.fl[3], &v);
            if (rc != E_NONE) {
                set_error(P, rc, ln, L.fs[3], L.fl[3]);
                return -1;
            }
            ((int64_t *)O->vals)[pos] = v;
        }
        if (dpos + (int64_t)dl + 16 > O->dcap) {
            set_error(P, E_INTERNAL, 0, NULL, 0);
            return -1;
        }
#ifdef RL_SWAR
        if (dl <= 16) { /* the source has PAD readable bytes after it */
            uint64_t w0 = load64(d), w1 = load64(d + 8);
            memcpy(O->db + dpos, &w0, 8);
            memcpy(O->db + dpos + 8, &w1, 8);
        }
        else
#endif
        {
            memcpy(O->db + dpos, d, dl);
        }
        dpos += (int64_t)dl;
        O->doff[pos + 1] = dpos;
        O->lines[pos] = ln;
        pos++;
    }
    O->pos = pos;
    O->dpos = dpos;
    return 0;
}

#define MAX_THREADS 8
#define LINES_PER_THREAD 250000 /* below this a thread costs more than it saves */

/* How many threads to use for n lines or entries: `requested` (at most
 * MAX_THREADS) when it is positive; otherwise min(online cores, MAX_THREADS,
 * n / LINES_PER_THREAD), at least 1, capped by RANKLENS_NUM_THREADS. */
static int worker_threads(int64_t n, int requested)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *env = getenv("RANKLENS_NUM_THREADS");
    int64_t t = cores > 0 ? (int64_t)cores : 1;
    if (requested > 0)
        return requested < MAX_THREADS ? requested : MAX_THREADS;
    if (env != NULL && *env != '\0') {
        long cap = strtol(env, NULL, 10);
        if (cap >= 1 && cap < t)
            t = (int64_t)cap;
    }
    if (t > MAX_THREADS)
        t = MAX_THREADS;
    if (t > n / LINES_PER_THREAD)
        t = n / LINES_PER_THREAD;
    return t < 1 ? 1 : (int)t;
}

/* Runs fn(jobs[t]) for every t < T: jobs[0] on the calling thread and the
 * others on new threads (jobs is an array of T elements of the given size);
 * a job whose thread cannot be started runs on the calling thread too.
 * Returns when all are done. */
static void run_jobs(void *(*fn)(void *), void *jobs, size_t size, int T)
{
    pthread_t tids[MAX_THREADS];
    int started[MAX_THREADS];
    int t;
    for (t = 1; t < T; t++)
        started[t] = pthread_create(&tids[t], NULL, fn, (char *)jobs + (size_t)t * size) == 0;
    fn(jobs);
    for (t = 1; t < T; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            fn((char *)jobs + (size_t)t * size);
    }
}

/* Splits queries [0, nq) (entries qo[0] .. qo[nq]) into T consecutive ranges
 * of about equal entry counts: range t is [first[t], first[t + 1]). */
static void split_queries(const int64_t *qo, int64_t nq, int T, int64_t *first)
{
    int64_t n = qo[nq] - qo[0], q = 0;
    int t;
    first[0] = 0;
    for (t = 0; t < T; t++) {
        int64_t target = qo[0] + (n * (t + 1)) / T;
        while (q < nq && (qo[q + 1] <= target || t == T - 1))
            q++;
        first[t + 1] = q;
    }
}

/* One thread's share of pass 1: the lines in [p, end), with a parser (and
 * so query ids and line numbers) of its own. */
typedef struct {
    parser P;
    const uint8_t *p, *end;
    int rc;
} p1job;

static void *pass1_job(void *arg)
{
    p1job *J = (p1job *)arg;
    J->rc = pass1_region(&J->P, J->p, J->end);
    return NULL;
}

/* Pass 1 over buf[0:k) (whole lines) on T threads: each thread scans about
 * k / T bytes (cut after a newline) into its own parser; their query ids,
 * segments and line counts are then merged into P in file order, so P ends
 * as if it had scanned the bytes itself (a query whose lines straddle a cut
 * has one more segment, which pass 2's stable ordering makes harmless).
 * Returns -1 when out of memory. */
static int pass1_parallel(parser *P, const uint8_t *buf, size_t k, int T)
{
    p1job jobs[MAX_THREADS];
    int32_t *map = NULL;
    size_t a = 0, map_cap = 0, i;
    int t, made = 0, rc = 0;
    if (T > MAX_THREADS)
        T = MAX_THREADS;
    for (t = 0; t < T; t++) {
        size_t b = t == T - 1 ? k : (k / (size_t)T) * (size_t)(t + 1);
        while (b < k && buf[b - 1] != '\n')
            b++;
        if (b < a)
            b = a;
        made = t + 1;
        if (parser_init(&jobs[t].P, P->kind, P->comments) < 0) {
            rc = -1;
            break;
        }
        jobs[t].p = buf + a;
        jobs[t].end = buf + b;
        jobs[t].rc = 0;
        a = b;
    }
    if (rc == 0)
        run_jobs(pass1_job, jobs, sizeof(p1job), T);
    for (t = 0; t < made && rc == 0; t++) {
        const parser *Q = &jobs[t].P;
        int64_t lines = P->lineno;
        if (jobs[t].rc < 0 || grow((void **)&map, &map_cap, Q->nq + 1, sizeof(int32_t)) ||
            grow((void **)&P->segs, &P->seg_cap, P->nseg + Q->nseg, sizeof(segment))) {
            rc = -1;
            break;
        }
        for (i = 0; i < Q->nq && rc == 0; i++) {
            int is_new = 0;
            map[i] = intern_qid(P, Q->qb + Q->qoff[i], (size_t)(Q->qoff[i + 1] - Q->qoff[i]),
                                &is_new);
            if (map[i] < 0)
                rc = -1;
            else if (Q->qbad[i])
                P->qbad[map[i]] = 1;
        }
        for (i = 0; i < Q->nseg && rc == 0; i++) {
            segment sg = Q->segs[i];
            sg.code = map[sg.code];
            sg.first_line += lines;
            P->segs[P->nseg++] = sg;
        }
        P->n += Q->n;
        P->lineno += Q->lineno;
        if (Q->n > 0)
            P->last_line = Q->last_line;
    }
    for (t = 0; t < made; t++)
        parser_free(&jobs[t].P);
    free(map);
    return rc;
}

/* Pass 1 over the whole buffer. */
static int pass1(parser *P, const uint8_t *buf, size_t len, int threads)
{
    const uint8_t *nul;
    size_t k;
    int T;
    if (len == 0)
        return 0;
    nul = (const uint8_t *)memchr(buf, 0, len);
    if (nul != NULL) {
        int64_t line = 1;
        const uint8_t *q;
        for (q = buf; q < nul; q++)
            line += *q == '\n';
        set_error(P, E_NUL, line, NULL, 0);
        return -1;
    }
    /* in place: up to the last newline with at least PAD bytes after it */
    k = len > PAD ? len - PAD : 0;
    while (k > 0 && buf[k - 1] != '\n')
        k--;
    T = worker_threads((int64_t)(k / 40), threads); /* lines are about 40 bytes */
    if (k > 0 && (T > 1 ? pass1_parallel(P, buf, k, T) : pass1_region(P, buf, buf + k)) < 0)
        goto nomem;
    if (k < len) {
        size_t tl = len - k, tl2 = tl + (buf[len - 1] != '\n');
        P->tail = (uint8_t *)malloc(tl2 + PAD);
        if (P->tail == NULL)
            goto nomem;
        memcpy(P->tail, buf + k, tl);
        P->tail[tl] = '\n';
        memset(P->tail + tl2, 0, PAD);
        if (pass1_region(P, P->tail, P->tail + tl2) < 0)
            goto nomem;
    }
    P->ub = (int64_t)len + 1;
    return 0;
nomem:
    set_error(P, E_NOMEM, 0, NULL, 0);
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

/* Grouping plan: the queries in byte order and the segments in output order. */
typedef struct {
    int32_t *sorted;    /* rank -> query code */
    int64_t *qoffs;     /* nq + 1 */
    int64_t *seg_order; /* segments, stably sorted by query rank */
} plan;

static void plan_free(plan *G)
{
    free(G->sorted);
    free(G->qoffs);
    free(G->seg_order);
}

static int make_plan(const parser *P, plan *G)
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
static void pass2_range(parser *P, const plan *G, outbuf *O, size_t s0, size_t s1)
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
        if (pass2_segment(P, &P->segs[G->seg_order[i]], O) < 0)
            break;
    }
}

/* One thread's share of pass 2: its own copy of the parser (for the error
 * fields; everything else is read-only) and its own window of the output. */
typedef struct {
    parser P;
    const plan *G;
    outbuf O;
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
static void pass2_parallel(parser *P, const plan *G, outbuf *O, int T)
{
    p2job jobs[MAX_THREADS];
    size_t i = 0;
    int64_t pos = 0, bytes = 0, end = 0;
    int t;
    if (T > MAX_THREADS)
        T = MAX_THREADS;
    for (t = 0; t < T; t++) {
        int64_t target = (P->n * (t + 1)) / T;
        p2job *J = &jobs[t];
        memcpy(&J->P, P, sizeof(parser));
        J->G = G;
        J->s0 = i;
        J->pos0 = pos;
        J->dpos0 = bytes + 16 * (int64_t)t;
        while (i < P->nseg && (pos < target || t == T - 1)) {
            const segment *sg = &P->segs[G->seg_order[i]];
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
    run_jobs(pass2_job, jobs, sizeof(p2job), T);
    for (t = 0; t < T; t++) { /* the first problem in output order; pass2 re-finds it in file order */
        if (jobs[t].P.err != E_NONE) {
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
static void pass2(parser *P, const plan *G, outbuf *O, int T)
{
    size_t i;
    O->pos = 0;
    O->dpos = 0;
    O->doff[0] = 0;
    if (T < 2)
        pass2_range(P, G, O, 0, P->nseg);
    else
        pass2_parallel(P, G, O, T);
    if (P->err == E_NONE || P->err == E_INTERNAL || P->err == E_NOMEM)
        return;
    P->err = E_NONE;
    O->pos = 0;
    O->dpos = 0;
    for (i = 0; i < P->nseg; i++) {
        if (pass2_segment(P, &P->segs[i], O) < 0)
            return;
    }
    set_error(P, E_INTERNAL, 0, NULL, 0); /* unreachable: the file has a problem */
}

static PyObject *raise_parse_error(const parser *P)
{
    PyObject *msg = NULL, *exc;
    switch (P->err) {
    case E_NOMEM:
        return PyErr_NoMemory();
    case E_INTERNAL:
        PyErr_SetString(PyExc_RuntimeError, "ranklens._core.parse_trec: internal error");
        return NULL;
    case E_NUL:
        msg = PyUnicode_FromString(
            "contains a NUL byte: this looks like a binary file, not TREC text");
        break;
    case E_COLS:
        if (P->kind == 0)
            msg = PyUnicode_FromFormat(
                "expected 6 columns (qid Q0 docid rank score tag), found %lld",
                (long long)P->ecount);
        else
            msg = PyUnicode_FromFormat(
                "expected 4 columns (qid iter docid relevance), found %lld", (long long)P->ecount);
        break;
    case E_UTF8:
        msg = PyUnicode_FromString("is not valid UTF-8 text");
        break;
    default: {
        PyObject *field, *full = PyUnicode_DecodeUTF8((const char *)P->efield,
                                                      (Py_ssize_t)P->eflen, "replace");
        if (full == NULL)
            return NULL;
        field = PyUnicode_Substring(full, 0, 40);
        Py_DECREF(full);
        if (field == NULL)
            return NULL;
        if (P->err == E_NOTNUM)
            msg = PyUnicode_FromFormat("score '%U' is not a number", field);
        else if (P->err == E_NONFINITE)
            msg = PyUnicode_FromFormat("score '%U' is not finite (NaN or infinity)", field);
        else
            msg = PyUnicode_FromFormat("relevance '%U' is not an integer", field);
        Py_DECREF(field);
    }
    }
    if (msg == NULL)
        return NULL;
    exc = Py_BuildValue("(LO)", (long long)P->eline, msg);
    Py_DECREF(msg);
    if (exc == NULL)
        return NULL;
    PyErr_SetObject(PyExc_ValueError, exc);
    Py_DECREF(exc);
    return NULL;
}

/* The 6th field of a (validated) run line. */
static PyObject *line_tag(const uint8_t *p)
{
    int i;
    const uint8_t *s = p;
    for (i = 0; i < 6; i++) {
        unsigned h = 0;
        while (CLS[*p] == C_SPACE)
            p++;
        s = p;
        p = scan_field(p, &h);
    }
    return PyUnicode_DecodeUTF8((const char *)s, (Py_ssize_t)(p - s), "strict");
}

static PyObject *py_parse_trec(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"buf", "kind", "comments", "threads", NULL};
    PyObject *bufobj, *result = NULL, *qids = NULL, *tag = NULL;
    PyArrayObject *q_offsets = NULL, *doc_data = NULL, *doc_offsets = NULL, *values = NULL,
                  *lines = NULL;
    uint8_t *db = NULL; /* doc_data's bytes until they are wrapped in the array */
    int kind, comments, bad_alloc = 0, threads = 0;
    Py_buffer view;
    parser P;
    plan G;
    outbuf O;
    size_t i;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oip|i:parse_trec", kwlist, &bufobj, &kind,
                                     &comments, &threads))
        return NULL;
    if (kind != 0 && kind != 1) {
        PyErr_SetString(PyExc_ValueError, "kind must be 0 (run) or 1 (qrels)");
        return NULL;
    }
    if (PyObject_GetBuffer(bufobj, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    memset(&G, 0, sizeof(G));
    memset(&O, 0, sizeof(O));

    Py_BEGIN_ALLOW_THREADS
    if (parser_init(&P, kind, comments) < 0)
        bad_alloc = 1;
    else if (pass1(&P, (const uint8_t *)view.buf, (size_t)view.len, threads) == 0 &&
             make_plan(&P, &G) < 0)
        bad_alloc = 1;
    Py_END_ALLOW_THREADS

    if (bad_alloc) {
        PyErr_NoMemory();
        goto done;
    }
    if (P.err) {
        raise_parse_error(&P);
        goto done;
    }

    threads = worker_threads(P.n, threads);
    O.dcap = (int64_t)(P.n ? P.ub + 16 * threads : 0);
    q_offsets = new_array((npy_intp)P.nq + 1, NPY_INT64);
    db = (uint8_t *)alloc_buffer((npy_intp)O.dcap, NPY_UINT8);
    doc_offsets = new_array((npy_intp)P.n + 1, NPY_INT64);
    values = new_array((npy_intp)P.n, kind == 0 ? NPY_FLOAT64 : NPY_INT64);
    lines = new_array((npy_intp)P.n, NPY_INT64);
    if (!q_offsets || !db || !doc_offsets || !values || !lines)
        goto done;
    O.vals = PyArray_DATA(values);
    O.lines = I64(lines);
    O.doff = I64(doc_offsets);
    O.db = db;
    O.n = P.n;

    Py_BEGIN_ALLOW_THREADS
    memcpy(PyArray_DATA(q_offsets), G.qoffs, (P.nq + 1) * sizeof(int64_t));
    pass2(&P, &G, &O, threads);
    Py_END_ALLOW_THREADS

    if (P.err == E_NONE && O.pos != P.n)
        set_error(&P, E_INTERNAL, 0, NULL, 0);
    if (P.err) {
        raise_parse_error(&P);
        goto done;
    }
    if (O.dpos != O.dcap) { /* shrink to the docid bytes (if that fails, keep the block) */
        uint8_t *r = (uint8_t *)realloc(db, O.dpos ? (size_t)O.dpos : 1);
        if (r != NULL)
            db = r;
    }
    doc_data = wrap_buffer(db, (npy_intp)O.dpos, NPY_UINT8);
    db = NULL; /* doc_data owns it now, or it was freed */
    if (doc_data == NULL)
        goto done;

    qids = PyList_New((Py_ssize_t)P.nq);
    if (qids == NULL)
        goto done;
    for (i = 0; i < P.nq; i++) {
        int32_t c = G.sorted[i];
        PyObject *s = PyUnicode_DecodeUTF8((const char *)P.qb + P.qoff[c],
                                           (Py_ssize_t)(P.qoff[c + 1] - P.qoff[c]), "strict");
        if (s == NULL)
            goto done;
        PyList_SET_ITEM(qids, (Py_ssize_t)i, s);
    }
    if (kind == 0 && P.n > 0) {
        tag = line_tag(P.last_line);
        if (tag == NULL)
            goto done;
    }
    else {
        tag = Py_None;
        Py_INCREF(tag);
    }
    result = Py_BuildValue("(OOOOOOO)", qids, q_offsets, doc_data, doc_offsets, values, lines,
                           tag);

done:
    Py_XDECREF(qids);
    Py_XDECREF(tag);
    Py_XDECREF(q_offsets);
    Py_XDECREF(doc_data);
    Py_XDECREF(doc_offsets);
    Py_XDECREF(values);
    Py_XDECREF(lines);
    free(db);
    plan_free(&G);
    parser_free(&P);
    PyBuffer_Release(&view);
    return result;
}

/* ------------------------------------------------------------------------ */
/* encode_strings                                                             */
/* ------------------------------------------------------------------------ */

static PyObject *py_encode_strings(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"seq", NULL};
    PyObject *seq, *fast, **items, *result = NULL;
    PyArrayObject *data = NULL, *offsets = NULL;
    Py_ssize_t n, i, sz;
    int64_t total = 0, *off;
    uint8_t *out;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:encode_strings", kwlist, &seq))
        return NULL;
    if (PyUnicode_Check(seq) || PyBytes_Check(seq)) {
        PyErr_Format(PyExc_TypeError, "encode_strings expects a sequence of str, not %.200s",
                     Py_TYPE(seq)->tp_name);
        return NULL;
    }
    fast = PySequence_Fast(seq, "encode_strings expects a sequence of str");
    if (fast == NULL)
        return NULL;
    n = PySequence_Fast_GET_SIZE(fast);
    items = PySequence_Fast_ITEMS(fast);
    offsets = new_array((npy_intp)n + 1, NPY_INT64);
    if (offsets == NULL)
        goto done;
    off = I64(offsets);
    off[0] = 0;
    for (i = 0; i < n; i++) {
        PyObject *o = items[i];
        if (!PyUnicode_Check(o)) {
            PyErr_Format(PyExc_TypeError, "expected str, got %.200s (at index %zd)",
                         Py_TYPE(o)->tp_name, i);
            goto done;
        }
        if (PyUnicode_AsUTF8AndSize(o, &sz) == NULL)
            goto done;
        total += (int64_t)sz;
        off[i + 1] = total;
    }
    data = new_array((npy_intp)total, NPY_UINT8);
    if (data == NULL)
        goto done;
    out = (uint8_t *)PyArray_DATA(data);
    for (i = 0; i < n; i++) {
        const char *s = PyUnicode_AsUTF8AndSize(items[i], &sz); /* cached */
        if (s == NULL)
            goto done;
        memcpy(out + off[i], s, (size_t)sz);
    }
    result = Py_BuildValue("(OO)", data, offsets);
done:
    Py_XDECREF(data);
    Py_XDECREF(offsets);
    Py_DECREF(fast);
    return result;
}

/* ------------------------------------------------------------------------ */
/* group_by_query                                                             */
/* ------------------------------------------------------------------------ */

static PyObject *py_group_by_query(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"q_codes", "n_queries", NULL};
    PyObject *codes_o, *result = NULL;
    PyArrayObject *codes = NULL, *order = NULL, *qoffs = NULL;
    Py_ssize_t nq;
    int64_t n, i, bad = -1, *cur = NULL;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "On:group_by_query", kwlist, &codes_o, &nq))
        return NULL;
    if (nq < 0) {
        PyErr_SetString(PyExc_ValueError, "n_queries must be >= 0");
        return NULL;
    }
    codes = as_array(codes_o, NPY_INT64, "q_codes");
    if (codes == NULL)
        return NULL;
    n = LEN(codes);
    order = new_array((npy_intp)n, NPY_INT64);
    qoffs = new_array((npy_intp)nq + 1, NPY_INT64);
    cur = (int64_t *)malloc(((size_t)nq + 1) * sizeof(int64_t));
    if (cur == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (order == NULL || qoffs == NULL)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    {
        const int64_t *c = I64(codes);
        int64_t *q = I64(qoffs), *o = I64(order);
        memset(q, 0, ((size_t)nq + 1) * sizeof(int64_t));
        for (i = 0; i < n; i++) {
            int64_t v = c[i];
            if (v < 0 || v >= (int64_t)nq) {
                bad = i;
                break;
            }
            q[v + 1]++;
        }
        if (bad < 0) {
            for (i = 0; i < (int64_t)nq; i++)
                q[i + 1] += q[i];
            memcpy(cur, q, (size_t)nq * sizeof(int64_t));
            for (i = 0; i < n; i++)
                o[cur[c[i]]++] = i;
        }
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        PyErr_Format(PyExc_ValueError, "q_codes[%lld] = %lld is outside [0, %zd)", (long long)bad,
                     (long long)I64(codes)[bad], nq);
        goto done;
    }
    result = Py_BuildValue("(OO)", order, qoffs);
done:
    free(cur);
    Py_XDECREF(codes);
    Py_XDECREF(order);
    Py_XDECREF(qoffs);
    return result;
}

/* ------------------------------------------------------------------------ */
/* take_strings                                                               */
/* ------------------------------------------------------------------------ */

static PyObject *py_take_strings(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"data", "offsets", "idx", NULL};
    PyObject *d_o, *o_o, *i_o, *result = NULL;
    PyArrayObject *data = NULL, *offsets = NULL, *idx = NULL, *data2 = NULL, *off2 = NULL;
    int64_t n, m, k, bad = -1, total = 0;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO:take_strings", kwlist, &d_o, &o_o, &i_o))
        return NULL;
    data = as_array(d_o, NPY_UINT8, "data");
    offsets = data ? as_array(o_o, NPY_INT64, "offsets") : NULL;
    idx = offsets ? as_array(i_o, NPY_INT64, "idx") : NULL;
    if (idx == NULL)
        goto done;
    n = check_column(data, offsets, "string column");
    if (n < 0)
        goto done;
    m = LEN(idx);
    off2 = new_array((npy_intp)m + 1, NPY_INT64);
    if (off2 == NULL)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    {
        const int64_t *ix = I64(idx), *of = I64(offsets);
        int64_t *o2 = I64(off2);
        o2[0] = 0;
        for (k = 0; k < m; k++) {
            int64_t e = ix[k];
            if (e < 0 || e >= n) {
                bad = k;
                break;
            }
            total += of[e + 1] - of[e];
            o2[k + 1] = total;
        }
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for a column of %lld strings",
                     (long long)I64(idx)[bad], (long long)n);
        goto done;
    }
    data2 = new_array((npy_intp)total, NPY_UINT8);
    if (data2 == NULL)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    {
        const int64_t *ix = I64(idx), *of = I64(offsets), *o2 = I64(off2);
        const uint8_t *src = (const uint8_t *)PyArray_DATA(data);
        uint8_t *dst = (uint8_t *)PyArray_DATA(data2);
        for (k = 0; k < m; k++) {
            int64_t e = ix[k];
            memcpy(dst + o2[k], src + of[e], (size_t)(o2[k + 1] - o2[k]));
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("(OO)", data2, off2);
done:
    Py_XDECREF(data);
    Py_XDECREF(offsets);
    Py_XDECREF(idx);
    Py_XDECREF(data2);
    Py_XDECREF(off2);
    return result;
}

/* ------------------------------------------------------------------------ */
/* rank                                                                       */
/* ------------------------------------------------------------------------ */

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
    rank_job jobs[MAX_THREADS];
    int64_t first[MAX_THREADS + 1];
    int t, made = 0, rc = 0;
    if (T > MAX_THREADS)
        T = MAX_THREADS;
    split_queries(qo, nq, T, first);
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
        run_jobs(rank_run_job, jobs, sizeof(rank_job), T);
    for (t = 0; t < made; t++) {
        free(jobs[t].kva);
        free(jobs[t].kvb);
        free(jobs[t].tmp);
    }
    return rc;
}

static PyObject *py_rank(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"q_offsets", "doc_data", "doc_offsets", "scores", "policy", "threads", NULL};
    PyObject *qo_o, *dd_o, *do_o, *sc_o;
    PyArrayObject *qo = NULL, *dd = NULL, *dof = NULL, *sc = NULL, *perm = NULL;
    int policy, threads = 0, rc;
    int64_t n, nq, j, maxlen = 0;
    rctx ctx;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOi|i:rank", kwlist, &qo_o, &dd_o, &do_o,
                                     &sc_o, &policy, &threads))
        return NULL;
    if (policy < 0 || policy > 2) {
        PyErr_SetString(PyExc_ValueError,
                        "policy must be 0 (trec_eval), 1 (input) or 2 (docid_asc)");
        return NULL;
    }
    qo = as_array(qo_o, NPY_INT64, "q_offsets");
    dd = qo ? as_array(dd_o, NPY_UINT8, "doc_data") : NULL;
    dof = dd ? as_array(do_o, NPY_INT64, "doc_offsets") : NULL;
    sc = dof ? as_array(sc_o, NPY_FLOAT64, "scores") : NULL;
    if (sc == NULL)
        goto fail;
    n = check_column(dd, dof, "doc");
    if (n < 0)
        goto fail;
    if (LEN(sc) != n) {
        PyErr_Format(PyExc_ValueError, "scores has %lld elements for %lld documents",
                     (long long)LEN(sc), (long long)n);
        goto fail;
    }
    nq = check_qoffsets(qo, n, "q_offsets");
    if (nq < 0)
        goto fail;
    for (j = 0; j < nq; j++) {
        int64_t l = I64(qo)[j + 1] - I64(qo)[j];
        if (l > maxlen)
            maxlen = l;
    }
    perm = new_array((npy_intp)n, NPY_INT64);
    if (perm == NULL)
        goto fail;
    ctx.scores = (const double *)PyArray_DATA(sc);
    ctx.data = (const uint8_t *)PyArray_DATA(dd);
    ctx.off = I64(dof);
    ctx.policy = policy;
    ctx.full = 1;
    threads = worker_threads(n, threads);
    Py_BEGIN_ALLOW_THREADS
    rc = rank_parallel(&ctx, I64(qo), nq, I64(perm), maxlen, threads);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    Py_DECREF(qo);
    Py_DECREF(dd);
    Py_DECREF(dof);
    Py_DECREF(sc);
    return (PyObject *)perm;
fail:
    Py_XDECREF(qo);
    Py_XDECREF(dd);
    Py_XDECREF(dof);
    Py_XDECREF(sc);
    Py_XDECREF(perm);
    return NULL;
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
                    if (grow((void **)&J->dup, &c1, J->m + 1, sizeof(int64_t)) ||
                        grow((void **)&J->first, &c2, J->m + 1, sizeof(int64_t))) {
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

static PyObject *py_find_duplicates(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"q_offsets", "doc_data", "doc_offsets", "order", "limit", "threads", NULL};
    PyObject *qo_o, *dd_o, *do_o, *or_o, *result = NULL;
    PyArrayObject *qo = NULL, *dd = NULL, *dof = NULL, *ord = NULL, *dup_a = NULL,
                  *first_a = NULL;
    long long limit;
    int64_t n, nq, j, maxw = 0, bad = -1;
    size_t m = 0;
    int nomem = 0, threads = 0, t;
    dup_job jobs[MAX_THREADS];
    int64_t first[MAX_THREADS + 1];
    (void)self;

    memset(jobs, 0, sizeof(jobs));
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOL|i:find_duplicates", kwlist, &qo_o,
                                     &dd_o, &do_o, &or_o, &limit, &threads))
        return NULL;
    if (limit < -1) {
        PyErr_SetString(PyExc_ValueError, "limit must be -1 (no limit) or >= 0");
        return NULL;
    }
    qo = as_array(qo_o, NPY_INT64, "q_offsets");
    dd = qo ? as_array(dd_o, NPY_UINT8, "doc_data") : NULL;
    dof = dd ? as_array(do_o, NPY_INT64, "doc_offsets") : NULL;
    if (dof == NULL)
        goto done;
    if (or_o != Py_None) {
        ord = as_array(or_o, NPY_INT64, "order");
        if (ord == NULL)
            goto done;
    }
    n = check_column(dd, dof, "doc");
    if (n < 0)
        goto done;
    nq = check_qoffsets(qo, n, "q_offsets");
    if (nq < 0)
        goto done;
    if (ord != NULL && LEN(ord) != n) {
        PyErr_Format(PyExc_ValueError, "order has %lld elements for %lld documents",
                     (long long)LEN(ord), (long long)n);
        goto done;
    }
    for (j = 0; j < nq; j++) {
        int64_t l = I64(qo)[j + 1] - I64(qo)[j];
        if (limit >= 0 && l > limit)
            l = limit;
        if (l > maxw)
            maxw = l;
    }
    if (ord != NULL) {
        for (j = 0; j < n; j++) {
            if (I64(ord)[j] < 0 || I64(ord)[j] >= n) {
                bad = j;
                break;
            }
        }
    }
    if (bad >= 0) {
        PyErr_Format(PyExc_IndexError, "order[%lld] = %lld is out of bounds for %lld documents",
                     (long long)bad, (long long)I64(ord)[bad], (long long)n);
        goto done;
    }
    memset(jobs, 0, sizeof(jobs));
    threads = worker_threads(n, threads);
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    split_queries(I64(qo), nq, threads, first);
    for (t = 0; t < threads; t++) {
        dup_job *J = &jobs[t];
        J->qo = I64(qo);
        J->off = I64(dof);
        J->order = ord ? I64(ord) : NULL;
        J->data = (const uint8_t *)PyArray_DATA(dd);
        J->limit = (int64_t)limit;
        J->q0 = first[t];
        J->q1 = first[t + 1];
        if (gtable_init(&J->tab, (size_t)maxw) < 0)
            nomem = 1;
    }
    if (!nomem) {
        Py_BEGIN_ALLOW_THREADS
        run_jobs(dup_run_job, jobs, sizeof(dup_job), threads);
        Py_END_ALLOW_THREADS
    }
    for (t = 0; t < threads; t++) {
        nomem |= jobs[t].nomem;
        m += jobs[t].m;
    }
    if (nomem) {
        PyErr_NoMemory();
        goto done;
    }
    dup_a = new_array((npy_intp)m, NPY_INT64);
    first_a = new_array((npy_intp)m, NPY_INT64);
    if (dup_a == NULL || first_a == NULL)
        goto done;
    {
        size_t at = 0;
        for (t = 0; t < threads; t++) {
            if (jobs[t].m) {
                memcpy(I64(dup_a) + at, jobs[t].dup, jobs[t].m * sizeof(int64_t));
                memcpy(I64(first_a) + at, jobs[t].first, jobs[t].m * sizeof(int64_t));
            }
            at += jobs[t].m;
        }
    }
    result = Py_BuildValue("(OO)", dup_a, first_a);
done:
    for (t = 0; t < MAX_THREADS; t++) {
        free(jobs[t].tab.slots);
        free(jobs[t].dup);
        free(jobs[t].first);
    }
    Py_XDECREF(qo);
    Py_XDECREF(dd);
    Py_XDECREF(dof);
    Py_XDECREF(ord);
    Py_XDECREF(dup_a);
    Py_XDECREF(first_a);
    return result;
}

/* ------------------------------------------------------------------------ */
/* align                                                                      */
/* ------------------------------------------------------------------------ */

/* One thread's share of align: run queries [q0, q1), with its own table. */
typedef struct {
    const int64_t *rq, *roff, *perm, *r2q, *qq, *qoff, *qrel;
    const uint8_t *rdata, *qdata;
    int64_t *out;
    int64_t n_run, q0, q1, bad;
    gtable tab;
} align_job;

static void *align_run_job(void *arg)
{
    align_job *J = (align_job *)arg;
    const int64_t *rq = J->rq, *roff = J->roff, *perm = J->perm, *r2q = J->r2q;
    const int64_t *qq = J->qq, *qoff = J->qoff, *qrel = J->qrel;
    const uint8_t *rdata = J->rdata, *qdata = J->qdata;
    const int64_t n_run = J->n_run;
    int64_t *out = J->out, j, bad = -1;
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

static PyObject *py_align(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"run_q_offsets",   "run_doc_data",   "run_doc_offsets",
                      "perm",            "run_to_qrels",   "qrels_q_offsets",
                      "qrels_doc_data",  "qrels_doc_offsets", "qrels_rel",
                      "threads",         NULL};
    PyObject *o[9];
    PyArrayObject *a[9] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    static const int types[9] = {NPY_INT64, NPY_UINT8, NPY_INT64, NPY_INT64, NPY_INT64,
                                 NPY_INT64, NPY_UINT8, NPY_INT64, NPY_INT64};
    PyArrayObject *rel = NULL;
    int64_t n_run, n_qrels, nq_run, nq_qrels, j, maxq = 0, bad = -1;
    align_job jobs[MAX_THREADS];
    int64_t first[MAX_THREADS + 1];
    int k, threads = 0;
    (void)self;

    memset(jobs, 0, sizeof(jobs));
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOOOO|i:align", kwlist, &o[0], &o[1],
                                     &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8], &threads))
        return NULL;
    for (k = 0; k < 9; k++) {
        a[k] = as_array(o[k], types[k], kwlist[k]);
        if (a[k] == NULL)
            goto fail;
    }
    n_run = check_column(a[1], a[2], "run doc");
    if (n_run < 0)
        goto fail;
    nq_run = check_qoffsets(a[0], n_run, "run_q_offsets");
    if (nq_run < 0)
        goto fail;
    if (LEN(a[3]) != n_run) {
        PyErr_Format(PyExc_ValueError, "perm has %lld elements for %lld run documents",
                     (long long)LEN(a[3]), (long long)n_run);
        goto fail;
    }
    if (LEN(a[4]) != nq_run) {
        PyErr_Format(PyExc_ValueError, "run_to_qrels has %lld elements for %lld run queries",
                     (long long)LEN(a[4]), (long long)nq_run);
        goto fail;
    }
    n_qrels = check_column(a[6], a[7], "qrels doc");
    if (n_qrels < 0)
        goto fail;
    nq_qrels = check_qoffsets(a[5], n_qrels, "qrels_q_offsets");
    if (nq_qrels < 0)
        goto fail;
    if (LEN(a[8]) != n_qrels) {
        PyErr_Format(PyExc_ValueError, "qrels_rel has %lld elements for %lld qrels documents",
                     (long long)LEN(a[8]), (long long)n_qrels);
        goto fail;
    }
    for (j = 0; j < nq_run; j++) {
        int64_t v = I64(a[4])[j];
        if (v < -1 || v >= nq_qrels) {
            PyErr_Format(PyExc_ValueError, "run_to_qrels[%lld] = %lld is outside [-1, %lld)",
                         (long long)j, (long long)v, (long long)nq_qrels);
            goto fail;
        }
    }
    for (j = 0; j < nq_qrels; j++) {
        int64_t l = I64(a[5])[j + 1] - I64(a[5])[j];
        if (l > maxq)
            maxq = l;
    }
    rel = new_array((npy_intp)n_run, NPY_INT64);
    if (rel == NULL)
        goto fail;
    threads = worker_threads(n_run, threads);
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    memset(jobs, 0, sizeof(jobs));
    split_queries(I64(a[0]), nq_run, threads, first);
    {
        for (k = 0; k < threads; k++) {
            align_job *J = &jobs[k];
            J->rq = I64(a[0]);
            J->roff = I64(a[2]);
            J->perm = I64(a[3]);
            J->r2q = I64(a[4]);
            J->qq = I64(a[5]);
            J->qoff = I64(a[7]);
            J->qrel = I64(a[8]);
            J->rdata = (const uint8_t *)PyArray_DATA(a[1]);
            J->qdata = (const uint8_t *)PyArray_DATA(a[6]);
            J->out = I64(rel);
            J->n_run = n_run;
            J->bad = -1;
            J->q0 = first[k];
            J->q1 = first[k + 1];
            if (gtable_init(&J->tab, (size_t)maxq) < 0) {
                PyErr_NoMemory();
                goto fail;
            }
        }
    }
    Py_BEGIN_ALLOW_THREADS
    run_jobs(align_run_job, jobs, sizeof(align_job), threads);
    Py_END_ALLOW_THREADS
    for (k = 0; k < threads && bad < 0; k++)
        bad = jobs[k].bad;
    if (bad >= 0) {
        PyErr_Format(PyExc_IndexError, "perm[%lld] = %lld is out of bounds for %lld run documents",
                     (long long)bad, (long long)I64(a[3])[bad], (long long)n_run);
        goto fail;
    }
    for (k = 0; k < MAX_THREADS; k++)
        free(jobs[k].tab.slots);
    for (k = 0; k < 9; k++)
        Py_DECREF(a[k]);
    return (PyObject *)rel;
fail:
    for (k = 0; k < MAX_THREADS; k++)
        free(jobs[k].tab.slots);
    for (k = 0; k < 9; k++)
        Py_XDECREF(a[k]);
    Py_XDECREF(rel);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* pool_runs (rank fusion)                                                    */
/* ------------------------------------------------------------------------ */

/* One input run of pool_runs, and its outputs (in ranked order). */
typedef struct {
    PyArrayObject *a[5]; /* q_offsets, qmap, doc_data, doc_offsets, perm */
    const int64_t *qo, *qmap, *off, *perm;
    const uint8_t *data;
    int64_t nq, n;
    int64_t *inv; /* union query -> the run's query index, or -1 */
    PyArrayObject *fid, *rank;
} pool_run;

/* One thread's share of pool_runs: union queries [u0, u1). */
typedef struct {
    const pool_run *runs;
    int R;
    int64_t u0, u1;
    const int64_t *cap_start; /* per union query: where its source slots start */
    int64_t *src;             /* per fused document (slot): entry * R + run */
    int64_t *count, *bytes;   /* per union query: fused documents, their bytes */
    const int64_t *fused_start, *byte_start;
    uint8_t *out_data;
    int64_t *out_off, *out_count; /* fused documents' ids; how many runs retrieved each */
    gtable tab;
} pool_job;

static void *pool_pass1(void *arg)
{
    pool_job *J = (pool_job *)arg;
    const int R = J->R;
    int64_t u;
    for (u = J->u0; u < J->u1; u++) {
        int64_t *src = J->src + J->cap_start[u], local = 0, nbytes = 0;
        int r;
        gtable_clear(&J->tab);
        for (r = 0; r < R; r++) {
            const pool_run *P = &J->runs[r];
            int64_t j = P->inv[u], p;
            int64_t *fid, *rank;
            if (j < 0)
                continue;
            fid = I64(P->fid);
            rank = I64(P->rank);
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
                        const pool_run *Q = &J->runs[code % R];
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
                fid[p] = found;
                rank[p] = p - P->qo[j] + 1;
            }
        }
        J->count[u] = local;
        J->bytes[u] = nbytes;
    }
    return NULL;
}

static void *pool_pass2(void *arg)
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
            const pool_run *Q = &J->runs[src[k] % R];
            const int64_t f = src[k] / R;
            const int64_t len = Q->off[f + 1] - Q->off[f];
            J->out_off[start + k] = at;
            memcpy(J->out_data + at, Q->data + Q->off[f], (size_t)len);
            at += len;
        }
        for (r = 0; r < R; r++) {
            const pool_run *P = &J->runs[r];
            int64_t j = P->inv[u], p;
            int64_t *fid;
            if (j < 0)
                continue;
            fid = I64(P->fid);
            for (p = P->qo[j]; p < P->qo[j + 1]; p++) {
                fid[p] += start;
                J->out_count[fid[p]]++;
            }
        }
    }
    return NULL;
}

static PyObject *py_pool_runs(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"runs", "n_union", "threads", NULL};
    static const int types[5] = {NPY_INT64, NPY_INT64, NPY_UINT8, NPY_INT64, NPY_INT64};
    static const char *names[5] = {"q_offsets", "qmap", "doc_data", "doc_offsets", "perm"};
    PyObject *runs_o, *seq = NULL, *result = NULL, *outs = NULL;
    PyArrayObject *fq = NULL, *fdata = NULL, *foff = NULL, *fcount = NULL;
    long long n_union;
    int threads = 0, T, t, r, R = 0, nomem = 0;
    pool_run *runs = NULL;
    pool_job jobs[MAX_THREADS];
    int64_t *cap_start = NULL, *src = NULL, *count = NULL, *bytes = NULL, *byte_start = NULL;
    int64_t first[MAX_THREADS + 1], u, total = 0, maxcap = 0;
    (void)self;

    memset(jobs, 0, sizeof(jobs));
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OL|i:pool_runs", kwlist, &runs_o, &n_union,
                                     &threads))
        return NULL;
    if (n_union < 0) {
        PyErr_SetString(PyExc_ValueError, "n_union must be >= 0");
        return NULL;
    }
    seq = PySequence_Fast(runs_o, "runs must be a sequence of tuples");
    if (seq == NULL)
        return NULL;
    R = (int)PySequence_Fast_GET_SIZE(seq);
    runs = (pool_run *)calloc((size_t)(R > 0 ? R : 1), sizeof(pool_run));
    cap_start = (int64_t *)calloc((size_t)n_union + 1, sizeof(int64_t));
    count = (int64_t *)calloc((size_t)n_union + 1, sizeof(int64_t));
    bytes = (int64_t *)calloc((size_t)n_union + 1, sizeof(int64_t));
    byte_start = (int64_t *)calloc((size_t)n_union + 1, sizeof(int64_t));
    if (runs == NULL || cap_start == NULL || count == NULL || bytes == NULL || byte_start == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (r = 0; r < R; r++) {
        pool_run *P = &runs[r];
        PyObject *item = PySequence_Fast_GET_ITEM(seq, r);
        int k;
        int64_t j;
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 5) {
            PyErr_SetString(PyExc_TypeError, "each run must be a tuple of 5 arrays");
            goto done;
        }
        for (k = 0; k < 5; k++) {
            P->a[k] = as_array(PyTuple_GET_ITEM(item, k), types[k], names[k]);
            if (P->a[k] == NULL)
                goto done;
        }
        P->n = check_column(P->a[2], P->a[3], "doc");
        if (P->n < 0)
            goto done;
        P->nq = check_qoffsets(P->a[0], P->n, "q_offsets");
        if (P->nq < 0)
            goto done;
        if (LEN(P->a[1]) != P->nq || LEN(P->a[4]) != P->n) {
            PyErr_SetString(PyExc_ValueError, "qmap and perm must match the run");
            goto done;
        }
        P->qo = I64(P->a[0]);
        P->qmap = I64(P->a[1]);
        P->data = (const uint8_t *)PyArray_DATA(P->a[2]);
        P->off = I64(P->a[3]);
        P->perm = I64(P->a[4]);
        for (j = 0; j < P->n; j++) {
            if (P->perm[j] < 0 || P->perm[j] >= P->n) {
                PyErr_SetString(PyExc_IndexError, "perm is out of bounds");
                goto done;
            }
        }
        P->inv = (int64_t *)malloc(((size_t)n_union + 1) * sizeof(int64_t));
        if (P->inv == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (u = 0; u < n_union; u++)
            P->inv[u] = -1;
        for (j = 0; j < P->nq; j++) {
            int64_t m = P->qmap[j];
            if (m < 0 || m >= n_union || (j > 0 && m <= P->qmap[j - 1])) {
                PyErr_SetString(PyExc_ValueError, "qmap must be increasing and < n_union");
                goto done;
            }
            P->inv[m] = j;
            cap_start[m + 1] += P->qo[j + 1] - P->qo[j];
        }
        P->fid = new_array((npy_intp)P->n, NPY_INT64);
        P->rank = new_array((npy_intp)P->n, NPY_INT64);
        if (P->fid == NULL || P->rank == NULL)
            goto done;
    }
    for (u = 0; u < n_union; u++) {
        if (cap_start[u + 1] > maxcap)
            maxcap = cap_start[u + 1];
        cap_start[u + 1] += cap_start[u];
    }
    total = cap_start[n_union];
    src = (int64_t *)malloc(((size_t)total + 1) * sizeof(int64_t));
    if (src == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    T = worker_threads(total, threads);
    split_queries(cap_start, (int64_t)n_union, T, first);
    for (t = 0; t < T; t++) {
        pool_job *J = &jobs[t];
        J->runs = runs;
        J->R = R;
        J->u0 = first[t];
        J->u1 = first[t + 1];
        J->cap_start = cap_start;
        J->src = src;
        J->count = count;
        J->bytes = bytes;
        if (gtable_init(&J->tab, (size_t)maxcap) < 0)
            nomem = 1;
    }
    if (nomem) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    run_jobs(pool_pass1, jobs, sizeof(pool_job), T);
    Py_END_ALLOW_THREADS
    fq = new_array((npy_intp)n_union + 1, NPY_INT64);
    if (fq == NULL)
        goto done;
    I64(fq)[0] = 0;
    for (u = 0; u < n_union; u++) {
        I64(fq)[u + 1] = I64(fq)[u] + count[u];
        byte_start[u + 1] = byte_start[u] + bytes[u];
    }
    fdata = new_array((npy_intp)byte_start[n_union], NPY_UINT8);
    foff = new_array((npy_intp)I64(fq)[n_union] + 1, NPY_INT64);
    fcount = new_array((npy_intp)I64(fq)[n_union], NPY_INT64);
    if (fdata == NULL || foff == NULL || fcount == NULL)
        goto done;
    memset(PyArray_DATA(fcount), 0, (size_t)I64(fq)[n_union] * sizeof(int64_t));
    I64(foff)[I64(fq)[n_union]] = byte_start[n_union];
    for (t = 0; t < T; t++) {
        jobs[t].fused_start = I64(fq);
        jobs[t].byte_start = byte_start;
        jobs[t].out_data = (uint8_t *)PyArray_DATA(fdata);
        jobs[t].out_off = I64(foff);
        jobs[t].out_count = I64(fcount);
    }
    Py_BEGIN_ALLOW_THREADS
    run_jobs(pool_pass2, jobs, sizeof(pool_job), T);
    Py_END_ALLOW_THREADS
    outs = PyTuple_New(R);
    if (outs == NULL)
        goto done;
    for (r = 0; r < R; r++) {
        PyObject *o = Py_BuildValue("(OO)", runs[r].fid, runs[r].rank);
        if (o == NULL)
            goto done;
        PyTuple_SET_ITEM(outs, r, o);
    }
    result = Py_BuildValue("(OOOOO)", fq, fdata, foff, fcount, outs);
done:
    for (t = 0; t < MAX_THREADS; t++)
        free(jobs[t].tab.slots);
    if (runs != NULL) {
        for (r = 0; r < R; r++) {
            int k;
            for (k = 0; k < 5; k++)
                Py_XDECREF(runs[r].a[k]);
            free(runs[r].inv);
            Py_XDECREF(runs[r].fid);
            Py_XDECREF(runs[r].rank);
        }
    }
    free(runs);
    free(cap_start);
    free(src);
    free(count);
    free(bytes);
    free(byte_start);
    Py_XDECREF(fq);
    Py_XDECREF(fdata);
    Py_XDECREF(foff);
    Py_XDECREF(fcount);
    Py_XDECREF(outs);
    Py_XDECREF(seq);
    return result;
}

/* ------------------------------------------------------------------------ */
/* module                                                                     */
/* ------------------------------------------------------------------------ */

PyDoc_STRVAR(parse_trec_doc,
"parse_trec(buf, kind, comments, threads=0) -> (qids, q_offsets, doc_data, doc_offsets, values, lines, tag)\n\n"
"Parse TREC text (kind 0 = run 'qid Q0 docid rank score tag', 1 = qrels 'qid iter docid rel').\n"
"Entries are grouped by query (query ids in byte order, file order within a query).\n"
"Raises ValueError(line, message) on the first problem.  threads: 0 = automatic\n"
"(large inputs use the cores), n = exactly n threads (at most 8); the result is the same.");

PyDoc_STRVAR(encode_strings_doc,
"encode_strings(seq) -> (data, offsets)\n\nUTF-8 string column of a sequence of str.");

PyDoc_STRVAR(group_by_query_doc,
"group_by_query(q_codes, n_queries) -> (order, q_offsets)\n\n"
"Stable counting sort of entries by query code.");

PyDoc_STRVAR(take_strings_doc,
"take_strings(data, offsets, idx) -> (data2, offsets2)\n\nGather a string column by index.");

PyDoc_STRVAR(rank_doc,
"rank(q_offsets, doc_data, doc_offsets, scores, policy, threads=0) -> perm\n\n"
"Rank each query by score, descending; ties: 0 = docid descending (trec_eval),\n"
"1 = input order, 2 = docid ascending.  threads as for parse_trec.");

PyDoc_STRVAR(find_duplicates_doc,
"find_duplicates(q_offsets, doc_data, doc_offsets, order, limit, threads=0) -> (dup, first)\n\n"
"Repeated docids within each query (among the first `limit` entries of `order`).");

PyDoc_STRVAR(pool_runs_doc,
"pool_runs(runs, n_union, threads=0) -> (q_offsets, doc_data, doc_offsets, counts, per_run)\n\n"
"Pool the documents of several runs per union query (rank fusion).  Each run is a tuple\n"
"(q_offsets, qmap, doc_data, doc_offsets, perm); qmap maps its queries to union query\n"
"indices (increasing).  Fused documents are numbered per union query in (run, rank) order\n"
"of first appearance; counts[f] is how many runs retrieved fused document f.\n"
"per_run[i] = (fid, rank), in perm order.");

PyDoc_STRVAR(align_doc,
"align(run_q_offsets, run_doc_data, run_doc_offsets, perm, run_to_qrels,\n"
"      qrels_q_offsets, qrels_doc_data, qrels_doc_offsets, qrels_rel, threads=0) -> rel\n\n"
"Judgments of the ranked run entries: the relevance, -2 if negative, -1 if unjudged.");

#define METH(name) \
    {#name, (PyCFunction)(void (*)(void))py_##name, METH_VARARGS | METH_KEYWORDS, name##_doc}

static PyMethodDef core_methods[] = {
    METH(parse_trec),
    METH(encode_strings),
    METH(group_by_query),
    METH(take_strings),
    METH(rank),
    METH(find_duplicates),
    METH(align),
    METH(pool_runs),
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    "ranklens._core",
    "Native core of ranklens: TREC parsing, grouping, ranking and alignment.",
    -1,
    core_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    return PyModule_Create(&core_module);
}
