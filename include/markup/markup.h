/*
 * markup.h - the public C API of libmarkup.
 *
 * libmarkup writes HTML into one growable buffer: an escaper (SIMD with a
 * portable fallback), UTF-8 validation, name checks and tag tables, low-level
 * writers for the HTML5 syntax, reference-counted element trees with an
 * iterative serializer, and "baked" templates (static HTML pre-rendered once,
 * slots filled with escaped writes).
 *
 * Naming
 *   Every exported symbol starts with `markup_`, every macro and enum value
 *   with `MARKUP_`. The word after the prefix names the module: markup_buf_*,
 *   markup_escape_*, markup_utf8_*, markup_html_*, markup_node_*,
 *   markup_baked_*. A suffix `_html` means "trusted: written verbatim, not
 *   escaped"; `_n`-less names always take an explicit byte length.
 *
 * Errors
 *   Functions that can fail return a markup_status; MARKUP_OK is 0. Many take
 *   an optional `markup_error *err` (NULL is allowed) that receives the
 *   status, a static English message and the byte offset in the input where
 *   the problem was found. Nothing in libmarkup calls abort() or exit(): out
 *   of memory is MARKUP_ERR_NOMEM and leaves every object valid.
 *
 * Strings
 *   All strings are (pointer, length) pairs of UTF-8 bytes; they need not be
 *   NUL-terminated and may contain NUL. A NULL pointer with length 0 is the
 *   empty string; a NULL pointer with a non-zero length is
 *   MARKUP_ERR_INVALID_ARG. No input may point into the markup_buf being
 *   written, which moves when it grows (markup_buf_append alone allows
 *   it): copy such bytes first.
 *
 * Threads
 *   libmarkup has no global mutable state. Distinct objects may be used from
 *   distinct threads freely. An object may be read (rendered) from many
 *   threads at once once nobody modifies it: a markup_baked template is
 *   immutable, and a markup_node is frozen (see markup_node_append_child).
 */
#ifndef MARKUP_MARKUP_H
#define MARKUP_MARKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "markup/export.h"
#include "markup/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status and errors                                                          */
/* ------------------------------------------------------------------------ */

typedef enum markup_status {
    MARKUP_OK = 0,
    MARKUP_ERR_NOMEM,             /* an allocation failed                     */
    MARKUP_ERR_INVALID_ARG,       /* NULL object, NULL string with length > 0 */
    MARKUP_ERR_TOO_LARGE,         /* a size would overflow size_t             */
    MARKUP_ERR_INVALID_UTF8,      /* input bytes are not well-formed UTF-8    */
    MARKUP_ERR_INVALID_TAG,       /* tag name not [A-Za-z][A-Za-z0-9-]*       */
    MARKUP_ERR_INVALID_ATTR_NAME, /* attribute name rejected (see below)      */
    MARKUP_ERR_VOID_CHILD,        /* child given to a void element (<br>)     */
    MARKUP_ERR_RAW_TEXT,          /* text would end <script>/<style> (or a
                                    <title>, <noscript>... around it) early,
                                    or an element inside <script>/<style>    */
    MARKUP_ERR_FROZEN,            /* node already adopted by a parent         */
    MARKUP_ERR_TOO_DEEP,          /* tree nested deeper than MARKUP_MAX_DEPTH */
    MARKUP_ERR_SLOT_COUNT,        /* wrong number of baked slot values        */
    MARKUP_ERR_SLOT_VALUE,        /* slot value kind not allowed in that slot */
    MARKUP_ERR_CONTEXT,           /* an element, text or attribute the HTML
                                    parser would read otherwise where it
                                    stands (see markup_writer)               */
    MARKUP_ERR_IO                 /* writing to a FILE* failed (errno says
                                    why, as fwrite left it)                 */
} markup_status;

/* Details of a failure. `msg` points to a static string (never freed);
   `pos` is a byte offset into the input that was rejected (0 when the
   error has no position). `refused` names what was refused, as a static
   string: for MARKUP_ERR_RAW_TEXT the sequence as the checks spell it
   ("</script", "<!--", "</title" ...; found at `pos` in any letter case),
   for MARKUP_ERR_CONTEXT from an open the element's name in lower case
   ("p", "style", "td" ...); NULL otherwise. */
typedef struct markup_error {
    markup_status code;
    size_t pos;
    const char *msg;
    const char *refused;
} markup_error;

/* A markup_error with nothing in it: markup_error err = MARKUP_ERROR_INIT; */
#define MARKUP_ERROR_INIT {MARKUP_OK, 0, NULL, NULL}

/* A static, human-readable name for a status ("out of memory", ...).
   Never NULL; unknown values give "unknown status". Thread-safe. */
MARKUP_API const char *markup_status_str(markup_status status);

/* Runtime version: the same numbers as the MARKUP_VERSION_* macros of the
   library that is actually linked. Returns a static string "MAJOR.MINOR.PATCH". */
MARKUP_API const char *markup_version(void);

/* The same as one number, MARKUP_VERSION_NUMBER of the linked library
   (0xMMmmpp), for comparisons: markup_version_number() >= 0x000300. */
MARKUP_API unsigned long markup_version_number(void);

/* ------------------------------------------------------------------------ */
/* Allocator                                                                  */
/* ------------------------------------------------------------------------ */

/* Allocator hooks. Every function of libmarkup that allocates takes a
   `const markup_alloc *`; NULL selects malloc/realloc/free. The struct is
   read at each call, not copied, for buffers and trees that keep it: it must
   outlive every object created with it. `ctx` is passed back untouched.
   `realloc` receives the old size so that arena allocators can copy, and
   `free` the size that was allocated (libmarkup always knows it). Blocks
   must be aligned as malloc's are (alignof(max_align_t)): trees and
   templates keep pointers and atomic counters in them. A hook signals
   failure by returning NULL; libmarkup then returns MARKUP_ERR_NOMEM and
   the object it was growing is unchanged. */
typedef struct markup_alloc {
    void *(*malloc)(void *ctx, size_t size);
    void *(*realloc)(void *ctx, void *ptr, size_t old_size, size_t new_size);
    void (*free)(void *ctx, void *ptr, size_t size);
    void *ctx;
} markup_alloc;

/* The allocator used when NULL is passed: libc malloc/realloc/free. */
MARKUP_API const markup_alloc *markup_alloc_default(void);

/* ------------------------------------------------------------------------ */
/* Output buffer                                                              */
/* ------------------------------------------------------------------------ */

/* A growable byte buffer. The struct is public so it can live on the stack
   and appends can be inlined; treat the fields as read-only. `data` is NULL
   until the first growth, `len` bytes of it are valid, and the buffer is not
   NUL-terminated. Growth is geometric (1.5x, at least the request), so n
   appends cost O(total length). A buffer is not thread-safe. */
typedef struct markup_buf {
    char *data;
    size_t len;
    size_t cap;
    const markup_alloc *alc;
} markup_buf;

/* Initializes an empty buffer without allocating. `alc` may be NULL. */
MARKUP_API void markup_buf_init(markup_buf *buf, const markup_alloc *alc);

/* Frees the storage and leaves an empty buffer that may be reused.
   NULL is a no-op. */
MARKUP_API void markup_buf_free(markup_buf *buf);

/* Grows the capacity so that `additional` more bytes fit. On failure the
   buffer is unchanged: MARKUP_ERR_NOMEM, or MARKUP_ERR_TOO_LARGE when
   len + additional overflows; a NULL buffer is MARKUP_ERR_INVALID_ARG.
   Prefer markup_buf_reserve. The inline functions below are the fast
   path and take a valid buffer (never NULL). */
MARKUP_API markup_status markup_buf_grow(markup_buf *buf, size_t additional);

/* Ensures room for `additional` more bytes; allocates only when needed. */
static inline markup_status markup_buf_reserve(markup_buf *buf, size_t additional) {
    if (buf->cap - buf->len >= additional) return MARKUP_OK;
    return markup_buf_grow(buf, additional);
}

/* Appends `n` bytes verbatim (no escaping, no validation). `s` may be NULL
   when n == 0, and may point into the buffer itself (appending a copy of
   part of it). On failure nothing is appended. */
static inline markup_status markup_buf_append(markup_buf *buf, const char *s, size_t n) {
    if (n == 0) return MARKUP_OK;
    if (s == NULL) return MARKUP_ERR_INVALID_ARG;
    if (buf->cap - buf->len < n) {
        /* Growing moves the storage: bytes from the buffer itself are found
           again at the same offset. */
        size_t at = (size_t)((uintptr_t)s - (uintptr_t)buf->data);
        bool inside = buf->data != NULL && at < buf->len;
        markup_status st = markup_buf_grow(buf, n);
        if (st != MARKUP_OK) return st;
        if (inside) s = buf->data + at;
    }
    memcpy(buf->data + buf->len, s, n);
    buf->len += n;
    return MARKUP_OK;
}

/* Appends one byte verbatim. */
static inline markup_status markup_buf_putc(markup_buf *buf, char c) {
    if (buf->cap == buf->len) {
        markup_status st = markup_buf_grow(buf, 1);
        if (st != MARKUP_OK) return st;
    }
    buf->data[buf->len++] = c;
    return MARKUP_OK;
}

/* Forgets the contents but keeps the storage. */
static inline void markup_buf_clear(markup_buf *buf) { buf->len = 0; }

/* Truncates to `len` bytes (no-op when len >= buf->len). Used to roll back a
   partial write after an error. */
static inline void markup_buf_truncate(markup_buf *buf, size_t len) {
    if (len < buf->len) buf->len = len;
}

/* Hands the storage to the caller: returns the data pointer (NULL when the
   buffer never allocated) and its length in *len (may be NULL), and leaves
   the buffer empty. The caller frees the pointer with the buffer's
   allocator, passing buf->cap as it was before the call as the size; *cap
   (may be NULL) receives that capacity. */
MARKUP_API char *markup_buf_detach(markup_buf *buf, size_t *len, size_t *cap);

/* ------------------------------------------------------------------------ */
/* Escaper                                                                    */
/* ------------------------------------------------------------------------ */

/* The escaper replaces exactly five bytes, the same in text and attribute
   values, as markupsafe and Jinja2 do:
       &  ->  &amp;     <  ->  &lt;     >  ->  &gt;
       "  ->  &#34;     '  ->  &#39;
   Every other byte, including NUL, control bytes and UTF-8 sequences
   (valid or not), is copied unchanged. The escaper works on bytes: it does
   not validate UTF-8 (see markup_utf8_validate). */

/* Implementations. AUTO picks the fastest the running CPU supports, chosen
   once per call from a cached CPU-feature probe (thread-safe, idempotent).
   Every implementation produces identical bytes. */
typedef enum markup_escape_impl {
    MARKUP_ESCAPE_AUTO = 0,
    MARKUP_ESCAPE_SCALAR, /* portable C: word-at-a-time scan, table writes */
    MARKUP_ESCAPE_SSE2,   /* 16-byte blocks (x86-64 baseline; expands
                             dirty blocks with SSSE3 shuffles when the CPU
                             has SSSE3)                                    */
    MARKUP_ESCAPE_AVX2    /* 32-byte blocks, when the CPU has AVX2, BMI1
                             and BMI2                                      */
} markup_escape_impl;

/* The longest escape of one byte ("&amp;" etc.). */
#define MARKUP_ESCAPE_MAX_EXPANSION 5

/* True when `impl` can run on this CPU (SCALAR and AUTO always can). */
MARKUP_API bool markup_escape_impl_available(markup_escape_impl impl);

/* The implementation AUTO resolves to on this CPU. Never AUTO. */
MARKUP_API markup_escape_impl markup_escape_impl_best(void);

/* A static name: "auto", "scalar", "sse2", "avx2". */
MARKUP_API const char *markup_escape_impl_name(markup_escape_impl impl);

/* Number of bytes in `s` that need escaping (0 means the input can be used
   as it is). */
MARKUP_API size_t markup_escape_count(const char *s, size_t n);

/* Length of the longest prefix of `s` with nothing to escape: n when
   markup_escape would copy `s` as it is (0 for NULL). It stops within a
   few blocks of the first byte to escape, so it answers "anything to
   escape?" without reading the rest of the text. */
MARKUP_API size_t markup_escape_span(const char *s, size_t n);

/* Appends the escaped form of `s` to `buf` with the best implementation.
   On failure (NOMEM, TOO_LARGE) the buffer is rolled back to its length
   before the call. The escaped text never holds more than
   n * MARKUP_ESCAPE_MAX_EXPANSION bytes; long input is escaped in pieces,
   each reserving room for its own worst case, so the buffer's capacity
   stays within 1.5x of what is written plus a fixed slack (under 100 KiB),
   never five times the input (markup_escape_room says how much). */
MARKUP_API markup_status markup_escape(markup_buf *buf, const char *s, size_t n);

/* s[0..n) escaped into a new NUL-terminated string, for C callers that do
   not keep a markup_buf: allocated with malloc, released with free(); its
   length in *len when len is not NULL. The bytes must be valid UTF-8.
   NULL on failure, with err set: INVALID_UTF8 (err->pos at the first bad
   byte), INVALID_ARG, NOMEM, TOO_LARGE. */
MARKUP_API char *markup_escape_string(const char *s, size_t n, size_t *len, markup_error *err);

/* As markup_escape, with one allocation sized by what the escaped text
   can need: it counts the bytes to escape first (a second pass over the
   text), then reserves at most n + 4 * count + 128 bytes past buf->len
   (n alone for text with nothing to escape; the buffer's 1.5x growth may
   round a small reservation up), where markup_escape reserves each
   piece's worst case whatever it holds. For text kept as it is written (a
   string's storage), where headroom costs memory, and for allocators
   where large blocks cost page faults. On failure (NOMEM, TOO_LARGE) the
   buffer is unchanged. */
MARKUP_API markup_status markup_escape_exact(markup_buf *buf, const char *s, size_t n);

/* The room past buf->len that lets markup_escape (or markup_escape_with)
   write n bytes holding `specials` bytes to escape without growing the
   buffer: the escaped length, at most n + 4 * specials, plus the most one
   piece reserves beyond what it writes, 4 * min(n, 16 KiB) + 128, and
   never more than the worst case, 5 * n + 128. Reserve it first to escape
   straight into memory of the caller's choosing (a binding's string
   storage, say) and trim afterwards. `specials` must be at least
   markup_escape_count(s, n); a smaller count is still safe but lets the
   buffer grow. Passing n needs no count: the worst case, which is also
   the room for any count when n <= 16 KiB (one piece), so that
   markup_escape_room(n, n) == markup_escape_room(n, 0) tells when
   counting would change nothing. SIZE_MAX only when neither the room for
   the count nor the worst case fits in a size_t. */
MARKUP_API size_t markup_escape_room(size_t n, size_t specials);

/* As markup_escape with an explicit implementation. An implementation the
   CPU lacks returns MARKUP_ERR_INVALID_ARG. For tests, fuzzers and
   benchmarks. */
MARKUP_API markup_status markup_escape_with(markup_buf *buf, const char *s, size_t n,
                                            markup_escape_impl impl);

/* Text held as 16- or 32-bit code units (UTF-16, UTF-32, or the 2- and
   4-byte storage of a CPython str) is escaped in its own width: a unit is
   replaced exactly when its value is one of the five specials, by the
   entity's characters one unit each. Every other unit is copied unchanged,
   including surrogates (paired or not) and units whose low byte equals a
   special, such as U+0126 or U+10026. The units are not validated.
   1-byte text (Latin-1) needs no function of its own: the specials are
   ASCII and markup_escape copies every byte >= 0x80 unchanged.

   Escaping takes two passes, so that a binding can write straight into
   the storage of its final string:

       size_t size = markup_escape_u16_size(s, n);
       if (size == n) ... nothing to escape: use s as it is ...
       uint16_t *out = allocate size units;
       markup_escape_u16(out, size, s, n, &written);   (written == size)

   All of them are thread-safe and allocate nothing. */

/* The length in units of the escaped form of s[0..n): n, plus 3 for each
   < and >, plus 4 for each & " and '. Equal to n exactly when nothing needs
   escaping. SIZE_MAX when the length would overflow size_t. NULL or n == 0
   gives 0. */
MARKUP_API size_t markup_escape_u16_size(const uint16_t *s, size_t n);
MARKUP_API size_t markup_escape_u32_size(const uint32_t *s, size_t n);

/* Writes the escaped form of s[0..n) to dst[0..cap) with the best
   implementation and stores the number of units written in *written (may
   be NULL). cap = markup_escape_u16_size(s, n) is always enough; nothing
   is written at or past dst + cap. dst and s must not overlap. The caller
   owns both arrays.
   Errors: MARKUP_ERR_INVALID_ARG when s is NULL with n > 0, dst is NULL
   with cap > 0, or cap is too small for the escaped text (then dst[0..cap)
   holds an unspecified prefix of it). On error *written is 0. */
MARKUP_API markup_status markup_escape_u16(uint16_t *dst, size_t cap, const uint16_t *s, size_t n,
                                           size_t *written);
MARKUP_API markup_status markup_escape_u32(uint32_t *dst, size_t cap, const uint32_t *s, size_t n,
                                           size_t *written);

/* As markup_escape_u16 / _u32 with an explicit implementation, for tests,
   fuzzers and benchmarks. These escapers have SCALAR, SSE2 (16 units a
   block) and AVX2 (32 units a block when sizing, 64 bytes when writing)
   kernels: AUTO is AVX2 where the CPU has it (with BMI1 and BMI2), else SSE2 on x86-64 (its
   baseline), else SCALAR. An implementation the CPU lacks returns
   MARKUP_ERR_INVALID_ARG. */
MARKUP_API markup_status markup_escape_u16_with(uint16_t *dst, size_t cap, const uint16_t *s,
                                                size_t n, size_t *written, markup_escape_impl impl);
MARKUP_API markup_status markup_escape_u32_with(uint32_t *dst, size_t cap, const uint32_t *s,
                                                size_t n, size_t *written, markup_escape_impl impl);

/* ------------------------------------------------------------------------ */
/* UTF-8                                                                      */
/* ------------------------------------------------------------------------ */

/* Checks that `s` is well-formed UTF-8 (RFC 3629: no overlongs, no
   surrogates D800-DFFF, nothing above U+10FFFF, no truncated sequence).
   ASCII runs take a fast path; the rest is decoded with utf8proc.
   Returns MARKUP_OK or MARKUP_ERR_INVALID_UTF8 with err->pos at the first
   byte of the first bad sequence. Thread-safe. */
MARKUP_API markup_status markup_utf8_validate(const char *s, size_t n, markup_error *err);

/* ------------------------------------------------------------------------ */
/* HTML syntax: names, tag tables and low-level writers                       */
/* ------------------------------------------------------------------------ */

/* How a tag's content is serialized. */
typedef enum markup_tag_kind {
    MARKUP_TAG_NORMAL = 0, /* <p>children</p>                               */
    MARKUP_TAG_VOID,       /* area base br col embed hr img input link meta
                              source track wbr, and the ones the parser
                              reads as empty (keygen param basefont bgsound
                              frame image): <br>, no children, no end tag */
    MARKUP_TAG_SCRIPT,     /* raw text: no escaping; "</script" and "<!--"
                              (any case) are rejected, and inside <title>,
                              <noscript>... their end tags too
                              (markup_html_check_text_inside). In foreign
                              content the text is escaped (markup_writer) */
    MARKUP_TAG_STYLE       /* raw text: no escaping; "</style" is rejected,
                              and the same end tags inside <title>...;
                              escaped in foreign content                    */
} markup_tag_kind;

/* Validates a tag name: an ASCII letter, then ASCII letters, digits and '-'
   ("div", "h1", "my-widget"). On success stores the kind in *kind (may be
   NULL); matching of the void and raw-text tables is ASCII
   case-insensitive. Errors: MARKUP_ERR_INVALID_TAG with err->pos at the
   offending byte (0 for the empty name). */
MARKUP_API markup_status markup_html_check_tag(const char *name, size_t n, markup_tag_kind *kind,
                                               markup_error *err);

/* Validates an attribute name. Rejected: the empty name, ASCII whitespace,
   control characters (C0, DEL, C1), and the characters
       "  '  <  >  /  =  &  \  `
   and invalid UTF-8. Everything else is accepted, so "@click", ":class",
   "x-on:click.prevent" and "data-on-click__debounce.500ms" are valid.
   Errors: MARKUP_ERR_INVALID_ATTR_NAME (or MARKUP_ERR_INVALID_UTF8) with
   err->pos at the offending byte. */
MARKUP_API markup_status markup_html_check_attr_name(const char *name, size_t n, markup_error *err);

/* Validates text for a raw-text element of the given kind: for
   MARKUP_TAG_SCRIPT rejects "</script" and "<!--", for MARKUP_TAG_STYLE
   rejects "</style", both ASCII case-insensitive; other kinds accept
   anything. Errors: MARKUP_ERR_RAW_TEXT with err->pos at the '<'. */
MARKUP_API markup_status markup_html_check_raw_text(markup_tag_kind kind, const char *s, size_t n,
                                                    markup_error *err);

/* Whether a parser reads everything inside <tag> (n bytes, ASCII
   case-insensitive) up to its end tag as text: title, textarea, noscript
   (with JavaScript on), iframe, xmp, noembed and noframes. Inside one, a
   <script> or <style> is no element but that element's text, so its raw
   text must also pass markup_html_check_text_inside. Thread-safe. */
MARKUP_API bool markup_html_reads_as_text(const char *tag, size_t n);

/* Validates raw text (a <script>'s or <style>'s) that stands inside an
   element markup_html_reads_as_text names: rejects the end tags "</title",
   "</textarea", "</noscript", "</iframe", "</xmp", "</noembed" and
   "</noframes", ASCII case-insensitive, any of which would end that
   element early. Errors: MARKUP_ERR_RAW_TEXT with err->pos at the '<'. */
MARKUP_API markup_status markup_html_check_text_inside(const char *s, size_t n, markup_error *err);

/* JSON text (serialized by the caller; not parsed here) made safe as the
   raw text of a <script>, appended to `out`: '<', '>', '&' and '\'' become
   \u003c \u003e \u0026 \u0027, and U+2028 and U+2029 \u2028 \u2029 (line
   ends to older JavaScript), the rules of the Python binding's tojson().
   No string in it can then end the script or open a comment, and the
   JSON means the same. Not for attribute values: '"' stays. The text must
   be valid UTF-8 (checked). Errors: INVALID_UTF8 (err->pos), INVALID_ARG,
   NOMEM, TOO_LARGE; the buffer is then as it was. */
MARKUP_API markup_status markup_html_json_for_script(markup_buf *out, const char *json, size_t n,
                                                     markup_error *err);

/* Low-level writers. They append HTML syntax to `buf` and do not validate:
   names must already have passed the checks above, and raw text must have
   passed markup_html_check_raw_text. Text and attribute values are escaped
   unless the function name ends in `_html`. On failure the buffer is rolled
   back to its length before the call. */

/* "<!doctype html>" */
MARKUP_API markup_status markup_html_write_doctype(markup_buf *buf);
/* "<tag" : the start of a start tag; attributes follow, then '>' */
MARKUP_API markup_status markup_html_write_open(markup_buf *buf, const char *tag, size_t n);
/* ' name="escaped value"' */
MARKUP_API markup_status markup_html_write_attr(markup_buf *buf, const char *name, size_t name_len,
                                                const char *value, size_t value_len);
/* ' name="value"' with the value verbatim (already safe HTML) */
MARKUP_API markup_status markup_html_write_attr_html(markup_buf *buf, const char *name,
                                                     size_t name_len, const char *value,
                                                     size_t value_len);
/* ' name' : a boolean attribute that is present */
MARKUP_API markup_status markup_html_write_attr_bare(markup_buf *buf, const char *name,
                                                     size_t name_len);
/* "</tag>" */
MARKUP_API markup_status markup_html_write_close(markup_buf *buf, const char *tag, size_t n);
/* "<!--escaped text-->" */
MARKUP_API markup_status markup_html_write_comment(markup_buf *buf, const char *s, size_t n);

/* What a tag is to the HTML parser: a set of MARKUP_TAG_IS_* bits, plus
   (MARKUP_TAG_TEXT_MASK) which of the elements whose content the parser
   reads as text it is. Computed once per tag with markup_html_tag_class
   and handed to markup_writer_open_class, so that a binding that caches it
   does not look the tag up again on every render. */
typedef uint32_t markup_tag_class;

/* 1..7: which of title, textarea, iframe, xmp, noembed, noframes and
   noscript the tag is (0: none). */
#define MARKUP_TAG_TEXT_MASK     0x7u
/* Void, or read as empty: keygen param basefont bgsound frame. */
#define MARKUP_TAG_IS_VOID       (1u << 3)
#define MARKUP_TAG_IS_SCRIPT     (1u << 4)
#define MARKUP_TAG_IS_STYLE      (1u << 5)
#define MARKUP_TAG_IS_PLAINTEXT  (1u << 6) /* never ends */
#define MARKUP_TAG_IS_SELECT     (1u << 7)
#define MARKUP_TAG_IS_SVG        (1u << 8)
#define MARKUP_TAG_IS_MATH       (1u << 9)
/* HTML integration points of SVG: foreignObject desc title. */
#define MARKUP_TAG_IS_SVG_POINT  (1u << 10)
/* MathML text integration points: mi mo mn ms mtext. */
#define MARKUP_TAG_IS_MATH_TEXT  (1u << 11)
#define MARKUP_TAG_IS_ANNOTATION (1u << 12) /* annotation-xml */
#define MARKUP_TAG_IS_MGLYPH     (1u << 13) /* mglyph malignmark */
/* Ends foreign content: p b div table ul ... (the HTML standard's list,
   "in foreign content"). */
#define MARKUP_TAG_IS_BREAKOUT   (1u << 14)
/* Ends foreign content with a color, face or size attribute. */
#define MARKUP_TAG_IS_FONT       (1u << 15)
/* table caption colgroup col tbody thead tfoot tr td th: for these the
   parser may close open elements up to a table. */
#define MARKUP_TAG_IS_TABLE_PART (1u << 16)
#define MARKUP_TAG_IS_FRAMESET   (1u << 17)
/* image: the parser makes it an <img> (void) in HTML content; in svg it is
   an element of its own. */
#define MARKUP_TAG_IS_IMAGE      (1u << 18)

/* The class of a tag name (n bytes, ASCII case-insensitive; not
   validated). Unknown tags (custom elements) are 0. Thread-safe. */
MARKUP_API markup_tag_class markup_html_tag_class(const char *tag, size_t n);

/* ------------------------------------------------------------------------ */
/* The HTML writer                                                            */
/* ------------------------------------------------------------------------ */

/* A streaming writer of HTML that knows where the HTML parser is. Every
   serializer of libmarkup and of the Python binding writes through it: the
   tree serializer, the render walker and the @baked compiler. The rule it
   keeps: it never writes bytes that the HTML parser (the living standard,
   and html5lib 1.1's older <select> handling) would tokenize differently
   from what the caller asked for. It follows the parser, not the nesting of
   the calls:

   - <svg> and <math> start foreign content, where <script> and <style>
     text is escaped like any text (the parser reads it as markup); svg's
     foreignObject, desc and title, MathML's mi, mo, mn, ms and mtext, and an
     annotation-xml with encoding="text/html" (or application/xhtml+xml)
     hold HTML again; <svg> inside annotation-xml is SVG.
   - An element that makes the parser leave foreign content (p, b, div,
     table, ul, font with color/face/size ... straight inside svg or math
     content) is refused: the parser would close the <svg> before it.
   - Inside HTML that stands in foreign content, the table parts (table,
     caption, colgroup, col, tbody, thead, tfoot, tr, td, th) and frameset
     are refused: the parser may close every open element up to an outer
     table, the <svg> included, and read what follows as HTML.
   - <script> and <style> hold text only, written raw and refused if it
     would end them ("</script", "<!--" in script; "</style"), checked across
     pieces written one after the other.
   - Inside title, textarea, iframe, xmp, noembed, noframes and noscript
     (JavaScript on) the parser reads everything up to the element's end
     tag as text: raw text there may not hold any of their end tags, and an
     element named like one around it is refused (its end tag would end
     that one early).
   - <style> inside <select> is refused: older parsers (html5lib, and
     browsers before the customizable select) ignore its start tag and read
     its text as markup.
   - plaintext is refused (the parser never leaves it); void elements and
     the ones the parser reads as empty (keygen param basefont bgsound
     frame, and image in HTML content, where it is an <img>) take no
     children and have no end tag.
   - After a frameset the parser ignores script and style start tags: their
     text is refused. A writer started at another's markup_writer_context
     writes part of a larger document and may not open a frameset.

   Usage: markup_writer_init, then any sequence of open, attr*, text, html,
   comment, doctype and close calls (attributes only straight after open;
   '>' is written when the start tag's content starts);
   every open needs its close (markup_writer_depth tells how many are
   open). markup_writer_dispose frees the writer's stack, in every case. A
   failed call returns the status, sets *err (msg says why; refused names
   a refused sequence), writes nothing of its own (only a start tag's
   pending '>' may have gone out) and leaves the writer usable. Callers
   that drop the whole output on error note buf->len first and truncate.
   The struct is public so that it can live on the stack; its fields are
   private. A writer is not thread-safe. */

/* Where a writer stands: enough to start another writer at the same place
   (a baked template's child slot). Treat as opaque. */
typedef struct markup_context {
    uint8_t mode;
    uint8_t reserved;
    uint16_t flags;
} markup_context;

/* The context of a document's body: HTML content, nothing around. */
#define MARKUP_CONTEXT_HTML ((markup_context){0, 0, 0})

typedef struct markup_writer_frame {
    const char *tag; /* the caller's bytes: live until the close */
    size_t tag_len;
    markup_tag_class cls;
    markup_context inside;
} markup_writer_frame;

/* Where a writer hands its output when a sink is set: `n` bytes at `data`
   (valid during the call only). Returns MARKUP_OK, or any other status to
   stop the writer, which returns it from the call that flushed. */
typedef markup_status (*markup_sink)(void *ctx, const char *data, size_t n);

typedef struct markup_writer {
    markup_buf *out;
    markup_sink sink;
    void *sink_ctx;
    size_t chunk;
    markup_writer_frame *frames;
    size_t depth, cap;
    markup_context base;
    bool in_start_tag; /* '>' not yet written              */
    bool after_frameset;
    bool names_checked; /* attribute names validated before */
    bool resumed;       /* started at a markup_writer_context */
    bool attrs_direct;  /* markup_writer_attr_buf may hand out the buffer */
    bool top_plain;     /* markup_writer_plain_buf may hand out the buffer */
    uint8_t tail_len;   /* raw text's last bytes, for seams  */
    char tail[15];
    markup_writer_frame inline_frames[16];
} markup_writer;

/* Starts a writer that appends to `out` in context `where`
   (MARKUP_CONTEXT_HTML for a page or a fragment of a body). Does not
   allocate: the stack grows on the buffer's allocator past 16 levels. */
MARKUP_API void markup_writer_init(markup_writer *w, markup_buf *out, markup_context where);

/* For callers that validated every attribute name when they stored it
   (markup_node, the Python binding's elements): the writer's attribute
   calls then skip markup_html_check_attr_name. */
MARKUP_API void markup_writer_skip_name_checks(markup_writer *w);

/* Streams the output: from now on, whenever an element is closed and the
   buffer holds at least `chunk` bytes, they are handed to `sink` and the
   buffer is emptied (markup_writer_flush does it at once, whatever the
   size). Bytes handed out cannot be rolled back: after a failed call the
   caller should abandon the stream. Chunks end at element boundaries or
   where flush is called, never inside a UTF-8 sequence. NULL stops
   streaming. */
MARKUP_API void markup_writer_set_sink(markup_writer *w, markup_sink sink, void *ctx, size_t chunk);

/* Hands what the buffer holds to the sink, if one is set, and empties it.
   Returns the sink's status (err->msg says the sink stopped). */
MARKUP_API markup_status markup_writer_flush(markup_writer *w, markup_error *err);

/* Frees what the writer allocated. The buffer is left as it is. */
MARKUP_API void markup_writer_dispose(markup_writer *w);

/* Opens an element: writes "<tag" after the checks above. The tag is
   validated (markup_html_check_tag); its bytes must stay valid until the
   matching close. Errors: INVALID_TAG, CONTEXT (refused here), RAW_TEXT
   (inside <script>/<style>), VOID_CHILD, TOO_DEEP (more than
   MARKUP_MAX_DEPTH open), NOMEM. */
MARKUP_API markup_status markup_writer_open(markup_writer *w, const char *tag, size_t n,
                                            markup_error *err);

/* As markup_writer_open for a tag the caller validated and classified once
   (markup_html_check_tag, markup_html_tag_class). */
MARKUP_API markup_status markup_writer_open_class(markup_writer *w, const char *tag, size_t n,
                                                  markup_tag_class cls, markup_error *err);

/* Attributes of the element just opened: ' name="escaped value"', the value
   verbatim for _html, the bare name for _bare. The name is validated
   (markup_html_check_attr_name). Inside a text element (title, textarea...)
   the parser reads the whole start tag as text, so a trusted value is
   checked there (markup_context_check_attr_html). Errors: INVALID_ARG (no
   start tag is open), INVALID_ATTR_NAME, CONTEXT (font's color, face or
   size in foreign content; annotation-xml's encoding as trusted HTML
   holding '&'), RAW_TEXT (a trusted value holding the end tag of a text
   element around, err->pos in the value). */
MARKUP_API markup_status markup_writer_attr(markup_writer *w, const char *name, size_t name_len,
                                            const char *value, size_t value_len, markup_error *err);
MARKUP_API markup_status markup_writer_attr_html(markup_writer *w, const char *name,
                                                 size_t name_len, const char *value,
                                                 size_t value_len, markup_error *err);
MARKUP_API markup_status markup_writer_attr_bare(markup_writer *w, const char *name,
                                                 size_t name_len, markup_error *err);

/* Checks that attribute `name` of the element just opened may take a value
   known only later (a baked attribute slot): refuses, as CONTEXT, the
   attributes whose value changes how the parser reads the content. */
MARKUP_API markup_status markup_writer_check_attr_slot(const markup_writer *w, const char *name,
                                                       size_t name_len, markup_error *err);

/* Where the start tag of the element just opened stands (its parent's
   content; MARKUP_CONTEXT_HTML when nothing is open). A baked attribute
   slot records it: a trusted value filled in later is checked there with
   markup_context_check_attr_html, as markup_writer_attr_html does. */
MARKUP_API markup_context markup_writer_start_tag_context(const markup_writer *w);

/* Checks a trusted attribute value for a start tag standing at `where`:
   inside a text element the value may hold none of the end tags that
   markup_html_check_text_inside rejects, elsewhere anything goes.
   Errors: RAW_TEXT, err->pos at the '<' in the value. */
MARKUP_API markup_status markup_context_check_attr_html(markup_context where, const char *value,
                                                        size_t n, markup_error *err);

/* Text: escaped, or raw inside an HTML <script>/<style> (checked, err->pos
   at the refused '<' of s). The bytes must be valid UTF-8 (not checked
   here; markup_utf8_validate). Errors: VOID_CHILD, RAW_TEXT, NOMEM. */
MARKUP_API markup_status markup_writer_text(markup_writer *w, const char *s, size_t n,
                                            markup_error *err);

/* Trusted HTML, written verbatim; inside <script>/<style> and the text
   elements it is checked like raw text. */
MARKUP_API markup_status markup_writer_html(markup_writer *w, const char *s, size_t n,
                                            markup_error *err);

/* "<!--escaped text-->" and "<!doctype html>". Errors: RAW_TEXT inside
   <script>/<style>, VOID_CHILD. */
MARKUP_API markup_status markup_writer_comment(markup_writer *w, const char *s, size_t n,
                                               markup_error *err);
MARKUP_API markup_status markup_writer_doctype(markup_writer *w, markup_error *err);

/* Closes the innermost open element: "</tag>", nothing for a void one.
   Errors: INVALID_ARG (nothing open), NOMEM (the element stays open). */
MARKUP_API markup_status markup_writer_close(markup_writer *w, markup_error *err);

/* Ends a start tag still waiting for its '>' (before output is handed on,
   or a slot is recorded). */
MARKUP_API markup_status markup_writer_flush_tag(markup_writer *w, markup_error *err);

/* Ends a pending start tag and checks that a child slot (a value written
   later by another writer started at markup_writer_context) may stand
   here: not in raw text (RAW_TEXT) nor a void element (VOID_CHILD), and in
   a text element not right after trusted HTML ending in a '<' (CONTEXT). */
MARKUP_API markup_status markup_writer_check_child_slot(markup_writer *w, markup_error *err);

/* Where the next child would stand, to start another writer there later
   (markup_writer_init): it carries what the parser would know at this
   point (a frameset before it), and that the new writer writes part of a
   larger document. */
MARKUP_API markup_context markup_writer_context(const markup_writer *w);

/* Whether at `where` text is only escaped and trusted HTML written as is,
   with no check: not inside an HTML <script> or <style>, nor inside a
   title, textarea, iframe, xmp, noembed, noframes or noscript. */
MARKUP_API bool markup_context_is_plain(markup_context where);

/* For bulk writers: when no attribute of the element just opened can change
   the parser's reading (every element but font and annotation-xml), no
   text element is around (where trusted values are checked) and the
   writer skips name checks (markup_writer_skip_name_checks), the buffer to
   write its attributes to directly with markup_html_write_attr,
   markup_html_write_attr_html and markup_html_write_attr_bare; NULL when
   they must go through markup_writer_attr*. Valid until the next call. */
static inline markup_buf *markup_writer_attr_buf(markup_writer *w) {
    return w->in_start_tag && w->attrs_direct ? w->out : NULL;
}

/* For bulk writers: where the next child stands needs no check (HTML or
   foreign content, no text element around), the buffer to append its
   children to directly, text escaped with markup_escape and trusted HTML
   verbatim, after the start tag's '>' (written now); NULL where every piece
   must go through markup_writer_text and markup_writer_html (or when the
   '>' could not be written: those calls report the error). Valid until the
   next open or close. */
static inline markup_buf *markup_writer_plain_buf(markup_writer *w) {
    if (!w->top_plain) return NULL;
    if (w->in_start_tag) {
        if (markup_buf_putc(w->out, '>') != MARKUP_OK) return NULL;
        w->in_start_tag = false;
    }
    return w->out;
}

/* The number of elements open. */
static inline size_t markup_writer_depth(const markup_writer *w) { return w->depth; }

/* ------------------------------------------------------------------------ */
/* Element trees                                                              */
/* ------------------------------------------------------------------------ */

/* The deepest nesting markup_node_render accepts (elements inside
   elements). Deeper trees give MARKUP_ERR_TOO_DEEP, never a stack overflow:
   the serializer is iterative. */
#define MARKUP_MAX_DEPTH 1024

/* A node: an element (tag, attributes, children) or a fragment (children
   only; a document is a fragment that starts with a doctype).
   Nodes are reference-counted (atomically). A new node has one reference,
   owned by the caller. Building is bottom-up: a node becomes *frozen* when it
   is appended to a parent, after which it can no longer be modified
   (MARKUP_ERR_FROZEN). This makes cycles impossible and lets a frozen
   subtree be shared by many parents and rendered from many threads. */
typedef struct markup_node markup_node;

/* Creates an element. The tag is validated (markup_html_check_tag) and
   copied. `alc` may be NULL; it must outlive the node. On error *out is
   NULL. */
MARKUP_API markup_status markup_node_new_element(const char *tag, size_t n, const markup_alloc *alc,
                                                 markup_node **out, markup_error *err);

/* Creates an empty fragment: its children are rendered one after the other
   with nothing around them. */
MARKUP_API markup_status markup_node_new_fragment(const markup_alloc *alc, markup_node **out);

/* Adds a reference. Returns `node` (NULL is allowed and returned). */
MARKUP_API markup_node *markup_node_ref(markup_node *node);

/* Drops a reference; the last one frees the node and drops its references
   to its children. NULL is a no-op. Freeing is iterative: a deep tree does
   not recurse on the C stack. */
MARKUP_API void markup_node_unref(markup_node *node);

/* The tag of an element (not NUL-terminated) and its length in *n;
   NULL for a fragment. The pointer lives as long as the node. */
MARKUP_API const char *markup_node_tag(const markup_node *node, size_t *n);

/* Number of attributes and children stored so far. */
MARKUP_API size_t markup_node_attr_count(const markup_node *node);
MARKUP_API size_t markup_node_child_count(const markup_node *node);

/* Adds an attribute with a text value (escaped when rendered). The name is
   validated, the value must be valid UTF-8; both are copied. Attributes
   render in insertion order; a repeated name is stored twice (no
   de-duplication). Errors: INVALID_ARG (fragment or NULL), FROZEN,
   INVALID_ATTR_NAME, INVALID_UTF8, NOMEM. */
MARKUP_API markup_status markup_node_set_attr(markup_node *node, const char *name, size_t name_len,
                                              const char *value, size_t value_len,
                                              markup_error *err);

/* As markup_node_set_attr, but the value is trusted HTML written verbatim
   (still checked for valid UTF-8). */
MARKUP_API markup_status markup_node_set_attr_html(markup_node *node, const char *name,
                                                   size_t name_len, const char *value,
                                                   size_t value_len, markup_error *err);

/* A boolean attribute: `present` true stores a bare name (` disabled`),
   false stores nothing (the attribute is omitted), matching Python's
   True/False rules. The name is validated either way. */
MARKUP_API markup_status markup_node_set_attr_bool(markup_node *node, const char *name,
                                                   size_t name_len, bool present,
                                                   markup_error *err);

/* Appends a text child (escaped when rendered; in <script>/<style> written
   raw after markup_html_check_raw_text). Valid UTF-8 required; copied.
   Errors: FROZEN, VOID_CHILD, RAW_TEXT, INVALID_UTF8, NOMEM. */
MARKUP_API markup_status markup_node_append_text(markup_node *node, const char *s, size_t n,
                                                 markup_error *err);

/* Appends trusted HTML written verbatim (valid UTF-8 required; in
   <script>/<style> the raw-text check still applies). */
MARKUP_API markup_status markup_node_append_html(markup_node *node, const char *s, size_t n,
                                                 markup_error *err);

/* Appends a comment, rendered as "<!--escaped text-->". */
MARKUP_API markup_status markup_node_append_comment(markup_node *node, const char *s, size_t n,
                                                    markup_error *err);

/* Appends "<!doctype html>" as a child (normally the first child of a
   fragment that holds the <html> element). */
MARKUP_API markup_status markup_node_append_doctype(markup_node *node, markup_error *err);

/* Appends `child` and freezes it. The parent takes its own reference; the
   caller keeps (and must still drop) theirs. Errors: FROZEN (parent frozen),
   INVALID_ARG (child NULL or child == node), VOID_CHILD, RAW_TEXT (element
   inside <script>/<style>), NOMEM. */
MARKUP_API markup_status markup_node_append_child(markup_node *node, markup_node *child,
                                                  markup_error *err);

/* Serializes the tree as HTML5 and appends it to `out`, through a
   markup_writer: the writer's context rules apply (an element refused
   where it stands is MARKUP_ERR_CONTEXT, raw text that would end the
   element around it MARKUP_ERR_RAW_TEXT). Iterative; trees deeper than
   MARKUP_MAX_DEPTH give MARKUP_ERR_TOO_DEEP. On error the buffer is
   rolled back to its length before the call. Rendering only reads the
   tree: a frozen tree may be rendered from many threads at once (each with
   its own buffer). */
MARKUP_API markup_status markup_node_render(const markup_node *node, markup_buf *out,
                                            markup_error *err);

/* As markup_node_render, for a tree that stands at `where` (a writer's
   markup_writer_context), not in a body. */
MARKUP_API markup_status markup_node_render_in(const markup_node *node, markup_buf *out,
                                               markup_context where, markup_error *err);

/* ------------------------------------------------------------------------ */
/* Baked templates                                                            */
/* ------------------------------------------------------------------------ */

/* A baked template is a sequence of static HTML segments and slots,
   flattened into one contiguous static buffer plus a slot table.
   markup_baked_render makes room once for the static text, every attribute
   slot's name and every value of at most 64 bytes escaped (5 bytes a byte,
   plus a small fixed slack for the escaper's wide stores), copies each
   static segment and writes each slot's value; longer values make room as
   they are written. markup_baked_render_with reserves the static text and
   leaves the rest to its writer. A template is immutable after
   markup_baked_builder_finish and may be rendered from many threads at
   once.

   Slots:
     CHILD  a child position: text is escaped, HTML verbatim, OMIT writes
            nothing.
     ATTR   a whole attribute, stored with its name: text writes
            ' name="escaped"', HTML ' name="verbatim"', TRUE ' name',
            OMIT (Python False/None) nothing. */
typedef struct markup_baked markup_baked;
typedef struct markup_baked_builder markup_baked_builder;

typedef enum markup_slot_kind { MARKUP_SLOT_CHILD = 0, MARKUP_SLOT_ATTR } markup_slot_kind;

typedef enum markup_value_kind {
    MARKUP_VALUE_TEXT = 0, /* escaped                                   */
    MARKUP_VALUE_HTML,     /* trusted, verbatim                         */
    MARKUP_VALUE_TRUE,     /* ATTR only: bare attribute name            */
    MARKUP_VALUE_OMIT      /* writes nothing (Python None, or False)    */
} markup_value_kind;

/* One slot value for markup_baked_render. TEXT and HTML strings must be
   valid UTF-8 (checked); `s` is ignored for TRUE and OMIT. */
typedef struct markup_value {
    markup_value_kind kind;
    const char *s;
    size_t n;
} markup_value;

/* Starts a template. `alc` may be NULL and must outlive the builder and the
   template. */
MARKUP_API markup_status markup_baked_builder_new(const markup_alloc *alc,
                                                  markup_baked_builder **out);

/* Frees a builder that was not finished (NULL is a no-op). */
MARKUP_API void markup_baked_builder_free(markup_baked_builder *b);

/* Appends static HTML, copied verbatim (the caller produced it with the
   markup_html_* writers or otherwise trusts it). Adjacent static pieces are
   merged. */
MARKUP_API markup_status markup_baked_builder_add_static(markup_baked_builder *b, const char *s,
                                                         size_t n);

/* Appends a child slot. Slots are numbered 0, 1, ... in the order added. */
MARKUP_API markup_status markup_baked_builder_add_child_slot(markup_baked_builder *b);

/* Appends an attribute slot for attribute `name` (validated, copied). It
   belongs inside a start tag: after "<tag" and before ">". */
MARKUP_API markup_status markup_baked_builder_add_attr_slot(markup_baked_builder *b,
                                                            const char *name, size_t name_len,
                                                            markup_error *err);

/* Turns the builder into an immutable template. The builder is consumed
   (freed) whether or not this succeeds. */
MARKUP_API markup_status markup_baked_builder_finish(markup_baked_builder *b, markup_baked **out);

/* Frees a template (NULL is a no-op). Not while another thread renders it. */
MARKUP_API void markup_baked_free(markup_baked *tpl);

/* Number of slots, their kinds, and the total size of the static HTML. */
MARKUP_API size_t markup_baked_slot_count(const markup_baked *tpl);
MARKUP_API markup_slot_kind markup_baked_slot_kind(const markup_baked *tpl, size_t slot);
MARKUP_API size_t markup_baked_static_size(const markup_baked *tpl);

/* Renders with one value per slot, in slot order, appending to `out`.
   Errors: SLOT_COUNT (nvalues != slot count), SLOT_VALUE (TRUE in a child
   slot), INVALID_UTF8 (err->pos is the offset inside that value), NOMEM,
   TOO_LARGE (the room to make does not fit in a size_t).
   On error the buffer is rolled back. Thread-safe for concurrent renders of
   one template. */
MARKUP_API markup_status markup_baked_render(const markup_baked *tpl, const markup_value *values,
                                             size_t nvalues, markup_buf *out, markup_error *err);

/* The general form, for bindings whose slot values are not strings (the
   Python extension renders lists and elements into child slots). For each
   slot in order, the static HTML before it is appended and then
   `write_slot(ctx, slot_index, kind, name, name_len, out)` is called to
   write that slot (for ATTR slots `name` is the attribute name, for CHILD
   slots NULL); the callback appends whatever it wants to `out` and returns
   MARKUP_OK, or any other status to stop. The trailing static HTML is
   appended last. Returns the first non-OK status; the buffer is then
   rolled back. */
typedef markup_status (*markup_slot_writer)(void *ctx, size_t slot, markup_slot_kind kind,
                                            const char *name, size_t name_len, markup_buf *out);

MARKUP_API markup_status markup_baked_render_with(const markup_baked *tpl,
                                                  markup_slot_writer write_slot, void *ctx,
                                                  markup_buf *out);

/* Writes one value the way markup_baked_render does for a slot of `kind`
   (and `name` for ATTR): exposed so that bindings apply the same rules.
   Does not validate UTF-8. */
MARKUP_API markup_status markup_baked_write_value(markup_slot_kind kind, const char *name,
                                                  size_t name_len, const markup_value *value,
                                                  markup_buf *out);

/* ------------------------------------------------------------------------ */
/* Output to a callback, a FILE* or a new string                              */
/* ------------------------------------------------------------------------ */

/* Besides a markup_buf, a tree or a filled template can go to a callback
   (markup_sink: return MARKUP_OK to go on, any other status to stop, which
   the render then returns), to a FILE*, or into a new NUL-terminated
   string allocated with malloc that the caller releases with free().

   markup_node_render_to hands the tree's HTML over as it is written, in
   pieces of about 16 KiB cut at element boundaries (never inside a UTF-8
   character), so a large page never sits whole in memory. What was handed
   over cannot be taken back: after an error the output is incomplete and
   the caller drops it. A template is filled whole, then handed over in
   one call. Errors: as markup_node_render / markup_baked_render,
   INVALID_ARG for a NULL sink or FILE*, MARKUP_ERR_IO when fwrite writes
   less than it was given (errno as fwrite left it), the sink's status. */
MARKUP_API markup_status markup_node_render_to(const markup_node *node, markup_sink sink, void *ctx,
                                               markup_error *err);
MARKUP_API markup_status markup_node_render_file(const markup_node *node, FILE *f,
                                                 markup_error *err);
/* NULL on failure, with err set; the length (without the NUL) in *len
   when len is not NULL. */
MARKUP_API char *markup_node_render_string(const markup_node *node, size_t *len, markup_error *err);

MARKUP_API markup_status markup_baked_render_to(const markup_baked *tpl, const markup_value *values,
                                                size_t nvalues, markup_sink sink, void *ctx,
                                                markup_error *err);
MARKUP_API markup_status markup_baked_render_file(const markup_baked *tpl,
                                                  const markup_value *values, size_t nvalues,
                                                  FILE *f, markup_error *err);
MARKUP_API char *markup_baked_render_string(const markup_baked *tpl, const markup_value *values,
                                            size_t nvalues, size_t *len, markup_error *err);

/* ------------------------------------------------------------------------ */
/* Template programs                                                          */
/* ------------------------------------------------------------------------ */

/* A template program is a baked template with control flow: static HTML,
   writes of values, conditions and loops, run by libmarkup over data it
   never looks into. Values are the caller's opaque pointers; every access
   to them (a field, a comparison, formatting, truth, iteration, writing
   one out) is a callback of markup_program_data. The Python binding's
   @baked compiles to one; a C program can build and run one over its own
   structs.

   A program is a flat array of instructions. Expression instructions
   (PARAM, ITEM, LOOP_INFO, CYCLE, APPLY) push values on a stack; the
   statement after them (WRITE, IF or LOOP) pops exactly one. STATIC, JUMP
   and END_LOOP stand where the stack is empty. Jumps go forward, except
   END_LOOP's back to the start of its body; no jump leaves or enters a
   loop. markup_program_builder_finish checks all of this, so a finished
   program cannot read past its stack, its parameters or its loops.

     STATIC     write static HTML (added by markup_program_add_static)
     WRITE      pop a value and write it into slot `a`
     IF         pop a value; when it is false, go to instruction `a`
     JUMP       go to instruction `a`
     LOOP       pop an iterable and start a loop; when it has no item, go
                to instruction `a` (just after its END_LOOP). `b` is
                MARKUP_LOOP_LOOKAHEAD when the body asks whether an item is
                the last: the next item is then fetched before the body runs
     END_LOOP   take the next item and go to instruction `a` (just after
                its LOOP), or end the loop
     PARAM      push parameter `a`
     ITEM       push the current item of the loop `a` levels out (0: the
                innermost)
     LOOP_INFO  push data->loop_value(`b`, ...) for the loop `a` levels out
     CYCLE      pop `b` values, keep the one at (index % b) of the loop `a`
                levels out
     APPLY      pop `b` values (pushed in order) and push data->apply(`a`,
                those values); `a` means what the caller says it means */
typedef enum markup_op {
    MARKUP_OP_STATIC = 0,
    MARKUP_OP_WRITE,
    MARKUP_OP_IF,
    MARKUP_OP_JUMP,
    MARKUP_OP_LOOP,
    MARKUP_OP_END_LOOP,
    MARKUP_OP_PARAM,
    MARKUP_OP_ITEM,
    MARKUP_OP_LOOP_INFO,
    MARKUP_OP_CYCLE,
    MARKUP_OP_APPLY
} markup_op;

#define MARKUP_LOOP_LOOKAHEAD 1u

/* The deepest nesting of loops in a program, and the most values an
   expression may hold on the stack at once. */
#define MARKUP_PROGRAM_MAX_LOOPS 32
#define MARKUP_PROGRAM_MAX_STACK 256

typedef struct markup_program markup_program;
typedef struct markup_program_builder markup_program_builder;

/* Where a WRITE's value goes. A CHILD slot's value is written at `context`
   (markup_writer_context where the slot stands) and `depth` (the elements
   open around it); an ATTR slot's value is the whole value of attribute
   `name`, written with the name or omitted as the caller decides, a
   trusted one checked at `context` (markup_writer_start_tag_context where
   the slot stands; markup_context_check_attr_html). */
typedef struct markup_program_slot {
    markup_slot_kind kind;
    markup_context context;
    unsigned depth;
    const char *name; /* ATTR: the attribute name (not NUL-terminated) */
    size_t name_len;
    bool plain; /* set by markup_program_add_slot: CHILD at a context where
                   text is escaped and trusted HTML appended as it is
                   (markup_context_is_plain) */
} markup_program_slot;

/* A loop as the body sees it: the 0-based index of the current item, and
   whether it is the last (known only under MARKUP_LOOP_LOOKAHEAD). */
typedef struct markup_loop_state {
    size_t index;
    bool last;
} markup_loop_state;

/* The caller's side of a run. Every value a callback returns through an
   out-parameter is owned by the run, which hands it back to `release`
   exactly once; values given to a callback are borrowed for the call.
   A callback that fails returns a status other than MARKUP_OK (the
   caller keeps its own account of why, for example a Python exception):
   the run stops, releases what it holds, ends every open iteration and
   returns that status. */
typedef struct markup_program_data {
    /* A new reference to `value` (a parameter or a loop item pushed). */
    void *(*retain)(void *ctx, void *value);
    void (*release)(void *ctx, void *value);
    markup_status (*apply)(void *ctx, uint32_t op, void *const *args, uint32_t nargs, void **out);
    markup_status (*truth)(void *ctx, void *value, bool *out);
    /* Iteration: begin gives an iterator (owned by the run; handed to
       iter_end once); next gives an item and *done false, or *done true. */
    markup_status (*iter_begin)(void *ctx, void *iterable, void **iter);
    markup_status (*iter_next)(void *ctx, void *iter, void **item, bool *done);
    void (*iter_end)(void *ctx, void *iter);
    markup_status (*loop_value)(void *ctx, uint32_t what, const markup_loop_state *loop,
                                void **out);
    /* Writes `value` into `slot` (appending to `out`). */
    markup_status (*write)(void *ctx, const markup_program_slot *slot, void *value,
                           markup_buf *out);
} markup_program_data;

/* Where a run stopped: the instruction that failed and the index of the
   item each open loop was at, outermost first. */
typedef struct markup_program_fault {
    uint32_t pc;
    unsigned nloops;
    size_t index[MARKUP_PROGRAM_MAX_LOOPS];
} markup_program_fault;

/* Starts a program over `nparams` parameters. `alc` may be NULL and must
   outlive the builder and the program. */
MARKUP_API markup_status markup_program_builder_new(const markup_alloc *alc, size_t nparams,
                                                    markup_program_builder **out);

/* Frees a builder that was not finished (NULL is a no-op). */
MARKUP_API void markup_program_builder_free(markup_program_builder *b);

/* Appends static HTML, copied verbatim (trusted: the caller wrote it with
   a markup_writer). Joins the STATIC instruction before it when nothing
   stands between them. */
MARKUP_API markup_status markup_program_add_static(markup_program_builder *b, const char *s,
                                                   size_t n);

/* Adds a slot (its name is copied) and gives its number for WRITE. */
MARKUP_API markup_status markup_program_add_slot(markup_program_builder *b,
                                                 const markup_program_slot *slot, uint32_t *index);

/* Appends an instruction (not STATIC) and gives its position, to patch
   its target once known. */
MARKUP_API markup_status markup_program_emit(markup_program_builder *b, markup_op op, uint32_t a,
                                             uint32_t b_arg, uint32_t *at);

/* The position the next instruction will have, as a jump's target: the
   static HTML added next is not joined with the STATIC before it. */
MARKUP_API uint32_t markup_program_here(markup_program_builder *b);

/* Sets the target `a` of the jump (IF, JUMP, LOOP, END_LOOP) at `at`; a
   target at the next position keeps the next static apart, as
   markup_program_here. Anything else is INVALID_ARG. */
MARKUP_API markup_status markup_program_patch(markup_program_builder *b, uint32_t at, uint32_t a);

/* Checks the program (see above) and turns it into an immutable one. The
   builder is consumed whether or not this succeeds. Errors: INVALID_ARG
   with err->pos the first bad instruction and err->msg what is wrong,
   NOMEM. */
MARKUP_API markup_status markup_program_builder_finish(markup_program_builder *b,
                                                       markup_program **out, markup_error *err);

/* Frees a program (NULL is a no-op). Not while another thread runs it. */
MARKUP_API void markup_program_free(markup_program *prog);

/* Reading a program back (tests, tools). */
MARKUP_API size_t markup_program_length(const markup_program *prog);
MARKUP_API markup_op markup_program_op(const markup_program *prog, size_t pc, uint32_t *a,
                                       uint32_t *b);
MARKUP_API size_t markup_program_slot_count(const markup_program *prog);
MARKUP_API const markup_program_slot *markup_program_slot_at(const markup_program *prog,
                                                             size_t index);
MARKUP_API size_t markup_program_static_size(const markup_program *prog);

/* Runs the program with `params` (nparams as built), appending to `out`.
   Returns MARKUP_OK or the first failing callback's status (or NOMEM),
   with `fault` (may be NULL) saying where; on error the buffer is rolled
   back. Thread-safe for concurrent runs of one program. */
MARKUP_API markup_status markup_program_run(const markup_program *prog,
                                            const markup_program_data *data, void *ctx,
                                            void *const *params, size_t nparams, markup_buf *out,
                                            markup_program_fault *fault);

#ifdef __cplusplus
}
#endif

#endif /* MARKUP_MARKUP_H */
