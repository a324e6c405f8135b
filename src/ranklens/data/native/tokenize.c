/*
 * tokenize.c -- from lines of TREC text to fields and values.
 *
 * The byte classes, the line tokenizer (with word-at-a-time and SSE2 fast
 * paths), strict UTF-8 checks, the number parsers (scores and relevances),
 * and the per-line loops of parse_trec's two passes that use them: pass 1
 * over a region (query ids cut into segments) and pass 2 over a segment
 * (entries parsed, checked and written to their final place).  The loops
 * live here, beside the tokenizer, so that it inlines into them; parse.c
 * drives them over the file.
 *
 * The tokenizer reads whole 64-bit words and copies docids 16 bytes at a
 * time, so every region it scans ends with '\n' and is followed by at least
 * RL_PAD readable bytes.
 */
#include "core.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

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

#define NUMBUF 64 /* numbers of NUMBUF - 1 characters or fewer are parsed on the stack */

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

/* The start of the line after the one that p is in (a region ends with '\n',
 * and RL_PAD bytes after it are readable: whole 16-byte blocks can be loaded).
 * Sets *odd to bit 0 when the bytes from p to the line's end hold a NUL byte,
 * bit 1 when they hold a carriage return not followed by '\n' (a lone CR): the
 * checks of a TREC file that would otherwise take passes of their own. */
static inline const uint8_t *next_line(const uint8_t *p, const uint8_t *end, unsigned *odd)
{
#ifdef RL_SSE2
    const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), nul = _mm_setzero_si128();
    unsigned z = 0, c = 0;
    (void)end;
    for (;;) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl));
        unsigned zb = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nul));
        unsigned cb = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, cr)) & ~(m >> 1);
        if (m != 0) {
            unsigned before = (1u << __builtin_ctz(m)) - 1u;
            z |= zb & before;
            c |= cb & before;
            *odd = (z != 0) | ((c != 0) << 1);
            return p + __builtin_ctz(m) + 1;
        }
        if ((cb & 0x8000u) && p[16] == '\n') /* CR LF across two blocks */
            cb &= 0x7FFFu;
        z |= zb;
        c |= cb;
        p += 16;
    }
#else
    const uint8_t *e = (const uint8_t *)memchr(p, '\n', (size_t)(end - p));
    unsigned o = 0;
    for (; p < e; p++) {
        if (*p == 0)
            o |= 1u;
        else if (*p == '\r' && p[1] != '\n')
            o |= 2u;
    }
    *odd = o;
    return e + 1;
#endif
}

/* Records the line ln's NUL byte or lone carriage return (the bits of *odd, as
 * next_line sets them), when it is the first of its kind in the region. */
static inline void note_odd(rl_parser *P, unsigned odd, int64_t ln)
{
    if ((odd & 1u) && P->nul_line == 0)
        P->nul_line = ln;
    if ((odd & 2u) && P->cr_line == 0)
        P->cr_line = ln;
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
 * not handle.  Returns RL_E_NONE, RL_E_NOTNUM, RL_E_NONFINITE, or RL_E_NOMEM
 * when a long literal's copy cannot be allocated. */
static int slow_double(const uint8_t *s, size_t n, double *out)
{
    char small[NUMBUF], *buf = small;
    char *endp;
    size_t i;
    double v;
    int status = RL_E_NONE;
    if (n == 0)
        return RL_E_NOTNUM;
    for (i = 0; i < n; i++) {
        if (s[i] == 'x' || s[i] == 'X') /* hexadecimal floats */
            return RL_E_NOTNUM;
    }
    if (n >= NUMBUF) { /* a long literal (many digits): strtod reads it from the heap */
        buf = (char *)malloc(n + 1);
        if (buf == NULL)
            return RL_E_NOMEM;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    v = strtod(buf, &endp);
    if (endp != buf + n)
        status = RL_E_NOTNUM;
    else if (!isfinite(v))
        status = RL_E_NONFINITE;
    if (buf != small)
        free(buf);
    if (status == RL_E_NONE)
        *out = v;
    return status;
}

static inline int is_digit(uint8_t c) { return (unsigned)(c - '0') < 10u; }

/* Parses a decimal floating point literal.  Simple literals (at most 19
 * significant digits, value exactly m * 10^e with m <= 2^53, |e| <= 22) are
 * converted exactly with one correctly rounded IEEE operation (Clinger's
 * fast path, so the result equals strtod's); everything else goes through
 * strtod.  Returns RL_E_NONE, RL_E_NOTNUM, RL_E_NONFINITE or RL_E_NOMEM. */
static inline int parse_double(const uint8_t *s, size_t n, double *out)
{
    const uint8_t *p = s, *e = s + n;
    uint64_t m = 0;
    int nd = 0, any = 0, neg = 0;
    int64_t dexp = 0;
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
        return RL_E_NONE;
    }
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    if (m <= (UINT64_C(1) << 53) && dexp >= -22 && dexp <= 22) {
        double v = (double)m;
        v = dexp < 0 ? v / P10[-dexp] : v * P10[dexp];
        *out = neg ? -v : v;
        return RL_E_NONE;
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
                return RL_E_NONE;
            }
            if (neg) {
                *out = v == (UINT64_C(1) << 63) ? INT64_MIN : -(int64_t)v;
                return RL_E_NONE;
            }
        }
    }
    switch (slow_double(s, n, &d)) {
    case RL_E_NONE:
        break;
    case RL_E_NOMEM:
        return RL_E_NOMEM;
    default:
        return RL_E_REL;
    }
    if (d != trunc(d) || fabs(d) >= 9007199254740992.0)
        return RL_E_REL;
    *out = (int64_t)d;
    return RL_E_NONE;
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
 * '\n' and RL_PAD readable bytes after end; returns the start of the next
 * line.  Lines of at most 63 bytes of printable ASCII and whitespace take a
 * fast path: the whitespace of the whole line is found with SSE2 compares
 * and the fields are read off the bit mask, with no byte loop. */
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

/* Pass 1 over the lines of [p, end) (end[-1] == '\n', RL_PAD bytes readable
 * after end). */
int rl_pass1_region(rl_parser *P, const uint8_t *p, const uint8_t *end)
{
    const uint8_t *cq = NULL; /* query id of the current segment */
    size_t cql = 0;
    int64_t cur = -1, n = 0, ln = P->lineno;
    line_t L;
    while (p < end) {
        const uint8_t *ls = p, *s;
        size_t len;
        ln++;
        /* Most lines begin with the current segment's query id and a separator: then
         * the line only needs its end found (the tokenizer's other answers are known). */
        if (cur >= 0 && (size_t)(end - p) > cql && CLS[p[cql]] == C_SPACE &&
            padded_eq(p, cq, cql)) {
            /* (the query id's bytes were checked on the segment's first line) */
            unsigned odd;
            p = next_line(p + cql, end, &odd);
            if (odd)
                note_odd(P, odd, ln);
            P->segs[cur].count++;
            P->last_line = ls;
            n++;
            continue;
        }
        {
            unsigned odd;
            next_line(p, end, &odd); /* the whole line: NUL bytes, lone CRs */
            if (odd)
                note_odd(P, odd, ln);
        }
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
            int32_t code = rl_intern_qid(P, s, len, &is_new);
            rl_segment *sg;
            if (code < 0)
                return -1;
            if (is_new && (L.hi & 1u) && !utf8_valid(s, len))
                P->qbad[code] = 1;
            if (rl_grow((void **)&P->segs, &P->seg_cap, P->nseg + 1, sizeof(rl_segment)))
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
int rl_pass2_segment(rl_parser *P, const rl_segment *sg, rl_outbuf *O)
{
    const int kind = P->kind;
    const int want = kind == 0 ? 6 : 4;
    const uint8_t *p = sg->start, *end = sg->end;
    int64_t ln = sg->first_line - 1, pos = O->pos, dpos = O->dpos;
    int first = 1;
    line_t L;
    if (pos + sg->count > O->n) {
        rl_set_error(P, RL_E_INTERNAL, 0, NULL, 0);
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
            rl_set_error(P, RL_E_COLS, ln, NULL, 0);
            P->ecount = L.total;
            return -1;
        }
        if (first) {
            first = 0;
            if (P->qbad[sg->code]) {
                rl_set_error(P, RL_E_UTF8, ln, NULL, 0);
                return -1;
            }
        }
        d = L.fs[2];
        dl = L.fl[2];
        if ((L.hi & 4u) && !utf8_valid(d, dl)) {
            rl_set_error(P, RL_E_UTF8, ln, NULL, 0);
            return -1;
        }
        if (kind == 0) {
            double v = 0.0;
            rc = parse_double(L.fs[4], L.fl[4], &v);
            if (rc != RL_E_NONE) {
                rl_set_error(P, rc, ln, L.fs[4], L.fl[4]);
                return -1;
            }
            if ((L.hi & 32u) && !utf8_valid(L.fs[5], L.fl[5])) {
                rl_set_error(P, RL_E_UTF8, ln, NULL, 0);
                return -1;
            }
            ((double *)O->vals)[pos] = v;
            if (O->ranks != NULL) { /* only when asked for: a field that is no integer is
                                       no error here, only marked */
                int64_t r = 0;
                if (O->strict) { /* NIST ndeval's syntax: digits, and no 7th field */
                    size_t j, fl = L.fl[3];
                    int ok = fl > 0 && fl <= 18 && L.total == 6;
                    for (j = 0; ok && j < fl; j++) {
                        ok = is_digit(L.fs[3][j]);
                        r = r * 10 + (L.fs[3][j] - '0');
                    }
                    O->ranks[pos] = ok ? r : RL_NO_RANK;
                }
                else {
                    rc = parse_rel(L.fs[3], L.fl[3], &r);
                    if (rc == RL_E_NOMEM) {
                        rl_set_error(P, rc, ln, NULL, 0);
                        return -1;
                    }
                    O->ranks[pos] = rc == RL_E_NONE ? r : RL_NO_RANK;
                }
            }
        }
        else {
            int64_t v = 0;
            rc = parse_rel(L.fs[3], L.fl[3], &v);
            if (rc != RL_E_NONE) {
                rl_set_error(P, rc, ln, L.fs[3], L.fl[3]);
                return -1;
            }
            ((int64_t *)O->vals)[pos] = v;
        }
        if (dpos + (int64_t)dl + 16 > O->dcap) {
            rl_set_error(P, RL_E_INTERNAL, 0, NULL, 0);
            return -1;
        }
#ifdef RL_SWAR
        if (dl <= 16) { /* the source has RL_PAD readable bytes after it */
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

/* The 6th field of a (validated) run line: returns its start and sets *len
 * to its length. */
const uint8_t *rl_run_tag(const uint8_t *p, size_t *len)
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
    *len = (size_t)(p - s);
    return s;
}
