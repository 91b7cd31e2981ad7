/*
 * markup.h - the public C API of libmarkup.
 *
 * libmarkup writes HTML that the HTML parser reads back as it was meant:
 * an escaper, UTF-8 validation, a streaming writer that knows where the
 * parser stands, reference-counted element trees, and baked templates
 * (static HTML made once, slots filled per render). Output goes to a
 * growable buffer, a callback, a FILE* or a new string. This header is the
 * manual; markup/binding.h adds what language bindings build on.
 *
 * Names
 *   Every symbol starts with `markup_`, every macro and enum value with
 *   `MARKUP_`. A function is named for the type it acts on, then the verb,
 *   then what the verb takes: markup_buf_*, markup_escape*, markup_utf8_*,
 *   markup_html_* (names, JSON), markup_writer_*, markup_node_*,
 *   markup_baked_* and markup_baked_builder_*. The last word says how an
 *   argument is treated:
 *     (none)    text: escaped when written, validated when stored
 *     _html     trusted HTML: written verbatim (still checked for UTF-8,
 *               and where it could end a <script>, <style> or <title>)
 *     _bool     a boolean attribute: the bare name when `present`, else
 *               nothing
 *     _json     JSON text, made safe as a <script>'s text
 *     _to       the output goes to a markup_sink callback
 *     _file     the output goes to a FILE *
 *     _string   the output is returned as a new NUL-terminated string
 *               (malloc; free() it)
 *     _new / _free, _ref / _unref, _finish: create and release; the
 *               caller owns what _new and _finish give
 *     _count, _size, _name: queries that never fail
 *   `append_*` and `add_attr*` build a tree; `_slot` adds a
 *   slot to a template.
 *
 * Strings
 *   Strings are (pointer, length) pairs of UTF-8 bytes; they need not be
 *   NUL-terminated and may contain NUL. A NULL pointer with length 0 is the
 *   empty string; NULL with a non-zero length is MARKUP_ERR_INVALID_ARG.
 *   MARKUP_STR(s) passes a NUL-terminated string as such a pair.
 *   markup_node_append_element takes NUL-terminated strings for the everyday
 *   case. Functions that keep a string copy it, except the writer's tags,
 *   which must stay valid until their close. No input may
 *   point into the markup_buf being written, which moves when it grows
 *   (markup_buf_append alone allows it).
 *
 * Errors
 *   A function that can fail returns a markup_status (MARKUP_OK is 0).
 *   Those that take a `markup_error *err` (NULL is allowed) fill it on
 *   failure and clear it on success (see markup_error). Nothing in
 *   libmarkup calls abort() or exit(): out of memory is MARKUP_ERR_NOMEM
 *   and leaves every object as it was. A call that fails appends nothing
 *   to a buffer.
 *
 * Ownership
 *   What a _new or _finish function gives is the caller's, released with
 *   the matching _free or _unref (NULL is always a no-op there); a
 *   markup_buf is the caller's struct, released with markup_buf_free.
 *   Nodes are reference-counted: a parent holds a reference to each child
 *   (see markup_node for the two ways to build). A builder is consumed by
 *   _finish, whether or not it succeeds. Strings from the library
 *   (messages, names, versions) are static; strings from _string functions
 *   are the caller's, for free(). Every allocation goes through the
 *   markup_alloc given at creation (NULL: malloc).
 *
 * Threads
 *   libmarkup has no global mutable state. Distinct objects may be used from
 *   distinct threads freely. An object may be read (rendered) from many
 *   threads at once while nobody modifies it: a markup_baked template is
 *   immutable, and a frozen markup_node (one appended to a parent with
 *   markup_node_append_child, and what was made in place inside it) cannot
 *   be modified. A tree still being built belongs to one thread. A markup_buf, a writer and a builder belong to one thread
 *   at a time.
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

/* A NUL-terminated string as the (pointer, length) pair every function
   takes: markup_node_append_text(p, MARKUP_STR(name), &err). `s` is
   evaluated twice. */
#define MARKUP_STR(s) (s), strlen(s)

/* The `attrs` list of markup_node_append_element, name and value pairs:
   MARKUP_ATTRS("href", url, "class", "button"). A C99 compound literal:
   it lives until the end of the enclosing block. */
#define MARKUP_ATTRS(...) ((const char *const[]){__VA_ARGS__, NULL})

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
                                    an element inside <script>/<style>, or
                                    a trusted attribute value holds '"'      */
    MARKUP_ERR_FROZEN,            /* node frozen: appended to a parent        */
    MARKUP_ERR_TOO_DEEP,          /* tree nested deeper than MARKUP_MAX_DEPTH */
    MARKUP_ERR_SLOT_COUNT,        /* wrong number of baked slot values        */
    MARKUP_ERR_SLOT_VALUE,        /* slot value kind not allowed in that slot */
    MARKUP_ERR_CONTEXT,           /* an element, text or attribute the HTML
                                    parser would read otherwise where it
                                    stands (see markup_writer)               */
    MARKUP_ERR_IO                 /* writing to a FILE* failed (errno says
                                    why, as fwrite left it)                 */
} markup_status;

/* Details of a failure, filled by every function that takes a
   `markup_error *err` (NULL is allowed): on failure with what went wrong,
   on success with MARKUP_ERROR_INIT, so a reused markup_error never holds
   an old failure.

     code     the status the function returned.
     pos      the byte offset of the problem in the argument named `arg`
              (the parameter's name as the prototype spells it: "tag",
              "name", "value", "s", "json" ...), or MARKUP_POS_NONE
              when the failure has no place in an input (arg is then
              NULL).
     msg      what went wrong, in English: a static string (never freed,
              never NULL on failure) that does not repeat the status's
              name; NULL on success.
     refused  what was refused, as a static string: for
              MARKUP_ERR_RAW_TEXT the sequence as the checks spell it
              ("</script", "<!--", "</title" ...; found at `pos` in any
              letter case), for MARKUP_ERR_CONTEXT from an open the
              element's name in lower case ("p", "style", "td" ...); NULL
              otherwise.
     element  for MARKUP_ERR_RAW_TEXT, which text element the refused
              sequence would end early, as a static lower-case name:
              "script" or "style" for their own end tag, "script" for a
              "<!--" inside a script (which moves where the script
              ends), "title", "textarea", "noscript", "iframe", "xmp",
              "noembed" or "noframes" for the end tag of one of those
              around the text (its name is refused + 2). Compare it with
              the element the text was written in to tell its own end
              from an outer element's. NULL when the text ends in only
              the start of an end tag that what follows a slot could
              finish (refused "<", no element decided yet), for a '"' in
              an attribute value, and for every other code.

   A report reads: markup_status_name(err.code), err.msg, and err.pos in
   err.arg when it is not MARKUP_POS_NONE. */
typedef struct markup_error {
    markup_status code;
    size_t pos;
    const char *msg;
    const char *refused;
    const char *arg;
    const char *element;
} markup_error;

/* err.pos when the failure has no position. */
#define MARKUP_POS_NONE SIZE_MAX

/* A markup_error with nothing in it: markup_error err = MARKUP_ERROR_INIT; */
#define MARKUP_ERROR_INIT {MARKUP_OK, MARKUP_POS_NONE, NULL, NULL, NULL, NULL}

/* The status's name as the enum spells it ("MARKUP_ERR_INVALID_TAG"), for
   logs and reports beside err.msg. Never NULL; unknown values give
   "MARKUP_ERR_UNKNOWN". Thread-safe. */
MARKUP_API const char *markup_status_name(markup_status status);

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

/* Number of bytes in `s` that need escaping (0 means the input can be used
   as it is). */
MARKUP_API size_t markup_escape_count(const char *s, size_t n);

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
   offending byte (MARKUP_POS_NONE for the empty name). */
MARKUP_API markup_status markup_html_check_tag(const char *tag, size_t n, markup_tag_kind *kind,
                                               markup_error *err);

/* Validates an attribute name. Rejected: the empty name, ASCII whitespace,
   control characters (C0, DEL, C1), and the characters
       "  '  <  >  /  =  &  \  `
   and invalid UTF-8. Everything else is accepted, so "@click", ":class",
   "x-on:click.prevent" and "data-on-click__debounce.500ms" are valid.
   Errors: MARKUP_ERR_INVALID_ATTR_NAME (or MARKUP_ERR_INVALID_UTF8) with
   err->pos at the offending byte. */
MARKUP_API markup_status markup_html_check_attr_name(const char *name, size_t n, markup_error *err);

/* JSON text (serialized by the caller; not parsed here) made safe as the
   raw text of a <script>, appended to `out`: '<', '>', '&' and '\'' become
   \u003c \u003e \u0026 \u0027, and U+2028 and U+2029 \u2028 \u2029 (line
   ends to older JavaScript).
   No string in it can then end the script or open a comment, and the
   JSON means the same. Not for attribute values: '"' stays. The text must
   be valid UTF-8 (checked). Errors: INVALID_UTF8 (err->pos), INVALID_ARG,
   NOMEM, TOO_LARGE; the buffer is then as it was. */
MARKUP_API markup_status markup_html_json_for_script(markup_buf *out, const char *json, size_t n,
                                                     markup_error *err);

/* ------------------------------------------------------------------------ */
/* Reading HTML: where a value inserted into template text would stand        */
/* ------------------------------------------------------------------------ */

/* markup_scan reads the static text of a template written elsewhere (a
   Jinja2 template, a t-string) as the HTML tokenizer of the standard
   (section 13.2.5) does, so that for each place where the template inserts
   a value it can say what the parser will take that value for. It keeps
   no tree: the innermost raw-text element and the tag and attribute being
   read are all it knows. Scripts' "<!--" escapes and foreign content are
   not told apart: a value in an <svg> <style> is reported as raw text.

       markup_scan scan;
       markup_scan_init(&scan);
       markup_scan_text(&scan, "<a href=\"", 9);
       markup_scan_where where;
       markup_scan_at(&scan, &where);   // ATTR_VALUE, attr "href", at start
       markup_scan_value(&scan);        // the value goes here
       markup_scan_text(&scan, "\">", 2);

   The struct may live on the stack and be copied to follow two branches
   of a template from one place; nothing in it is allocated. */
typedef enum markup_place {
    MARKUP_PLACE_TEXT = 0,  /* element content: escaped text is text      */
    MARKUP_PLACE_RCDATA,    /* <title>, <textarea>: text, entities decoded */
    MARKUP_PLACE_RAW_TEXT,  /* <script>, <style>, <xmp>, <iframe>,
                                 <noembed>, <noframes>, <noscript>,
                                 <plaintext>: no entity is decoded          */
    MARKUP_PLACE_COMMENT,   /* <!-- -->, a doctype or a bogus comment     */
    MARKUP_PLACE_TAG_NAME,  /* right after "<" or "</", or in a tag name  */
    MARKUP_PLACE_ATTR_NAME, /* inside a tag where an attribute name goes  */
    MARKUP_PLACE_ATTR_VALUE /* an attribute value, quoted or not          */
} markup_place;

/* The tokenizer's state: private fields, read through markup_scan_at. */
typedef struct markup_scan {
    uint8_t state_, quote_, flags_, dashes_;
    uint8_t tag_len_, attr_len_, raw_len_, end_len_;
    uint32_t value_len_;
    char tag_[32], attr_[64], raw_[16], end_[16];
} markup_scan;

/* What markup_scan_at reports about the current place. */
typedef struct markup_scan_where {
    markup_place place;
    char quote;       /* ATTR_VALUE: '"', '\'' or 0 when unquoted       */
    bool value_start; /* ATTR_VALUE: no byte of the value before         */
    const char *tag;  /* the tag being read (TAG_NAME, ATTR_*) or the
                            raw-text element (RCDATA, RAW_TEXT): lower
                            case, its first 31 bytes; "" when a value
                            stands in the name or there is none           */
    size_t tag_len;
    const char *attr; /* ATTR_VALUE: the attribute's name, lower case,
                            its first 63 bytes; "" as for tag            */
    size_t attr_len;
} markup_scan_where;

/* Starts reading at the beginning of a document's body (element content). */
MARKUP_API void markup_scan_init(markup_scan *scan);

/* Reads n bytes of the template's static text. Any bytes are accepted
   (the tokenizer has no errors that stop it); '\r' counts as whitespace. */
MARKUP_API void markup_scan_text(markup_scan *scan, const char *s, size_t n);

/* Where a value inserted now would stand. The pointers in *where point
   into *scan and are valid until it next changes. */
MARKUP_API void markup_scan_at(const markup_scan *scan, markup_scan_where *where);

/* A value was inserted here: it is read as text or as part of the name or
   value it stands in (so "<{value}" is a tag whose name is not known, and
   an attribute value is no longer at its start). */
MARKUP_API void markup_scan_value(markup_scan *scan);

/* ------------------------------------------------------------------------ */
/* The HTML writer                                                            */
/* ------------------------------------------------------------------------ */

/* A streaming writer of HTML that knows where the HTML parser is.
   libmarkup's serializers write through it (markup_node_render and the
   baked template builder), so all output keeps the same rule, and a
   program that writes HTML call by call can use it directly. The rule it
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
   - The parser drops a newline right after the start tag of a pre,
     listing or textarea: text that comes first there (nothing written in
     the element before it) and begins with a newline (or a carriage
     return) gets one more. Trusted HTML is written as it is.
   - <style> inside <select> is refused: older parsers (html5lib, and
     browsers before the customizable select) ignore its start tag and read
     its text as markup.
   - select, input, textarea and keygen inside <select> (at any depth, in
     svg or math too) are refused: the parser ends the select at their
     start tag, and older parsers, which ignore svg and math there, read
     what follows as HTML outside the select.
   - plaintext is refused (the parser never leaves it); void elements and
     the ones the parser reads as empty (keygen param basefont bgsound
     frame, and image in HTML content, where it is an <img>) take no
     children and have no end tag.
   - After a frameset the parser ignores script and style start tags: their
     text is refused. A writer started at another's markup_writer_context
     writes part of a larger document and may not open a frameset.
   - So does a template whose first element not read by the head's rules
     is a col (MARKUP_TAG_IS_HEAD_RULES): script and style text in the rest
     of it is refused, and a writer started inside such a template, before
     that first element, may not open that col. Trusted HTML written there
     is read for its first such start tag; HTML that leaves a tag, comment
     or text element open counts as a col.

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

/* What a tag is to the HTML parser, as the writer keeps it for each open
   element (the bits are in markup/binding.h). */
typedef uint32_t markup_tag_class;

/* Where a writer stands: enough to start another writer at the same place
   (a baked template's child slot). Treat as opaque. */
typedef struct markup_context {
    uint8_t mode;
    uint8_t scope; /* what a later start tag may close (writer.c) */
    uint16_t flags;
} markup_context;

/* The context of a document's body: HTML content, nothing around. */
#define MARKUP_CONTEXT_HTML ((markup_context){0, 0, 0})

typedef struct markup_writer_frame {
    const char *tag; /* the caller's bytes: live until the close */
    size_t tag_len;
    markup_tag_class cls;
    markup_context inside;
    size_t content_at; /* pre, listing, textarea: where the content began */
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
    size_t newline_mark;    /* markup_writer_take_newline_mark */
    size_t newline_mark_at; /* where the marked static HTML begins */
    markup_writer_frame inline_frames[16];
} markup_writer;

/* Starts a writer that appends to `out` in context `where`
   (MARKUP_CONTEXT_HTML for a page or a fragment of a body). Does not
   allocate: the stack grows on the buffer's allocator past 16 levels. */
MARKUP_API void markup_writer_init(markup_writer *w, markup_buf *out, markup_context where);

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

/* Attributes of the element just opened: ' name="escaped value"', the value
   verbatim for _html; for _bool the bare name (` disabled`) when
   `present`, nothing (the name still checked) when not. The name is validated
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
MARKUP_API markup_status markup_writer_attr_bool(markup_writer *w, const char *name,
                                                 size_t name_len, bool present, markup_error *err);

/* Text: escaped, or raw inside an HTML <script>/<style> (checked, err->pos
   at the refused '<' of s, or MARKUP_POS_NONE when only joining s to the
   piece before forms the sequence). The bytes must be valid UTF-8 (not
   checked here; markup_utf8_validate). Errors: VOID_CHILD, RAW_TEXT,
   CONTEXT (script/style text where the parser ignores their start tag, as
   after a <frameset>), NOMEM. */
MARKUP_API markup_status markup_writer_text(markup_writer *w, const char *s, size_t n,
                                            markup_error *err);

/* Trusted HTML, written verbatim; inside <script>/<style> and the text
   elements it is checked like raw text. First in a <template> it decides
   the template's reading as an element would (see above): CONTEXT when a
   writer started there is given a first col. It must close what it opens:
   the writer does not follow elements inside it. */
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

/* The number of elements open. */
static inline size_t markup_writer_depth(const markup_writer *w) { return w->depth; }

/* The tag of the innermost open element as given to open (*len bytes, not
   NUL-terminated), to name it in a message; NULL (and *len 0) when none
   is open. */
static inline const char *markup_writer_open_tag(const markup_writer *w, size_t *len) {
    *len = w->depth ? w->frames[w->depth - 1].tag_len : 0;
    return w->depth ? w->frames[w->depth - 1].tag : NULL;
}

/* ------------------------------------------------------------------------ */
/* Element trees                                                              */
/* ------------------------------------------------------------------------ */

/* The deepest nesting markup_node_render accepts (elements inside
   elements). Deeper trees give MARKUP_ERR_TOO_DEEP, never a stack overflow:
   the serializer is iterative. */
#define MARKUP_MAX_DEPTH 1024

/* A node: an element (tag, attributes, children) or a fragment (children
   only; a document is a fragment that starts with a doctype). Nodes are
   reference-counted (atomically). A tree is built one of two ways:

   Top-down, in place: markup_node_append_element makes an element inside
   its parent and returns it borrowed: the parent holds the only reference,
   nothing is unref'd but the root. The child stays writable until its
   parent is frozen, and belongs to the tree being built: one thread builds
   a tree (with the nodes made in place in it) at a time.

   Bottom-up, shared: markup_node_new_element returns a node with one
   reference, the caller's; markup_node_append_child gives the parent a
   reference of its own (the caller still drops theirs) and *freezes* the
   child: it can no longer be modified (MARKUP_ERR_FROZEN), and may be
   appended to other parents too and rendered from many threads.

   Appending a node to a parent freezes it, and everything made in place
   inside it, at once. A node cannot be appended inside itself (INVALID_ARG),
   so no cycle can form. */
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
MARKUP_API markup_status markup_node_add_attr(markup_node *node, const char *name, size_t name_len,
                                              const char *value, size_t value_len,
                                              markup_error *err);

/* As markup_node_add_attr, but the value is trusted HTML written verbatim
   (still checked for valid UTF-8). */
MARKUP_API markup_status markup_node_add_attr_html(markup_node *node, const char *name,
                                                   size_t name_len, const char *value,
                                                   size_t value_len, markup_error *err);

/* A boolean attribute: `present` true stores a bare name (` disabled`),
   false stores nothing (the attribute is omitted), as HTML reads a boolean
   attribute. The name is validated either way. */
MARKUP_API markup_status markup_node_add_attr_bool(markup_node *node, const char *name,
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
   INVALID_ARG (child NULL, or `node` is `child` or made in place inside it),
   VOID_CHILD, RAW_TEXT (element inside <script>/<style>), NOMEM. */
MARKUP_API markup_status markup_node_append_child(markup_node *node, markup_node *child,
                                                  markup_error *err);

/* The everyday case in one call, with NUL-terminated strings: a new
   element <tag> inside `parent` (on the parent's allocator), with the
   attributes in `attrs` (NULL, or name, value, name, value, ..., NULL;
   text values, escaped when rendered) and a text child `text` (NULL for
   none). Returns the element, borrowed: the parent owns it (do not unref
   it), and it stays writable until the parent is frozen (see above). NULL
   on failure, with err set (any error of new_element, add_attr,
   append_text and append_child, err->arg "tag", "attrs" or "text";
   INVALID_ARG for a name without a value); the parent is then unchanged.

     markup_node *a = markup_node_append_element(p, "a", MARKUP_ATTRS("href", url), "Search",
                                            &err);   */
MARKUP_API markup_node *markup_node_append_element(markup_node *parent, const char *tag,
                                                   const char *const *attrs, const char *text,
                                                   markup_error *err);

/* Appends JSON text (serialized by the caller, not parsed) as a text child
   made safe by markup_html_json_for_script: the way to put data into a
   <script type="application/json">. Errors: as markup_html_json_for_script
   and markup_node_append_text. */
MARKUP_API markup_status markup_node_append_json(markup_node *node, const char *json, size_t n,
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

/* ------------------------------------------------------------------------ */
/* Baked templates                                                            */
/* ------------------------------------------------------------------------ */

/* A baked template is static HTML made once, with slots filled at each
   render. It is built like a writer's output: the builder takes the same
   open, attribute, text and close calls as markup_writer (with the same
   checks, and UTF-8 validated), and slots where values go:

     markup_baked_builder_open(b, "li", 2, &err);
     markup_baked_builder_attr(b, "class", 5, "row", 3, &err);
     markup_baked_builder_attr_slot(b, "data-id", 7, &err);     slot 0
     markup_baked_builder_child_slot(b, &err);                   slot 1
     markup_baked_builder_close(b, &err);
     markup_baked_builder_finish(b, &tpl, &err);

   gives <li class="row" data-id="{0}">{1}</li>. Slots are numbered 0, 1,
   ... in the order added.

     CHILD  a child position: TEXT is escaped, HTML verbatim, OMIT writes
            nothing. Refused in <script>/<style> and in void elements.
            Inside title, textarea, noscript, iframe, xmp, noembed and
            noframes an HTML value is checked when filled: none of their
            end tags, and no start of one at its end ("<", "</ti"), which
            what follows the slot could finish (MARKUP_ERR_RAW_TEXT).
     ATTR   a whole attribute, stored with its name, in a start tag (right
            after open or another attribute; anywhere else is
            MARKUP_ERR_INVALID_ARG): TEXT writes ' name="escaped"', HTML
            ' name="verbatim"', TRUE ' name', OMIT nothing. Attributes that
            change how the parser reads the content (font's color, face
            and size in svg, annotation-xml's encoding) must be static.

   markup_baked_render makes room once for the static text, every attribute
   slot's name and every short value escaped, copies each static segment
   and writes each slot's value. A template is immutable after
   markup_baked_builder_finish and may be rendered from many threads at
   once. */
typedef struct markup_baked markup_baked;
typedef struct markup_baked_builder markup_baked_builder;

/* MARKUP_SLOT_TEXT is for template programs only (binding.h's
   markup_program_slot): a builder here never makes one, and
   markup_baked_write_value refuses it. */
typedef enum markup_slot_kind {
    MARKUP_SLOT_CHILD = 0,
    MARKUP_SLOT_ATTR,
    MARKUP_SLOT_TEXT
} markup_slot_kind;

typedef enum markup_value_kind {
    MARKUP_VALUE_TEXT = 0, /* escaped                                   */
    MARKUP_VALUE_HTML,     /* trusted, verbatim                         */
    MARKUP_VALUE_TRUE,     /* ATTR only: bare attribute name            */
    MARKUP_VALUE_OMIT      /* writes nothing (no value, or false)       */
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

/* The static HTML, as markup_writer_open, _attr, _attr_html, _attr_bool,
   _text, _html, _comment, _doctype and _close write it, with the same
   errors; every string is also checked for UTF-8 (INVALID_UTF8, err->arg
   names it) and copied. A failed call adds nothing and leaves the builder
   usable. */
MARKUP_API markup_status markup_baked_builder_open(markup_baked_builder *b, const char *tag,
                                                   size_t n, markup_error *err);
MARKUP_API markup_status markup_baked_builder_attr(markup_baked_builder *b, const char *name,
                                                   size_t name_len, const char *value,
                                                   size_t value_len, markup_error *err);
MARKUP_API markup_status markup_baked_builder_attr_html(markup_baked_builder *b, const char *name,
                                                        size_t name_len, const char *value,
                                                        size_t value_len, markup_error *err);
MARKUP_API markup_status markup_baked_builder_attr_bool(markup_baked_builder *b, const char *name,
                                                        size_t name_len, bool present,
                                                        markup_error *err);
MARKUP_API markup_status markup_baked_builder_text(markup_baked_builder *b, const char *s, size_t n,
                                                   markup_error *err);
MARKUP_API markup_status markup_baked_builder_html(markup_baked_builder *b, const char *s, size_t n,
                                                   markup_error *err);
MARKUP_API markup_status markup_baked_builder_comment(markup_baked_builder *b, const char *s,
                                                      size_t n, markup_error *err);
MARKUP_API markup_status markup_baked_builder_doctype(markup_baked_builder *b, markup_error *err);
MARKUP_API markup_status markup_baked_builder_close(markup_baked_builder *b, markup_error *err);

/* A child slot where the next child would stand. Errors: RAW_TEXT (inside
   <script>/<style>), VOID_CHILD, CONTEXT (see markup_writer_check_child_slot
   in markup/binding.h), NOMEM. */
MARKUP_API markup_status markup_baked_builder_child_slot(markup_baked_builder *b,
                                                         markup_error *err);

/* An attribute slot for attribute `name` (validated, copied) in the start
   tag just opened. Errors: INVALID_ARG (no start tag is open: after text,
   a child or a close, as for markup_baked_builder_attr), CONTEXT (an
   attribute that must be static), INVALID_ATTR_NAME, NOMEM. */
MARKUP_API markup_status markup_baked_builder_attr_slot(markup_baked_builder *b, const char *name,
                                                        size_t name_len, markup_error *err);

/* Turns the builder into an immutable template. The builder is consumed
   (freed) whether or not this succeeds. Errors: INVALID_ARG (an element is
   still open, or out is NULL), NOMEM, TOO_LARGE. */
MARKUP_API markup_status markup_baked_builder_finish(markup_baked_builder *b, markup_baked **out,
                                                     markup_error *err);

/* Frees a template (NULL is a no-op). Not while another thread renders it. */
MARKUP_API void markup_baked_free(markup_baked *tpl);

/* Number of slots, and the total size of the static HTML. */
MARKUP_API size_t markup_baked_slot_count(const markup_baked *tpl);
MARKUP_API size_t markup_baked_static_size(const markup_baked *tpl);

/* The kind of slot `slot` in *kind. INVALID_ARG when there is no such
   slot (or tpl or kind is NULL). */
MARKUP_API markup_status markup_baked_slot_kind(const markup_baked *tpl, size_t slot,
                                                markup_slot_kind *kind);

/* Renders with one value per slot, in slot order, appending to `out`.
   Errors: SLOT_COUNT (nvalues != slot count), SLOT_VALUE (TRUE in a child
   slot), INVALID_UTF8 (err->pos is the offset inside that value, err->arg
   "values"), RAW_TEXT (an HTML value that would end the text element its
   slot stands in), NOMEM,
   TOO_LARGE (the room to make does not fit in a size_t).
   On error the buffer is rolled back. Thread-safe for concurrent renders of
   one template. */
MARKUP_API markup_status markup_baked_render(const markup_baked *tpl, const markup_value *values,
                                             size_t nvalues, markup_buf *out, markup_error *err);

/* Fills the template and appends the HTML to a tree as a child, as
   markup_node_append_html would. Errors: as markup_baked_render and
   markup_node_append_html. */
MARKUP_API markup_status markup_node_append_baked(markup_node *node, const markup_baked *tpl,
                                                  const markup_value *values, size_t nvalues,
                                                  markup_error *err);

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

#ifdef __cplusplus
}
#endif

#endif /* MARKUP_MARKUP_H */
