/*
 * binding.h - the part of libmarkup's API that language bindings and tools
 * build on, beside the public API in markup.h (which it includes).
 *
 * A C program that renders HTML needs markup.h only. This header adds what
 * the Python extension uses to go faster or to hold values libmarkup cannot
 * see: the escaper's implementations and its sizing arithmetic, escapers
 * for 16- and 32-bit code units (CPython's string storage), the tag tables
 * and the unchecked syntax writers, the writer's hooks for bulk writers and
 * for slots filled later, baked templates filled by a callback, template
 * programs run over the caller's values (with the numbers of the Python
 * binding's operations), and the English wording of each status. It is installed beside markup.h and follows the same version,
 * but it may change in any minor release: a program that includes it
 * should require the exact minor version it was built with.
 */
#ifndef MARKUP_BINDING_H
#define MARKUP_BINDING_H

#include "markup/markup.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status wording                                                           */
/* ------------------------------------------------------------------------ */

/* A static English description of a status ("out of memory", "invalid
   tag name", ...), the message libmarkup puts in err->msg when it has
   nothing more precise to say. Never NULL; unknown values give "unknown
   status". */
MARKUP_API const char *markup_status_message(markup_status status);

/* ------------------------------------------------------------------------ */
/* Escaper: implementations, sizing, code units                             */
/* ------------------------------------------------------------------------ */

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

/* Length of the longest prefix of `s` with nothing to escape: n when
   markup_escape would copy `s` as it is (0 for NULL). It stops within a
   few blocks of the first byte to escape, so it answers "anything to
   escape?" without reading the rest of the text. */
MARKUP_API size_t markup_escape_span(const char *s, size_t n);

/* As markup_escape, with one allocation sized by what the escaped text
   can need: it counts the bytes to escape first (a second pass over the
   text), then reserves at most n + 4 * count + 128 bytes past buf->len
   (n alone for text with nothing to escape; the buffer's 1.5x growth may
   round a small reservation up), where markup_escape reserves each
   piece's worst case whatever it holds. For text kept as it is written (a
   string's storage), where headroom costs memory, and for allocators
   where large blocks cost page faults. On failure (NOMEM, TOO_LARGE) the
   buffer is unchanged. */
MARKUP_API markup_status markup_escape_counted(markup_buf *buf, const char *s, size_t n);

/* The room past buf->len that lets markup_escape (or markup_escape_using)
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
MARKUP_API markup_status markup_escape_using(markup_buf *buf, const char *s, size_t n,
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
MARKUP_API markup_status markup_escape_u16_using(uint16_t *dst, size_t cap, const uint16_t *s,
                                                 size_t n, size_t *written,
                                                 markup_escape_impl impl);
MARKUP_API markup_status markup_escape_u32_using(uint32_t *dst, size_t cap, const uint32_t *s,
                                                 size_t n, size_t *written,
                                                 markup_escape_impl impl);

/* ------------------------------------------------------------------------ */
/* HTML syntax: tables and unchecked writers                                */
/* ------------------------------------------------------------------------ */

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

/* The bits of a markup_tag_class (markup.h): what a tag is to the HTML
   parser, plus (MARKUP_TAG_TEXT_MASK) which of the elements whose content
   the parser reads as text it is. Computed once per tag with
   markup_html_tag_class and handed to markup_writer_open_class, so that a
   binding that caches it does not look the tag up again on every render. */

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
#define MARKUP_TAG_IS_TEMPLATE   (1u << 19)
#define MARKUP_TAG_IS_COL        (1u << 20)
/* Read by the head's rules inside a <template>, leaving how the parser
   reads the template's content undecided: base basefont bgsound link meta
   noframes script style template title. */
#define MARKUP_TAG_IS_HEAD_RULES (1u << 21)
/* input keygen textarea: the parser ends an open select at their start tag
   (as at a select's). */
#define MARKUP_TAG_ENDS_SELECT   (1u << 22)
/* The formatting elements, which the parser keeps in its list of active
   formatting elements and reopens when something closed them early: a b
   big code em font i nobr s small strike strong tt u. */
#define MARKUP_TAG_IS_FORMATTING (1u << 23)
/* Their start tag closes an open p: address article aside blockquote
   center details dialog dir div dl fieldset figcaption figure footer form
   h1-h6 header hgroup hr li dd dt listing main menu nav ol p plaintext pre
   search section summary table ul xmp. */
#define MARKUP_TAG_CLOSES_P      (1u << 24)
/* li dd dt: their start tag closes an open li (dd, dt). */
#define MARKUP_TAG_IS_LIST_ITEM  (1u << 25)
/* a nobr button: their start tag closes (or adopts) an open one. */
#define MARKUP_TAG_CLOSES_SAME   (1u << 26)
#define MARKUP_TAG_IS_P          (1u << 27)
#define MARKUP_TAG_IS_HEADING    (1u << 28) /* h1-h6 */
/* rb rp rt rtc: their start tag closes an open p, li, dd, dt or ruby text
   that is the current element. */
#define MARKUP_TAG_IS_RUBY_TEXT  (1u << 29)
/* applet caption marquee object td template th: the parser's scopes and its
   list of active formatting elements stop at them. */
#define MARKUP_TAG_IS_MARKER     (1u << 30)
/* html head body form isindex command a nobr button select option optgroup
   frame: the parser ignores, merges, closes or moves around these start
   tags by rules of their own (see the table in html.c). */
#define MARKUP_TAG_RESTRUCTURES  (1u << 31)

/* The class of a tag name (n bytes, ASCII case-insensitive; not
   validated). Unknown tags (custom elements) are 0. Thread-safe. */
MARKUP_API markup_tag_class markup_html_tag_class(const char *tag, size_t n);

/* ------------------------------------------------------------------------ */
/* The writer, for bulk writers and slots                                   */
/* ------------------------------------------------------------------------ */

/* For callers that validated every attribute name when they stored it
   (markup_node, the Python binding's elements): the writer's attribute
   calls then skip markup_html_check_attr_name. */
MARKUP_API void markup_writer_skip_name_checks(markup_writer *w);

/* As markup_writer_open for a tag the caller validated and classified once
   (markup_html_check_tag, markup_html_tag_class). */
MARKUP_API markup_status markup_writer_open_class(markup_writer *w, const char *tag, size_t n,
                                                  markup_tag_class cls, markup_error *err);

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
   nowhere may it hold a '"', which would end the quoted value (RAW_TEXT,
   err->refused "\""); inside a text element it may also hold none of the
   end tags that markup_html_check_text_inside rejects (RAW_TEXT).
   err->pos is at the refused byte. */
MARKUP_API markup_status markup_context_check_attr_html(markup_context where, const char *value,
                                                        size_t n, markup_error *err);

/* Checks trusted HTML that fills a child slot at `where` (written as it
   is, without a writer): inside a text element it may hold none of their
   end tags (RAW_TEXT) nor end in the start of one; first in a template
   whose first element is not yet known it may not start with a col
   (CONTEXT), as a writer started there refuses. Script and style text
   cannot hold a slot (RAW_TEXT), nor can a void element (VOID_CHILD).
   Elsewhere anything goes. */
MARKUP_API markup_status markup_context_check_child_html(markup_context where, const char *s,
                                                         size_t n, markup_error *err);

/* Ends a start tag still waiting for its '>' (before output is handed on,
   or a slot is recorded). */
MARKUP_API markup_status markup_writer_flush_tag(markup_writer *w, markup_error *err);

/* Checks that a child slot (a value written later by another writer
   started at markup_writer_context) may stand here, then ends a pending
   start tag: not in raw text (RAW_TEXT) nor a void element (VOID_CHILD),
   both refused with nothing written, and in a text element not right
   after trusted HTML that ends in the start of an end tag such as "</ti"
   (CONTEXT). A writer started at a slot inside a text element refuses
   trusted HTML that ends so (RAW_TEXT, err->refused "<"): what follows
   the slot could finish the end tag. */
MARKUP_API markup_status markup_writer_check_child_slot(markup_writer *w, markup_error *err);

/* Tells the writer that what it writes next among the open element's
   children may be skipped or repeated when the output is used (a template
   program's condition or loop starts or ends here). Not for a branch among
   a start tag's attributes, which writes no element: call it only where
   children go. Where the output's order leaves undecided how the parser
   reads later content, the writer takes the reading that refuses more: in
   a template whose first element is not yet known, a col may come first,
   so script and style text in the rest of it is refused. In a text element
   (title, textarea...) what follows may be joined to what came before
   another branch point, so the text written before it may not end in the
   start of an end tag (CONTEXT). Script and style text, checked whole,
   cannot hold one (RAW_TEXT). Errors: INVALID_ARG, CONTEXT, RAW_TEXT. */
MARKUP_API markup_status markup_writer_branch(markup_writer *w, markup_error *err);

/* Where the next child would stand, to start another writer there later
   (markup_writer_init): it carries what the parser would know at this
   point (a frameset before it), and that the new writer writes part of a
   larger document. */
MARKUP_API markup_context markup_writer_context(const markup_writer *w);

/* A newline that begins the content of a pre, listing or textarea is
   dropped by the parser; the writer writes one there twice. Where a slot's
   value or the static HTML after a slot or a branch point may come first,
   only the template's run knows, so a builder records these two offsets
   in its static HTML (the writer's output) and the run doubles a newline
   that comes first after all: nothing was written since that content
   began.
   markup_writer_newline_start: for a child slot about to be recorded here,
   the offset at which the content of the pre, listing or textarea it
   stands directly in began; 0 when it stands elsewhere. */
MARKUP_API size_t markup_writer_newline_start(const markup_writer *w);

/* markup_writer_take_newline_mark: after static HTML was written, whether
   it began (at offset *at) with a newline that comes first in such an
   element if what the template writes at run time since the element's
   content began (the offset returned) is empty; 0 when not. Clears the
   mark. */
MARKUP_API size_t markup_writer_take_newline_mark(markup_writer *w, size_t *at);

/* Whether at `where` text is only escaped and trusted HTML written as is,
   with no check: not inside an HTML <script> or <style>, nor inside a
   title, textarea, iframe, xmp, noembed, noframes or noscript. */
MARKUP_API bool markup_context_is_plain(markup_context where);

/* `where` (a slot's markup_writer_context), for a writer whose first
   content comes first in a pre, listing or textarea: until it writes
   something, a newline that begins text it writes is written twice. Not
   plain (markup_context_is_plain). */
MARKUP_API markup_context markup_context_newline_first(markup_context where);

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

/* ------------------------------------------------------------------------ */
/* Trees                                                                    */
/* ------------------------------------------------------------------------ */

/* As markup_node_render, for a tree that stands at `where` (a writer's
   markup_writer_context), not in a body. */
MARKUP_API markup_status markup_node_render_in(const markup_node *node, markup_buf *out,
                                               markup_context where, markup_error *err);

/* ------------------------------------------------------------------------ */
/* Baked templates, filled by a callback                                    */
/* ------------------------------------------------------------------------ */

/* Appends static HTML, copied verbatim (the caller produced it with the
   markup_html_* writers or otherwise trusts it). Adjacent static pieces are
   merged. The builder's own writer (markup_baked_builder_open ...) does
   not see it: a template is built with one or the other. */
MARKUP_API markup_status markup_baked_builder_add_static(markup_baked_builder *b, const char *s,
                                                         size_t n);

/* Slots without the writer, for a binding that writes the static HTML with
   its own markup_writer and adds it with markup_baked_builder_add_static:
   a child slot, and an attribute slot for `name` (validated, copied) that
   belongs inside a start tag, after "<tag" and before ">". These slots
   check no value against where they stand: the binding does. */
MARKUP_API markup_status markup_baked_builder_add_child_slot(markup_baked_builder *b);

/* Newline points for such a binding (markup_writer_newline_start): the
   child slot just added stands directly in a pre, listing or textarea
   whose content began at static offset `content_at`; the static HTML
   added next, right after a slot, begins with a newline that comes first
   in one (markup_writer_take_newline_mark). The render writes that
   newline twice when nothing was written since content_at. INVALID_ARG
   when there is no such slot or offset. */
MARKUP_API markup_status markup_baked_builder_slot_newline(markup_baked_builder *b,
                                                           size_t content_at);
MARKUP_API markup_status markup_baked_builder_static_newline(markup_baked_builder *b,
                                                             size_t content_at);
MARKUP_API markup_status markup_baked_builder_add_attr_slot(markup_baked_builder *b,
                                                            const char *name, size_t name_len,
                                                            markup_error *err);

/* The general form, for bindings whose slot values are not strings (the
   Python extension renders lists and elements into child slots). For each
   slot in order, the static HTML before it is appended and then
   `write_slot(ctx, slot_index, kind, name, name_len, newline_first, out)`
   is called to write that slot (for ATTR slots `name` is the attribute
   name, for CHILD slots NULL); the callback appends whatever it wants to
   `out` and returns MARKUP_OK, or any other status to stop.
   `newline_first`: the value comes first in a pre, listing or textarea
   (markup_baked_builder_slot_newline), where the parser drops a newline
   that begins it: text that begins with one must have it written twice
   (a writer started at markup_context_newline_first does that). The
   trailing static HTML is appended last. Returns the first non-OK status;
   the buffer is then rolled back. */
typedef markup_status (*markup_slot_writer)(void *ctx, size_t slot, markup_slot_kind kind,
                                            const char *name, size_t name_len, bool newline_first,
                                            markup_buf *out);

MARKUP_API markup_status markup_baked_render_slots(const markup_baked *tpl,
                                                   markup_slot_writer write_slot, void *ctx,
                                                   markup_buf *out);

/* Writes one value the way markup_baked_render does for a slot of `kind`
   (and `name` for ATTR): exposed so that bindings apply the same rules.
   Does not validate UTF-8. A trusted (HTML) attribute value holding a '"'
   is MARKUP_ERR_RAW_TEXT. */
MARKUP_API markup_status markup_baked_write_value(markup_slot_kind kind, const char *name,
                                                  size_t name_len, const markup_value *value,
                                                  markup_buf *out);

/* ------------------------------------------------------------------------ */
/* Template programs                                                        */
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
                the last: the next item is then fetched before the body runs;
                with MARKUP_LOOP_ELSE, instruction `a` is a JUMP over an
                else part, and an empty iterable goes to `a` + 1 (into it)
     END_LOOP   take the next item and go to instruction `a` (just after
                its LOOP), or end the loop
     PARAM      push parameter `a`
     ITEM       push the current item of the loop `a` levels out (0: the
                innermost)
     LOOP_INFO  push data->loop_value(`b`, ...) for the loop `a` levels out
                (`b` the caller's; the Python binding's markup_loop_field)
     CYCLE      pop `b` values, keep the one at (index % b) of the loop `a`
                levels out
     APPLY      pop `b` values (pushed in order) and push data->apply(`a`,
                those values); `a` means what the caller says it means (to
                the Python binding, an entry of its table of operations,
                each of a markup_apply_kind)
     NEWLINE    write a newline when nothing was written since the static
                HTML that ended at static offset `a` (a newline the parser
                drops comes first; markup_program_add_static_newline)
     CAPTURE    start a capture: what is written until its END_CAPTURE
                becomes a value instead of output (a Jinja2 block set)
     END_CAPTURE  take what was written since the CAPTURE out of the
                output and push data->capture(those bytes). Captures nest
                with each other and with loops: one opened inside a loop
                ends inside it, and no jump enters or leaves one
     BREAK      end the innermost loop now, as its END_LOOP does when no
                item is left, and go to instruction `a` (the one its LOOP
                names: just after the END_LOOP). Not from inside a capture
                opened in that loop. (To go on with the next item, a JUMP
                to the END_LOOP.) */
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
    MARKUP_OP_APPLY,
    MARKUP_OP_NEWLINE,
    MARKUP_OP_CAPTURE,
    MARKUP_OP_END_CAPTURE,
    MARKUP_OP_BREAK
} markup_op;

#define MARKUP_LOOP_LOOKAHEAD 1u
#define MARKUP_LOOP_ELSE      2u

/* The deepest nesting of loops in a program, and the most values an
   expression may hold on the stack at once. */
#define MARKUP_PROGRAM_MAX_LOOPS    32
#define MARKUP_PROGRAM_MAX_STACK    256
#define MARKUP_PROGRAM_MAX_CAPTURES 32

typedef struct markup_program markup_program;
typedef struct markup_program_builder markup_program_builder;

/* Where a WRITE's value goes. A CHILD slot's value is written at `context`
   (markup_writer_context where the slot stands) and `depth` (the elements
   open around it), by a writer started there or, for trusted HTML written
   as it is, after markup_context_check_child_html; an ATTR slot's value is the whole value of attribute
   `name`, written with the name or omitted as the caller decides, a
   trusted one checked at `context` (markup_writer_start_tag_context where
   the slot stands; markup_context_check_attr_html). A TEXT slot's value is
   text inside static HTML the caller wrote around it, in a child position
   where text is only escaped (markup_context_is_plain) or between the
   quotes of an attribute value: a field of a formatted string, written
   escaped, with no name, depth or newline point. */
typedef struct markup_program_slot {
    markup_slot_kind kind;
    markup_context context;
    unsigned depth;
    const char *name; /* ATTR: the attribute name (not NUL-terminated) */
    size_t name_len;
    bool plain; /* set by markup_program_add_slot: CHILD at a context where
                   text is escaped and trusted HTML appended as it is
                   (markup_context_is_plain) */
    /* CHILD: markup_writer_newline_start where the slot stands, a static
       offset (0: none). When the run wrote nothing since the static HTML
       that ended there, a newline that begins the value is written twice. */
    size_t newline_at;
} markup_program_slot;

/* A loop as the body sees it: the 0-based index of the current item,
   whether it is the last and the item after it (known only under
   MARKUP_LOOP_LOOKAHEAD; `next` NULL otherwise), and the caller's own
   iterator (from iter_begin), for what else the caller keeps about it. */
typedef struct markup_loop_state {
    size_t index;
    bool last;
    void *iter;
    const void *next;
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
    /* Optional (NULL: apply, write and release, one after the other): an
       APPLY of `op` to one value `arg` (borrowed: a PARAM or ITEM just
       before, or the value the stack held) whose result a WRITE takes at
       once, written into `slot` in one step. The caller may then write the
       result without owning it (a field read in place). A failure is
       reported at the APPLY. */
    markup_status (*apply_write)(void *ctx, uint32_t op, void *arg, const markup_program_slot *slot,
                                 markup_buf *out);
    /* Optional, likewise for an APPLY whose result an IF tests at once. */
    markup_status (*apply_truth)(void *ctx, uint32_t op, void *arg, bool *out);
    /* A new value made of n bytes of output (an END_CAPTURE); needed only
       by programs that capture (a run without it fails INVALID_ARG there). */
    markup_status (*capture)(void *ctx, const char *s, size_t n, void **out);
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

/* Before static HTML that begins with a newline which comes first in a
   pre, listing or textarea when nothing was written since its content
   began at static offset `content_at` (markup_writer_take_newline_mark):
   the run writes one more newline then. */
MARKUP_API markup_status markup_program_add_static_newline(markup_program_builder *b,
                                                           size_t content_at);

/* Adds a slot (its name is copied) and gives its number for WRITE. A
   TEXT slot with a name, a depth or a newline point is INVALID_ARG. */
MARKUP_API markup_status markup_program_add_slot(markup_program_builder *b,
                                                 const markup_program_slot *slot, uint32_t *index);

/* Appends an instruction (not STATIC nor NEWLINE) and gives its position,
   to patch its target once known. When a markup_writer writes the static HTML, an
   IF, JUMP, LOOP or END_LOOP among an element's children goes with
   markup_writer_branch (after markup_writer_flush_tag, so that the start
   tag's '>' is static HTML before it). */
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
   with err->pos the index of the first bad instruction (not a byte; arg
   "b") and err->msg what is wrong, NOMEM. */
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

/* ------------------------------------------------------------------------ */
/* Template programs: the Python binding's operations                       */
/* ------------------------------------------------------------------------ */

/* libmarkup never reads these numbers: APPLY's `a` and LOOP_INFO's `b` are
   the caller's. They are the Python binding's, written here once because
   its two halves must agree on them: markup/_template/ compiles
   templates with them (taken from markup._core, which exports each under
   its name without MARKUP_) and pymarkup/baked.c runs what it compiled. A
   C caller may use them for its own callbacks, or numbers of its own.
   The binding refuses a number past the last member of its enum, so a
   new member goes at the end. */

/* The kinds of APPLY operation. The binding's APPLY `a` indexes its table
   of operations, each one of these kinds with what it needs (a key, an
   operator, a format spec). Each pops the values named and pushes one. */
typedef enum markup_apply_kind {
    MARKUP_APPLY_CONST = 0, /* a constant; pops nothing */
    MARKUP_APPLY_ATTR,      /* x.name: the attribute, else the item (Jinja2's
                               rule) */
    MARKUP_APPLY_ITEM,      /* x[key] */
    MARKUP_APPLY_BINARY,    /* a op b, op a markup_binary_op */
    MARKUP_APPLY_COMPARE,   /* a op b, op a markup_compare_op */
    MARKUP_APPLY_FORMAT,    /* format(x, spec), after str() or repr() for
                               the conversions !s and !r */
    MARKUP_APPLY_CONCAT,    /* n texts joined (an f-string's parts) */
    MARKUP_APPLY_LIST,      /* [v1, ..., vn] */
    MARKUP_APPLY_TUPLE,     /* (v1, ..., vn) */
    MARKUP_APPLY_DICT,      /* {k1: v1, ...}, the keys fixed when compiled */
    MARKUP_APPLY_SELECT,    /* cond, then, otherwise: when() as a value */
    MARKUP_APPLY_CALL,      /* f(args, keywords), f fixed when compiled */
    MARKUP_APPLY_UNPACK     /* item i of x unpacked into n names, as Python
                               unpacks (exactly n items) */
} markup_apply_kind;

/* The operators of MARKUP_APPLY_BINARY, Python's arithmetic. */
typedef enum markup_binary_op {
    MARKUP_BINARY_ADD = 0,  /* a + b */
    MARKUP_BINARY_SUB,      /* a - b */
    MARKUP_BINARY_MUL,      /* a * b */
    MARKUP_BINARY_DIV,      /* a / b */
    MARKUP_BINARY_FLOORDIV, /* a // b */
    MARKUP_BINARY_MOD       /* a % b */
} markup_binary_op;

/* The operators of MARKUP_APPLY_COMPARE. The first six are numbered as
   CPython's Py_LT ... Py_GE, so that the binding hands them to
   PyObject_RichCompare as they are (a static assertion in
   pymarkup/baked.c holds them to it); CONTAINS is `b in a`, the binding's
   contains(a, b). */
typedef enum markup_compare_op {
    MARKUP_COMPARE_LT = 0,  /* a < b */
    MARKUP_COMPARE_LE,      /* a <= b */
    MARKUP_COMPARE_EQ,      /* a == b */
    MARKUP_COMPARE_NE,      /* a != b */
    MARKUP_COMPARE_GT,      /* a > b */
    MARKUP_COMPARE_GE,      /* a >= b */
    MARKUP_COMPARE_CONTAINS /* b in a */
} markup_compare_op;

/* What LOOP_INFO's `b` asks data->loop_value for: the fields of Jinja2's
   `loop`, from the markup_loop_state it is given and what the caller keeps
   about its iterator. */
typedef enum markup_loop_field {
    MARKUP_LOOP_INDEX = 0, /* index + 1 */
    MARKUP_LOOP_INDEX0,    /* index */
    MARKUP_LOOP_FIRST,     /* index == 0 */
    MARKUP_LOOP_LAST,      /* last: its LOOP needs MARKUP_LOOP_LOOKAHEAD */
    MARKUP_LOOP_LENGTH,    /* the number of items (of an iterable without a
                              length: the rest read ahead, as Jinja2 does) */
    MARKUP_LOOP_REVINDEX,  /* length - index */
    MARKUP_LOOP_REVINDEX0, /* length - index - 1 */
    MARKUP_LOOP_PREVITEM,  /* the item before, if any */
    MARKUP_LOOP_NEXTITEM,  /* `next`, if any: needs MARKUP_LOOP_LOOKAHEAD */
    MARKUP_LOOP_CHANGES    /* what loop.changed(...) compares with: a record
                              the caller keeps for this run of the loop */
} markup_loop_field;

#ifdef __cplusplus
}
#endif

#endif /* MARKUP_BINDING_H */
