/*
 * ranklens.data._core -- the native core of ranklens.
 *
 * Plain C99 on the CPython and numpy C APIs.  Everything here works on
 * "string columns": a column of n byte strings is a 1-D uint8 array ``data``
 * holding all bytes back to back plus a 1-D int64 array ``offsets`` of length
 * n + 1, string i being data[offsets[i]:offsets[i + 1]].
 *
 * Exported functions (see the module docstring for the details):
 *   parse_trec(buf, kind, comments, threads=0, ranks=0, lone_cr=False)
 *   encode_strings(seq)
 *   encode_objects(values, runs=False)
 *   decimal_strings(values)
 *   decimal_values(data, offsets)
 *   ranges(starts, counts, step=1)
 *   empty(n, dtype)
 *   group_by_query(q_codes, n_queries)
 *   take_strings(data, offsets, idx)
 *   intern_strings(data, offsets)
 *   dict_columns(mapping, integer, keys=None)
 *   rank(q_offsets, doc_data, doc_offsets, scores, policy, threads=0)
 *   find_duplicates(q_offsets, doc_data, doc_offsets, order, limit, threads=0)
 *   align(run_q_offsets, run_doc_data, run_doc_offsets, perm, run_to_qrels,
 *         qrels_q_offsets, qrels_doc_data, qrels_doc_offsets, qrels_rel, threads=0,
 *         *, scores=None, depth=-1)
 *   pool_runs(runs, n_union, threads=0)
 *   affine_sum(n_total, runs, clip=False, threads=0)
 *   format_run(qid_data, qid_offsets, q_offsets, doc_data, doc_offsets, scores, order,
 *              tag, q_lo, q_hi, threads=0)
 *
 * The heavy loops run with the GIL released.  There is no global mutable
 * state: all tables are const.  parse_trec's two passes, rank,
 * find_duplicates, align, pool_runs, affine_sum and format_run run on up to
 * min(cores, 8) POSIX threads for large inputs (RANKLENS_NUM_THREADS=N caps it, 1 turns threads
 * off; the `threads` argument sets it); the result does not depend on the
 * count.
 *
 * This file binds the core to Python: argument parsing and checks, numpy
 * arrays, Python errors, the method table and the module init.  The work is
 * done by the other files of this folder (see core.h).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef NPY_NO_DEPRECATED_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#endif
#include <numpy/arrayobject.h>

#include "core.h"

#include <math.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static const char BUFFER_CAPSULE[] = "ranklens.data._core.buffer";

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

/* Asks the kernel to map the whole pages of [buf, buf + bytes) now, in one call,
 * rather than one page fault at a time as they are first written: about 30% less
 * time for the pages of a fresh block (Linux 5.14+; elsewhere, or if refused,
 * nothing happens and the pages come on first touch as before).  Only for blocks
 * then written by one thread (empty()): the parser's threads fault their pages in
 * parallel, which populating up front in one thread was measured to slow down. */
static void populate(void *buf, size_t bytes)
{
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start, end;
    if (page <= 0)
        return;
    start = ((uintptr_t)buf + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    end = ((uintptr_t)buf + bytes) & ~((uintptr_t)page - 1);
    if (end > start)
        (void)madvise((void *)start, (size_t)(end - start), MADV_POPULATE_WRITE);
#else
    (void)buf;
    (void)bytes;
#endif
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

/* Converts the (data, offsets) arguments of a string column into *data and *offsets (new
 * references, NULL where not made) and checks them; returns n, or -1 with an error set. */
static int64_t column_args(PyObject *d_o, PyObject *o_o, PyArrayObject **data,
                           PyArrayObject **offsets)
{
    *data = as_array(d_o, NPY_UINT8, "data");
    *offsets = *data ? as_array(o_o, NPY_INT64, "offsets") : NULL;
    if (*offsets == NULL)
        return -1;
    return check_column(*data, *offsets, "string column");
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

static PyObject *raise_parse_error(const rl_parser *P)
{
    PyObject *msg = NULL, *exc;
    switch (P->err) {
    case RL_E_NOMEM:
        return PyErr_NoMemory();
    case RL_E_INTERNAL:
        PyErr_SetString(PyExc_RuntimeError, "ranklens.data._core.parse_trec: internal error");
        return NULL;
    case RL_E_NUL:
        msg = PyUnicode_FromString(
            "contains a NUL byte: this looks like a binary file, not TREC text");
        break;
    case RL_E_COLS:
        if (P->kind == 0)
            msg = PyUnicode_FromFormat(
                "expected 6 columns (qid Q0 docid rank score tag), found %lld",
                (long long)P->ecount);
        else
            msg = PyUnicode_FromFormat(
                "expected 4 columns (qid iter docid relevance), found %lld", (long long)P->ecount);
        break;
    case RL_E_UTF8:
        msg = PyUnicode_FromString("is not valid UTF-8 text");
        break;
    case RL_E_CR:
        msg = PyUnicode_FromString(
            "has a carriage return (\\r) that does not end a line: the file seems to use "
            "classic-Mac line ends, which ranklens does not read (they would make it one long "
            "line); convert them first, e.g. tr '\\r' '\\n' < FILE > FILE.unix");
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
        if (P->err == RL_E_NOTNUM)
            msg = PyUnicode_FromFormat("score '%U' is not a number", field);
        else if (P->err == RL_E_NONFINITE)
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
    size_t len;
    const uint8_t *s = rl_run_tag(p, &len);
    return PyUnicode_DecodeUTF8((const char *)s, (Py_ssize_t)len, "strict");
}

static PyObject *py_parse_trec(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"buf", "kind", "comments", "threads", "ranks", "lone_cr", NULL};
    PyObject *bufobj, *result = NULL, *qids = NULL, *tag = NULL;
    PyArrayObject *q_offsets = NULL, *doc_data = NULL, *doc_offsets = NULL, *values = NULL,
                  *lines = NULL, *ranks = NULL;
    uint8_t *db = NULL; /* doc_data's bytes until they are wrapped in the array */
    int kind, comments, bad_alloc = 0, threads = 0, want_ranks = 0, lone_cr = 0;
    Py_buffer view;
    rl_parser P;
    rl_plan G;
    rl_outbuf O;
    size_t i;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oip|iip:parse_trec", kwlist, &bufobj, &kind,
                                     &comments, &threads, &want_ranks, &lone_cr))
        return NULL;
    if (kind != 0 && kind != 1) {
        PyErr_SetString(PyExc_ValueError, "kind must be 0 (run) or 1 (qrels)");
        return NULL;
    }
    if (want_ranks < 0 || want_ranks > 2) {
        PyErr_SetString(PyExc_ValueError, "ranks must be 0, 1 or 2 (strict)");
        return NULL;
    }
    if (want_ranks && kind != 0) {
        PyErr_SetString(PyExc_ValueError, "ranks are read from runs (kind 0) only");
        return NULL;
    }
    if (PyObject_GetBuffer(bufobj, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    memset(&G, 0, sizeof(G));
    memset(&O, 0, sizeof(O));

    Py_BEGIN_ALLOW_THREADS
    if (rl_parser_init(&P, kind, comments) < 0) {
        bad_alloc = 1;
    }
    else {
        P.lone_cr = lone_cr;
        if (rl_pass1(&P, (const uint8_t *)view.buf, (size_t)view.len, threads) == 0 &&
            rl_make_plan(&P, &G) < 0)
            bad_alloc = 1;
    }
    Py_END_ALLOW_THREADS

    if (bad_alloc) {
        PyErr_NoMemory();
        goto done;
    }
    if (P.err) {
        raise_parse_error(&P);
        goto done;
    }

    threads = rl_worker_threads(P.n, threads);
    O.dcap = (int64_t)(P.n ? P.ub + 16 * threads : 0);
    q_offsets = new_array((npy_intp)P.nq + 1, NPY_INT64);
    db = (uint8_t *)alloc_buffer((npy_intp)O.dcap, NPY_UINT8);
    doc_offsets = new_array((npy_intp)P.n + 1, NPY_INT64);
    values = new_array((npy_intp)P.n, kind == 0 ? NPY_FLOAT64 : NPY_INT64);
    lines = new_array((npy_intp)P.n, NPY_INT64);
    if (want_ranks)
        ranks = new_array((npy_intp)P.n, NPY_INT64);
    if (!q_offsets || !db || !doc_offsets || !values || !lines || (want_ranks && !ranks))
        goto done;
    O.vals = PyArray_DATA(values);
    O.ranks = want_ranks ? I64(ranks) : NULL;
    O.strict = want_ranks == 2;
    O.lines = I64(lines);
    O.doff = I64(doc_offsets);
    O.db = db;
    O.n = P.n;

    Py_BEGIN_ALLOW_THREADS
    memcpy(PyArray_DATA(q_offsets), G.qoffs, (P.nq + 1) * sizeof(int64_t));
    rl_pass2(&P, &G, &O, threads);
    Py_END_ALLOW_THREADS

    if (P.err == RL_E_NONE && O.pos != P.n)
        rl_set_error(&P, RL_E_INTERNAL, 0, NULL, 0);
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
    if (want_ranks)
        result = Py_BuildValue("(OOOOOOOO)", qids, q_offsets, doc_data, doc_offsets, values,
                               lines, tag, ranks);
    else
        result = Py_BuildValue("(OOOOOOO)", qids, q_offsets, doc_data, doc_offsets, values,
                               lines, tag);


done:
    Py_XDECREF(qids);
    Py_XDECREF(tag);
    Py_XDECREF(q_offsets);
    Py_XDECREF(doc_data);
    Py_XDECREF(doc_offsets);
    Py_XDECREF(values);
    Py_XDECREF(lines);
    Py_XDECREF(ranks);
    free(db);
    rl_plan_free(&G);
    rl_parser_free(&P);
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
/* encode_objects                                                             */
/* ------------------------------------------------------------------------ */

/* Appends n bytes to the growing buffer *buf (size *cap, *len used). */
static int append_bytes(uint8_t **buf, int64_t *cap, int64_t *len, const char *s, int64_t n)
{
    if (*len + n > *cap) {
        int64_t want = *cap * 2 > *len + n ? *cap * 2 : *len + n;
        uint8_t *grown = (uint8_t *)realloc(*buf, (size_t)want);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        *buf = grown;
        *cap = want;
    }
    memcpy(*buf + *len, s, (size_t)n);
    *len += n;
    return 0;
}

static PyObject *py_encode_objects(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"values", "runs", NULL};
    PyObject *values_o, *result = NULL, *prev = NULL;
    PyArrayObject *values, *data = NULL, *offsets = NULL, *heads = NULL;
    int runs = 0;
    npy_intp n, i, stride;
    const char *base, *prev_s = NULL;
    Py_ssize_t sz, prev_sz = 0;
    int64_t cap, len = 0, count = 0, bad = -1, *off = NULL, *head = NULL;
    uint8_t *buf = NULL;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:encode_objects", kwlist, &values_o,
                                     &runs))
        return NULL;
    if (!PyArray_Check(values_o) || PyArray_TYPE((PyArrayObject *)values_o) != NPY_OBJECT ||
        PyArray_NDIM((PyArrayObject *)values_o) != 1) {
        PyErr_SetString(PyExc_TypeError, "encode_objects expects a 1-D numpy array of objects");
        return NULL;
    }
    values = (PyArrayObject *)values_o;
    n = PyArray_DIM(values, 0);
    stride = PyArray_STRIDE(values, 0);
    base = PyArray_BYTES(values);
    cap = n > 0 ? (int64_t)n * 8 : 1;
    buf = (uint8_t *)malloc((size_t)cap);
    off = (int64_t *)malloc(((size_t)n + 1) * sizeof(int64_t));
    if (runs)
        head = (int64_t *)malloc((n > 0 ? (size_t)n : 1) * sizeof(int64_t));
    if (buf == NULL || off == NULL || (runs && head == NULL)) {
        PyErr_NoMemory();
        goto done;
    }
    off[0] = 0;
    for (i = 0; i < n; i++) {
        PyObject *o = *(PyObject *const *)(base + i * stride);
        const char *s;
        if (runs && o == prev)
            continue;
        if (o == NULL || !PyUnicode_Check(o)) {
            bad = (int64_t)i;
            break;
        }
        s = PyUnicode_AsUTF8AndSize(o, &sz); /* the object's own bytes (ASCII: no copy) */
        if (s == NULL)
            goto done;
        if (runs && prev != NULL && sz == prev_sz && memcmp(s, prev_s, (size_t)sz) == 0) {
            prev = o; /* equal to the row before: the same run */
            continue;
        }
        if (append_bytes(&buf, &cap, &len, s, (int64_t)sz) < 0)
            goto done;
        off[count + 1] = len;
        if (runs)
            head[count] = (int64_t)i;
        count++;
        prev = o;
        prev_s = s;
        prev_sz = sz;
    }
    data = new_array((npy_intp)len, NPY_UINT8);
    offsets = new_array((npy_intp)count + 1, NPY_INT64);
    if (data == NULL || offsets == NULL)
        goto done;
    memcpy(PyArray_DATA(data), buf, (size_t)len);
    memcpy(PyArray_DATA(offsets), off, ((size_t)count + 1) * sizeof(int64_t));
    if (runs) {
        heads = new_array((npy_intp)count, NPY_INT64);
        if (heads == NULL)
            goto done;
        memcpy(PyArray_DATA(heads), head, (size_t)count * sizeof(int64_t));
        result = Py_BuildValue("(OOOL)", data, offsets, heads, (long long)bad);
    } else {
        result = Py_BuildValue("(OOOL)", data, offsets, Py_None, (long long)bad);
    }
done:
    free(buf);
    free(off);
    free(head);
    Py_XDECREF(data);
    Py_XDECREF(offsets);
    Py_XDECREF(heads);
    return result;
}

/* ------------------------------------------------------------------------ */
/* decimal_strings                                                            */
/* ------------------------------------------------------------------------ */
static PyObject *py_decimal_strings(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"values", NULL};
    PyObject *values_o, *result = NULL;
    PyArrayObject *values, *data = NULL, *offsets = NULL;
    int64_t n, total;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:decimal_strings", kwlist, &values_o))
        return NULL;
    values = as_array(values_o, NPY_INT64, "values");
    if (values == NULL)
        return NULL;
    n = LEN(values);
    offsets = new_array((npy_intp)n + 1, NPY_INT64);
    if (offsets == NULL)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    total = rl_decimal_offsets(I64(values), n, I64(offsets));
    Py_END_ALLOW_THREADS
    data = new_array((npy_intp)total, NPY_UINT8);
    if (data == NULL)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    rl_decimal_bytes(I64(values), n, I64(offsets), (uint8_t *)PyArray_DATA(data));
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("(OO)", data, offsets);
done:
    Py_DECREF(values);
    Py_XDECREF(data);
    Py_XDECREF(offsets);
    return result;
}

/* ------------------------------------------------------------------------ */
/* decimal_values                                                             */
/* ------------------------------------------------------------------------ */
static PyObject *py_decimal_values(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"data", "offsets", NULL};
    PyObject *d_o, *o_o;
    PyArrayObject *data = NULL, *offsets = NULL, *out = NULL;
    int64_t n;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:decimal_values", kwlist, &d_o, &o_o))
        return NULL;
    n = column_args(d_o, o_o, &data, &offsets);
    if (n < 0)
        goto done;
    out = new_array((npy_intp)n, NPY_INT64);
    if (out == NULL)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    rl_decimal_values((const uint8_t *)PyArray_DATA(data), I64(offsets), n, I64(out));
    Py_END_ALLOW_THREADS
done:
    Py_XDECREF(data);
    Py_XDECREF(offsets);
    return (PyObject *)out;
}

/* ------------------------------------------------------------------------ */
/* empty                                                                      */
/* ------------------------------------------------------------------------ */
static PyObject *py_empty(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"n", "dtype", NULL};
    Py_ssize_t n;
    const char *dtype;
    int type;
    PyArrayObject *out;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ns:empty", kwlist, &n, &dtype))
        return NULL;
    if (strcmp(dtype, "int64") == 0)
        type = NPY_INT64;
    else if (strcmp(dtype, "float64") == 0)
        type = NPY_FLOAT64;
    else if (strcmp(dtype, "uint8") == 0)
        type = NPY_UINT8;
    else {
        PyErr_Format(PyExc_ValueError, "dtype must be 'int64', 'float64' or 'uint8', not '%s'",
                     dtype);
        return NULL;
    }
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "n must be >= 0");
        return NULL;
    }
    out = new_array((npy_intp)n, type);
    if (out != NULL && PyArray_NBYTES(out) >= (npy_intp)BIG_ARRAY_BYTES)
        populate(PyArray_DATA(out), (size_t)PyArray_NBYTES(out)); /* numpy fills it in one thread */
    return (PyObject *)out;
}

/* ------------------------------------------------------------------------ */
/* ranges                                                                     */
/* ------------------------------------------------------------------------ */
static PyObject *py_ranges(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"starts", "counts", "step", NULL};
    PyObject *starts_o, *counts_o, *result = NULL;
    PyArrayObject *starts = NULL, *counts = NULL, *out = NULL;
    long long step = 1;
    int64_t m, j, total = 0;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|L:ranges", kwlist, &starts_o, &counts_o,
                                     &step))
        return NULL;
    starts = as_array(starts_o, NPY_INT64, "starts");
    if (starts == NULL)
        goto done;
    counts = as_array(counts_o, NPY_INT64, "counts");
    if (counts == NULL)
        goto done;
    m = LEN(starts);
    if (LEN(counts) != m) {
        PyErr_SetString(PyExc_ValueError, "starts and counts must have the same length");
        goto done;
    }
    for (j = 0; j < m; j++) {
        int64_t c = I64(counts)[j];
        if (c < 0 || c > INT64_MAX - total) {
            PyErr_Format(PyExc_ValueError, "counts[%lld] = %lld is negative or too large",
                         (long long)j, (long long)c);
            goto done;
        }
        total += c;
    }
    out = new_array((npy_intp)total, NPY_INT64);
    if (out == NULL)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    rl_ranges(I64(starts), I64(counts), m, (int64_t)step, I64(out));
    Py_END_ALLOW_THREADS
    result = (PyObject *)out;
    out = NULL;
done:
    Py_XDECREF(starts);
    Py_XDECREF(counts);
    Py_XDECREF(out);
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
    int64_t n, bad = -1, *cur = NULL;
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
    bad = rl_group_by_code(I64(codes), n, (int64_t)nq, I64(order), I64(qoffs), cur);
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
    int64_t n, m, bad = -1, total = 0;
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
    bad = rl_take_offsets(I64(idx), m, I64(offsets), n, I64(off2), &total);
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
    rl_take_bytes(I64(idx), m, I64(offsets), (const uint8_t *)PyArray_DATA(data), I64(off2),
                  (uint8_t *)PyArray_DATA(data2));
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
/* intern_strings                                                             */
/* ------------------------------------------------------------------------ */
static PyObject *py_intern_strings(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"data", "offsets", NULL};
    PyObject *d_o, *o_o, *result = NULL, *first_view = NULL;
    PyArrayObject *data = NULL, *offsets = NULL, *codes = NULL, *first = NULL;
    int64_t n, nu = -1;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:intern_strings", kwlist, &d_o, &o_o))
        return NULL;
    n = column_args(d_o, o_o, &data, &offsets);
    if (n < 0)
        goto done;
    codes = new_array((npy_intp)n, NPY_INT64);
    first = codes ? new_array((npy_intp)n, NPY_INT64) : NULL;
    if (first == NULL)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    nu = rl_intern_column((const uint8_t *)PyArray_DATA(data), I64(offsets), n, I64(codes),
                          I64(first));
    Py_END_ALLOW_THREADS
    if (nu < 0) {
        PyErr_NoMemory();
        goto done;
    }
    first_view = PySequence_GetSlice((PyObject *)first, 0, (Py_ssize_t)nu);
    if (first_view == NULL)
        goto done;
    result = Py_BuildValue("(OO)", codes, first_view);
done:
    Py_XDECREF(first_view);
    Py_XDECREF(data);
    Py_XDECREF(offsets);
    Py_XDECREF(codes);
    Py_XDECREF(first);
    return result;
}

/* ------------------------------------------------------------------------ */
/* dict_columns                                                               */
/* ------------------------------------------------------------------------ */

/* One value of a run (a float, or an int that fits a double) or of qrels (an
 * int that fits int64).  0 on success, 1 when the value is not of the fast
 * kind (the caller then declines), with no Python error left set. */
static int fast_value(PyObject *v, int integer, double *score, int64_t *rel)
{
    if (integer) {
        int overflow = 0;
        long long x;
        if (!PyLong_CheckExact(v))
            return 1;
        x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 1;
        }
        *rel = (int64_t)x;
        return 0;
    }
    if (PyFloat_Check(v)) {
        *score = PyFloat_AS_DOUBLE(v);
    } else if (PyLong_CheckExact(v)) {
        *score = PyLong_AsDouble(v);
        if (*score == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return 1;
        }
    } else {
        return 1;
    }
    return isfinite(*score) ? 0 : 1;
}

/* The next (query, documents) pair of a dict of dicts: in the dict's order, or
 * in the order of `keys` (a list of its keys) when that is not None.  0 at the
 * end, or when a key is missing (then a KeyError is set). */
static int next_query(PyObject *mapping, PyObject *keys, Py_ssize_t *pos, PyObject **qkey,
                      PyObject **docs)
{
    if (keys == Py_None)
        return PyDict_Next(mapping, pos, qkey, docs);
    if (*pos >= PyList_GET_SIZE(keys))
        return 0;
    *qkey = PyList_GET_ITEM(keys, *pos);
    *docs = PyDict_GetItemWithError(mapping, *qkey);
    if (*docs == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, *qkey);
        return 0;
    }
    (*pos)++;
    return 1;
}

static PyObject *py_dict_columns(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"mapping", "integer", "keys", NULL};
    PyObject *mapping, *keys = Py_None, *qkey, *docs, *dkey, *value, *qids = NULL;
    PyObject *result = NULL;
    PyArrayObject *counts = NULL, *data = NULL, *offsets = NULL, *values = NULL;
    Py_ssize_t qpos, dpos, sz, nq, j;
    int integer, pass;
    int64_t n = 0, total = 0, e;
    double score = 0.0;
    int64_t rel = 0;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Op|O:dict_columns", kwlist, &mapping,
                                     &integer, &keys))
        return NULL;
    if (!PyDict_CheckExact(mapping))
        Py_RETURN_NONE;
    nq = PyDict_Size(mapping);
    if (keys != Py_None && (!PyList_CheckExact(keys) || PyList_GET_SIZE(keys) != nq)) {
        PyErr_SetString(PyExc_ValueError, "keys must be a list of the mapping's keys");
        return NULL;
    }
    /* pass 0 checks the kinds and counts; pass 1 fills the columns */
    for (pass = 0; pass < 2; pass++) {
        qpos = 0;
        j = 0;
        e = 0;
        while (next_query(mapping, keys, &qpos, &qkey, &docs)) {
            if (pass == 0) {
                if (!PyUnicode_CheckExact(qkey) || !PyDict_CheckExact(docs) ||
                    PyUnicode_AsUTF8AndSize(qkey, &sz) == NULL)
                    goto decline;
                n += PyDict_Size(docs);
            } else {
                Py_INCREF(qkey);
                PyList_SET_ITEM(qids, j, qkey);
                I64(counts)[j] = PyDict_Size(docs);
            }
            j++;
            dpos = 0;
            while (PyDict_Next(docs, &dpos, &dkey, &value)) {
                const char *s;
                if (pass == 0) {
                    if (!PyUnicode_CheckExact(dkey) || fast_value(value, integer, &score, &rel))
                        goto decline;
                    s = PyUnicode_AsUTF8AndSize(dkey, &sz);
                    if (s == NULL)
                        goto decline;
                    total += (int64_t)sz;
                    continue;
                }
                s = PyUnicode_AsUTF8AndSize(dkey, &sz); /* cached by pass 0 */
                if (s == NULL || e >= n || fast_value(value, integer, &score, &rel))
                    goto changed;
                I64(offsets)[e + 1] = I64(offsets)[e] + (int64_t)sz;
                if (I64(offsets)[e + 1] > total)
                    goto changed;
                memcpy((uint8_t *)PyArray_DATA(data) + I64(offsets)[e], s, (size_t)sz);
                if (integer)
                    I64(values)[e] = rel;
                else
                    ((double *)PyArray_DATA(values))[e] = score;
                e++;
            }
        }
        if (PyErr_Occurred())
            goto done;
        if (pass == 0) {
            qids = PyList_New(nq);
            counts = qids ? new_array((npy_intp)nq, NPY_INT64) : NULL;
            offsets = counts ? new_array((npy_intp)n + 1, NPY_INT64) : NULL;
            data = offsets ? new_array((npy_intp)total, NPY_UINT8) : NULL;
            values = data ? new_array((npy_intp)n, integer ? NPY_INT64 : NPY_FLOAT64) : NULL;
            if (values == NULL)
                goto done;
            I64(offsets)[0] = 0;
        } else if (e != n || j != nq) {
            goto changed;
        }
    }
    result = Py_BuildValue("(OOOOO)", qids, counts, data, offsets, values);
    goto done;
changed:
    PyErr_SetString(PyExc_RuntimeError, "the dict changed while it was read");
    goto done;
decline:
    PyErr_Clear();
    result = Py_None;
    Py_INCREF(result);
done:
    Py_XDECREF(qids);
    Py_XDECREF(counts);
    Py_XDECREF(data);
    Py_XDECREF(offsets);
    Py_XDECREF(values);
    return result;
}

/* ------------------------------------------------------------------------ */
/* rank                                                                       */
/* ------------------------------------------------------------------------ */

static PyObject *py_rank(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"q_offsets", "doc_data", "doc_offsets", "scores", "policy", "threads", NULL};
    PyObject *qo_o, *dd_o, *do_o, *sc_o;
    PyArrayObject *qo = NULL, *dd = NULL, *dof = NULL, *sc = NULL, *perm = NULL;
    int policy, threads = 0, rc;
    int64_t n, nq, j, maxlen = 0;
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
    threads = rl_worker_threads(n, threads);
    Py_BEGIN_ALLOW_THREADS
    rc = rl_rank((const double *)PyArray_DATA(sc), (const uint8_t *)PyArray_DATA(dd), I64(dof),
                 policy, I64(qo), nq, I64(perm), maxlen, threads);
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

static PyObject *py_find_duplicates(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"q_offsets", "doc_data", "doc_offsets", "order", "limit", "threads", NULL};
    PyObject *qo_o, *dd_o, *do_o, *or_o, *result = NULL;
    PyArrayObject *qo = NULL, *dd = NULL, *dof = NULL, *ord = NULL, *dup_a = NULL,
                  *first_a = NULL;
    long long limit;
    int64_t n, nq, j, maxw = 0, bad = -1, m;
    int threads = 0;
    rl_dups *D = NULL;
    (void)self;

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
    threads = rl_worker_threads(n, threads);
    D = rl_dups_new(I64(qo), nq, (const uint8_t *)PyArray_DATA(dd), I64(dof),
                    ord ? I64(ord) : NULL, (int64_t)limit, maxw, threads);
    if (D == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    rl_dups_run(D);
    Py_END_ALLOW_THREADS
    m = rl_dups_count(D);
    if (m < 0) {
        PyErr_NoMemory();
        goto done;
    }
    dup_a = new_array((npy_intp)m, NPY_INT64);
    first_a = new_array((npy_intp)m, NPY_INT64);
    if (dup_a == NULL || first_a == NULL)
        goto done;
    rl_dups_copy(D, I64(dup_a), I64(first_a));
    result = Py_BuildValue("(OO)", dup_a, first_a);
done:
    rl_dups_free(D);
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

static PyObject *py_align(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"run_q_offsets",   "run_doc_data",   "run_doc_offsets",
                      "perm",            "run_to_qrels",   "qrels_q_offsets",
                      "qrels_doc_data",  "qrels_doc_offsets", "qrels_rel",
                      "threads",         "scores",         "depth",
                      NULL};
    PyObject *o[9], *scores_o = Py_None, *result = NULL;
    PyArrayObject *a[9] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    static const int types[9] = {NPY_INT64, NPY_UINT8, NPY_INT64, NPY_INT64, NPY_INT64,
                                 NPY_INT64, NPY_UINT8, NPY_INT64, NPY_INT64};
    PyArrayObject *rel = NULL, *sc = NULL, *ties = NULL;
    int64_t n_run, n_qrels, nq_run, nq_qrels, j, maxq = 0, bad = -1;
    long long depth = -1;
    rl_align_args in;
    rl_align *A = NULL;
    int k, threads = 0;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOOOO|i$OL:align", kwlist, &o[0], &o[1],
                                     &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8], &threads,
                                     &scores_o, &depth))
        return NULL;
    if (depth < -1) {
        PyErr_SetString(PyExc_ValueError, "depth must be -1 (no limit) or >= 0");
        return NULL;
    }
    for (k = 0; k < 9; k++) {
        a[k] = as_array(o[k], types[k], kwlist[k]);
        if (a[k] == NULL)
            goto fail;
    }
    if (scores_o != Py_None) {
        sc = as_array(scores_o, NPY_FLOAT64, "scores");
        if (sc == NULL)
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
    if (sc != NULL && LEN(sc) != n_run) {
        PyErr_Format(PyExc_ValueError, "scores has %lld elements for %lld run documents",
                     (long long)LEN(sc), (long long)n_run);
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
    if (sc != NULL) {
        ties = new_array((npy_intp)nq_run, NPY_INT64);
        if (ties == NULL)
            goto fail;
    }
    threads = rl_worker_threads(n_run, threads);
    in.rq = I64(a[0]);
    in.roff = I64(a[2]);
    in.perm = I64(a[3]);
    in.r2q = I64(a[4]);
    in.qq = I64(a[5]);
    in.qoff = I64(a[7]);
    in.qrel = I64(a[8]);
    in.rdata = (const uint8_t *)PyArray_DATA(a[1]);
    in.qdata = (const uint8_t *)PyArray_DATA(a[6]);
    in.out = I64(rel);
    in.n_run = n_run;
    in.nq_run = nq_run;
    in.scores = sc != NULL ? (const double *)PyArray_DATA(sc) : NULL;
    in.depth = (int64_t)depth;
    in.ties = ties != NULL ? I64(ties) : NULL;
    A = rl_align_new(&in, maxq, threads);
    if (A == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    rl_align_run(A);
    Py_END_ALLOW_THREADS
    bad = rl_align_bad(A);
    if (bad >= 0) {
        PyErr_Format(PyExc_IndexError, "perm[%lld] = %lld is out of bounds for %lld run documents",
                     (long long)bad, (long long)I64(a[3])[bad], (long long)n_run);
        goto fail;
    }
    if (ties != NULL)
        result = Py_BuildValue("(OO)", rel, ties);
    else {
        result = (PyObject *)rel;
        Py_INCREF(result);
    }
fail:
    rl_align_free(A);
    for (k = 0; k < 9; k++)
        Py_XDECREF(a[k]);
    Py_XDECREF(sc);
    Py_XDECREF(ties);
    Py_XDECREF(rel);
    return result;
}

/* ------------------------------------------------------------------------ */
/* pool_runs (rank fusion)                                                    */
/* ------------------------------------------------------------------------ */

static PyObject *py_pool_runs(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"runs", "n_union", "threads", NULL};
    static const int types[5] = {NPY_INT64, NPY_INT64, NPY_UINT8, NPY_INT64, NPY_INT64};
    static const char *names[5] = {"q_offsets", "qmap", "doc_data", "doc_offsets", "perm"};
    PyObject *runs_o, *seq = NULL, *result = NULL, *outs = NULL;
    PyArrayObject *fq = NULL, *fdata = NULL, *foff = NULL, *fcount = NULL;
    PyArrayObject *(*arrs)[7] = NULL; /* per run: the 5 inputs, then fid and rank */
    rl_pool_run *runs = NULL;
    rl_pool *pool = NULL;
    long long n_union;
    int64_t u, nbytes;
    int threads = 0, r, k, R = 0;
    (void)self;

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
    runs = (rl_pool_run *)calloc((size_t)(R > 0 ? R : 1), sizeof(rl_pool_run));
    arrs = (PyArrayObject * (*)[7]) calloc((size_t)(R > 0 ? R : 1), sizeof(*arrs));
    if (runs == NULL || arrs == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (r = 0; r < R; r++) {
        rl_pool_run *P = &runs[r];
        PyArrayObject **a = arrs[r];
        PyObject *item = PySequence_Fast_GET_ITEM(seq, r);
        int64_t j;
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 5) {
            PyErr_SetString(PyExc_TypeError, "each run must be a tuple of 5 arrays");
            goto done;
        }
        for (k = 0; k < 5; k++) {
            a[k] = as_array(PyTuple_GET_ITEM(item, k), types[k], names[k]);
            if (a[k] == NULL)
                goto done;
        }
        P->n = check_column(a[2], a[3], "doc");
        if (P->n < 0)
            goto done;
        P->nq = check_qoffsets(a[0], P->n, "q_offsets");
        if (P->nq < 0)
            goto done;
        if (LEN(a[1]) != P->nq || LEN(a[4]) != P->n) {
            PyErr_SetString(PyExc_ValueError, "qmap and perm must match the run");
            goto done;
        }
        P->qo = I64(a[0]);
        P->qmap = I64(a[1]);
        P->data = (const uint8_t *)PyArray_DATA(a[2]);
        P->off = I64(a[3]);
        P->perm = I64(a[4]);
        for (j = 0; j < P->n; j++) {
            if (P->perm[j] < 0 || P->perm[j] >= P->n) {
                PyErr_SetString(PyExc_IndexError, "perm is out of bounds");
                goto done;
            }
        }
        for (j = 0; j < P->nq; j++) {
            int64_t m = P->qmap[j];
            if (m < 0 || m >= n_union || (j > 0 && m <= P->qmap[j - 1])) {
                PyErr_SetString(PyExc_ValueError, "qmap must be increasing and < n_union");
                goto done;
            }
        }
        a[5] = new_array((npy_intp)P->n, NPY_INT64);
        a[6] = new_array((npy_intp)P->n, NPY_INT64);
        if (a[5] == NULL || a[6] == NULL)
            goto done;
        P->fid = I64(a[5]);
        P->rank = I64(a[6]);
    }
    pool = rl_pool_new(runs, R, (int64_t)n_union, threads);
    if (pool == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    rl_pool_pass1(pool);
    Py_END_ALLOW_THREADS
    fq = new_array((npy_intp)n_union + 1, NPY_INT64);
    if (fq == NULL)
        goto done;
    nbytes = rl_pool_offsets(pool, I64(fq));
    u = I64(fq)[n_union]; /* fused documents */
    fdata = new_array((npy_intp)nbytes, NPY_UINT8);
    foff = new_array((npy_intp)u + 1, NPY_INT64);
    fcount = new_array((npy_intp)u, NPY_INT64);
    if (fdata == NULL || foff == NULL || fcount == NULL)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    rl_pool_pass2(pool, I64(fq), (uint8_t *)PyArray_DATA(fdata), I64(foff), I64(fcount));
    Py_END_ALLOW_THREADS
    outs = PyTuple_New(R);
    if (outs == NULL)
        goto done;
    for (r = 0; r < R; r++) {
        PyObject *o = Py_BuildValue("(OO)", arrs[r][5], arrs[r][6]);
        if (o == NULL)
            goto done;
        PyTuple_SET_ITEM(outs, r, o);
    }
    result = Py_BuildValue("(OOOOO)", fq, fdata, foff, fcount, outs);
done:
    rl_pool_free(pool);
    if (arrs != NULL) {
        for (r = 0; r < R; r++) {
            for (k = 0; k < 7; k++)
                Py_XDECREF(arrs[r][k]);
        }
    }
    free(arrs);
    free(runs);
    Py_XDECREF(fq);
    Py_XDECREF(fdata);
    Py_XDECREF(foff);
    Py_XDECREF(fcount);
    Py_XDECREF(outs);
    Py_XDECREF(seq);
    return result;
}

/* ------------------------------------------------------------------------ */
/* affine_sum (rank fusion: normalised scores added up)                       */
/* ------------------------------------------------------------------------ */

static PyObject *py_affine_sum(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"n_total", "runs", "clip", "threads", NULL};
    static const int types[7] = {NPY_INT64,   NPY_INT64,   NPY_FLOAT64, NPY_INT64,
                                 NPY_FLOAT64, NPY_FLOAT64, NPY_UINT8};
    static const char *names[7] = {"q_offsets", "perm", "scores", "fid", "shift", "scale", "flat"};
    PyObject *runs_o, *seq = NULL;
    PyArrayObject *total = NULL, *a[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    long long n_total;
    int clip = 0, threads = 0, r, k, R, bad = 0;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LO|pi:affine_sum", kwlist, &n_total, &runs_o,
                                     &clip, &threads))
        return NULL;
    if (n_total < 0) {
        PyErr_SetString(PyExc_ValueError, "n_total must be >= 0");
        return NULL;
    }
    seq = PySequence_Fast(runs_o, "runs must be a sequence of tuples");
    if (seq == NULL)
        return NULL;
    R = (int)PySequence_Fast_GET_SIZE(seq);
    total = new_array((npy_intp)n_total, NPY_FLOAT64);
    if (total == NULL)
        goto fail;
    memset(PyArray_DATA(total), 0, (size_t)n_total * sizeof(double));
    for (r = 0; r < R; r++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, r);
        rl_affine_run run;
        double weight;
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 8) {
            PyErr_SetString(PyExc_TypeError, "each run must be a tuple of 7 arrays and a weight");
            goto fail;
        }
        for (k = 0; k < 7; k++) {
            a[k] = as_array(PyTuple_GET_ITEM(item, k), types[k], names[k]);
            if (a[k] == NULL)
                goto fail;
        }
        weight = PyFloat_AsDouble(PyTuple_GET_ITEM(item, 7));
        if (weight == -1.0 && PyErr_Occurred())
            goto fail;
        run.n = LEN(a[1]);
        run.nq = check_qoffsets(a[0], run.n, "q_offsets");
        if (run.nq < 0)
            goto fail;
        if (LEN(a[2]) != run.n || LEN(a[3]) != run.n || LEN(a[4]) != run.nq ||
            LEN(a[5]) != run.nq || LEN(a[6]) != run.nq) {
            PyErr_SetString(PyExc_ValueError,
                            "scores and fid must match perm; shift, scale and flat the queries");
            goto fail;
        }
        run.qo = I64(a[0]);
        run.perm = I64(a[1]);
        run.scores = (const double *)PyArray_DATA(a[2]);
        run.fid = I64(a[3]);
        run.shift = (const double *)PyArray_DATA(a[4]);
        run.scale = (const double *)PyArray_DATA(a[5]);
        run.flat = (const uint8_t *)PyArray_DATA(a[6]);
        run.weight = weight;
        Py_BEGIN_ALLOW_THREADS
        bad = rl_affine_sum(&run, clip, (double *)PyArray_DATA(total), (int64_t)n_total, threads);
        Py_END_ALLOW_THREADS
        if (bad) {
            PyErr_SetString(PyExc_IndexError, "perm or fid is out of bounds");
            goto fail;
        }
        for (k = 0; k < 7; k++)
            Py_CLEAR(a[k]);
    }
    Py_DECREF(seq);
    return (PyObject *)total;
fail:
    for (k = 0; k < 7; k++)
        Py_XDECREF(a[k]);
    Py_XDECREF(total);
    Py_XDECREF(seq);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* format_run (TREC run text)                                                 */
/* ------------------------------------------------------------------------ */

static PyObject *py_format_run(PyObject *self, PyObject *args, PyObject *kwargs)
{
    char *kwlist[] = {"qid_data", "qid_offsets", "q_offsets", "doc_data", "doc_offsets",
                      "scores",   "order",       "tag",       "q_lo",     "q_hi",
                      "threads",  NULL};
    PyObject *qd_o, *qo_o, *qoff_o, *dd_o, *do_o, *sc_o, *or_o, *result = NULL;
    PyArrayObject *qd = NULL, *qoff = NULL, *qo = NULL, *dd = NULL, *doff = NULL, *sc = NULL,
                  *ord = NULL;
    rl_text_part parts[RL_MAX_THREADS];
    rl_run_text R;
    const char *tag;
    Py_ssize_t tag_len;
    long long q_lo, q_hi;
    int64_t n, nq, total = 0;
    int threads = 0, t, bad = 0;
    (void)self;

    memset(parts, 0, sizeof parts);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOOy#LL|i:format_run", kwlist, &qd_o,
                                     &qo_o, &qoff_o, &dd_o, &do_o, &sc_o, &or_o, &tag, &tag_len,
                                     &q_lo, &q_hi, &threads))
        return NULL;
    qd = as_array(qd_o, NPY_UINT8, "qid_data");
    qo = qd ? as_array(qo_o, NPY_INT64, "qid_offsets") : NULL;
    qoff = qo ? as_array(qoff_o, NPY_INT64, "q_offsets") : NULL;
    dd = qoff ? as_array(dd_o, NPY_UINT8, "doc_data") : NULL;
    doff = dd ? as_array(do_o, NPY_INT64, "doc_offsets") : NULL;
    sc = doff ? as_array(sc_o, NPY_FLOAT64, "scores") : NULL;
    ord = sc ? as_array(or_o, NPY_INT64, "order") : NULL;
    if (ord == NULL)
        goto done;
    if (check_column(qd, qo, "qid") < 0)
        goto done;
    n = check_column(dd, doff, "doc");
    if (n < 0)
        goto done;
    nq = check_qoffsets(qoff, n, "q_offsets");
    if (nq < 0)
        goto done;
    if (LEN(qo) != nq + 1 || LEN(sc) != n || LEN(ord) != n) {
        PyErr_SetString(PyExc_ValueError, "qids, scores and order must match the run");
        goto done;
    }
    if (q_lo < 0 || q_lo > q_hi || q_hi > nq) {
        PyErr_SetString(PyExc_ValueError, "need 0 <= q_lo <= q_hi <= the number of queries");
        goto done;
    }
    R.qo = I64(qoff);
    R.qid_off = I64(qo);
    R.doc_off = I64(doff);
    R.order = I64(ord);
    R.qid_data = (const uint8_t *)PyArray_DATA(qd);
    R.doc_data = (const uint8_t *)PyArray_DATA(dd);
    R.scores = (const double *)PyArray_DATA(sc);
    R.tag = tag;
    R.tag_len = (size_t)tag_len;
    R.n = n;
    Py_BEGIN_ALLOW_THREADS
    bad = rl_format_run(&R, (int64_t)q_lo, (int64_t)q_hi, threads, parts);
    Py_END_ALLOW_THREADS
    if (bad == 1) {
        PyErr_SetString(PyExc_IndexError, "order is out of bounds");
        goto done;
    }
    if (bad) {
        PyErr_NoMemory();
        goto done;
    }
    for (t = 0; t < RL_MAX_THREADS; t++)
        total += parts[t].len;
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    if (result != NULL) {
        char *w = PyBytes_AS_STRING(result);
        for (t = 0; t < RL_MAX_THREADS; t++) {
            if (parts[t].len > 0)
                memcpy(w, parts[t].buf, (size_t)parts[t].len);
            w += parts[t].len;
        }
    }
done:
    for (t = 0; t < RL_MAX_THREADS; t++)
        free(parts[t].buf);
    Py_XDECREF(qd);
    Py_XDECREF(qo);
    Py_XDECREF(qoff);
    Py_XDECREF(dd);
    Py_XDECREF(doff);
    Py_XDECREF(sc);
    Py_XDECREF(ord);
    return result;
}

/* ------------------------------------------------------------------------ */
/* module                                                                     */
/* ------------------------------------------------------------------------ */

PyDoc_STRVAR(parse_trec_doc,
"parse_trec(buf, kind, comments, threads=0, ranks=0, lone_cr=False) -> (qids, q_offsets, doc_data, doc_offsets, values, lines, tag[, ranks])\n\n"
"Parse TREC text (kind 0 = run 'qid Q0 docid rank score tag', 1 = qrels 'qid iter docid rel').\n"
"Entries are grouped by query (query ids in byte order, file order within a query).\n"
"Raises ValueError(line, message) on the first problem.  threads: 0 = automatic\n"
"(large inputs use the cores), n = exactly n threads (at most 8); the result is the same.\n"
"ranks=1 (runs only) adds an 8th item: the rank column as int64, INT64_MIN where the\n"
"field is not an integer (a relevance's syntax); it is not validated otherwise.  ranks=2:\n"
"NIST ndeval's syntax, INT64_MIN unless the field is 1 to 18 digits on a line of exactly\n"
"6 fields.  A NUL byte is an error (its line); with lone_cr, so is a carriage return that\n"
"does not end a line (a CR at the end of a file without a final newline included), checked\n"
"first: both are found during the first pass over the lines.");

PyDoc_STRVAR(encode_strings_doc,
"encode_strings(seq) -> (data, offsets)\n\nUTF-8 string column of a sequence of str.");

PyDoc_STRVAR(encode_objects_doc,
"encode_objects(values, runs=False) -> (data, offsets, heads, bad)\n\n"
"UTF-8 string column of a 1-D numpy object array of str, read in place.  With runs, only\n"
"the first row of each run of equal values is kept and heads holds those rows (else\n"
"None).  bad is the first row that is not a str (the columns then stop before it), or -1.");

PyDoc_STRVAR(decimal_values_doc,
"decimal_values(data, offsets) -> values\n\n"
"The integer each string of a column writes plainly in decimal (the text of str(v) for\n"
"0 <= v < 10**18: digits only, no sign, no leading zero but for '0'), -1 for any other.");

PyDoc_STRVAR(decimal_strings_doc,
"decimal_strings(values) -> (data, offsets)\n\n"
"The decimal text of int64 values as a string column (str(int) of each).");

PyDoc_STRVAR(empty_doc,
"empty(n, dtype) -> array\n\n"
"An uninitialized 1-D array of n 'int64', 'float64' or 'uint8' values, from the\n"
"allocator of this module's own outputs (big arrays come from malloc, without numpy's\n"
"huge-page advice, their pages mapped up front), for the out= of numpy calls on\n"
"per-entry columns.");

PyDoc_STRVAR(ranges_doc,
"ranges(starts, counts, step=1) -> values\n\n"
"starts[j], starts[j] + step, ... (counts[j] values) for each j, back to back, as int64:\n"
"np.repeat(starts, counts) + the position within each run times step, in one array.");

PyDoc_STRVAR(group_by_query_doc,
"group_by_query(q_codes, n_queries) -> (order, q_offsets)\n\n"
"Stable counting sort of entries by query code.");

PyDoc_STRVAR(take_strings_doc,
"take_strings(data, offsets, idx) -> (data2, offsets2)\n\nGather a string column by index.");

PyDoc_STRVAR(intern_strings_doc,
"intern_strings(data, offsets) -> (codes, first)\n\n"
"Codes of the strings of a column in order of first appearance, and the row where each\n"
"code first appears.");
PyDoc_STRVAR(dict_columns_doc,
"dict_columns(mapping, integer, keys=None) -> (qids, counts, doc_data, doc_offsets, values)\n"
"or None\n\n"
"The columns of {qid: {docid: value}} read in one walk (float or int scores; int\n"
"relevance), queries in insertion order (or in the order of the list `keys`, the mapping's\n"
"keys) with their entry counts; None when anything is not of those exact kinds (str ids,\n"
"dict values), so that the caller takes its checked path.");
PyDoc_STRVAR(rank_doc,
"rank(q_offsets, doc_data, doc_offsets, scores, policy, threads=0) -> perm\n\n"
"Rank each query by score, descending; ties: 0 = docid descending (trec_eval),\n"
"1 = input order, 2 = docid ascending.  threads as for parse_trec.");

PyDoc_STRVAR(find_duplicates_doc,
"find_duplicates(q_offsets, doc_data, doc_offsets, order, limit, threads=0) -> (dup, first)\n\n"
"Repeated docids within each query (among the first `limit` entries of `order`).");

PyDoc_STRVAR(align_doc,
"align(run_q_offsets, run_doc_data, run_doc_offsets, perm, run_to_qrels,\n"
"      qrels_q_offsets, qrels_doc_data, qrels_doc_offsets, qrels_rel, threads=0,\n"
"      *, scores=None, depth=-1) -> rel, or (rel, ties) with scores\n\n"
"Judgments of the ranked run entries: the relevance, -2 if negative, -1 if unjudged.\n"
"With scores (float64 per run entry), in the same pass, ties[j] for each run query: the\n"
"0-based rank where its first group of equal scores holding documents of different gains\n"
"(max(judgment, 0)) begins, among the groups that begin before rank depth (-1: all; a\n"
"group the depth cuts counts whole), or -1 if none.");

PyDoc_STRVAR(pool_runs_doc,
"pool_runs(runs, n_union, threads=0) -> (q_offsets, doc_data, doc_offsets, counts, per_run)\n\n"
"Pool the documents of several runs per union query (rank fusion).  Each run is a tuple\n"
"(q_offsets, qmap, doc_data, doc_offsets, perm); qmap maps its queries to union query\n"
"indices (increasing).  Fused documents are numbered per union query in (run, rank) order\n"
"of first appearance; counts[f] is how many runs retrieved fused document f.\n"
"per_run[i] = (fid, rank), in perm order.");

PyDoc_STRVAR(affine_sum_doc,
"affine_sum(n_total, runs, clip=False, threads=0) -> total\n\n"
"Per fused document, the sum over runs (in order, from 0) of normalised scores (rank\n"
"fusion).  Each run is a tuple (q_offsets, perm, scores, fid, shift, scale, flat, weight):\n"
"for query j's ranked entries p, v = 1 if flat[j] else (scores[perm[p]] - shift[j]) /\n"
"scale[j]; with clip, v = maximum(v, 0) (NaN stays); total[fid[p]] += weight * v (v when\n"
"weight is 1).");

PyDoc_STRVAR(format_run_doc,
"format_run(qid_data, qid_offsets, q_offsets, doc_data, doc_offsets, scores, order, tag,\n"
"           q_lo, q_hi, threads=0) -> bytes\n\n"
"TREC run text 'qid Q0 docid rank score tag' of queries [q_lo, q_hi): query j's lines are\n"
"the entries order[q_offsets[j]:q_offsets[j+1]] ranked from 1; qids and docids are string\n"
"columns (UTF-8), tag is bytes, each score is written as repr(float) writes it.  threads\n"
"as for parse_trec; the text is the same.");

#define METH(name) \
    {#name, (PyCFunction)(void (*)(void))py_##name, METH_VARARGS | METH_KEYWORDS, name##_doc}

static PyMethodDef core_methods[] = {
    METH(parse_trec),
    METH(encode_strings),
    METH(encode_objects),
    METH(decimal_strings),
    METH(decimal_values),
    METH(ranges),
    METH(empty),
    METH(group_by_query),
    METH(take_strings),
    METH(intern_strings),
    METH(dict_columns),
    METH(rank),
    METH(find_duplicates),
    METH(align),
    METH(pool_runs),
    METH(affine_sum),
    METH(format_run),
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    "ranklens.data._core",
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
