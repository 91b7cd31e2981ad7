/*
 * html.c - HTML name checks, tag tables, raw-text checks and the low-level
 * writers of HTML syntax.
 */
#include <stdint.h>
#include <string.h>

#include "copy_impl.h"
#include "markup/markup.h"
#include "utf8_impl.h"

static markup_status fail(markup_error *err, markup_status code, size_t pos, const char *msg) {
    if (err) *err = (markup_error){code, pos, msg};
    return code;
}

static inline unsigned char ascii_lower(unsigned char c) {
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c;
}

static inline bool ascii_alpha(unsigned char c) { return (unsigned char)((c | 0x20) - 'a') < 26; }

static inline bool ascii_digit(unsigned char c) { return (unsigned char)(c - '0') < 10; }

/* True when s[0..n) equals the lower-case ASCII `lower` ignoring case. */
static bool equals_ignore_case(const char *s, size_t n, const char *lower) {
    size_t len = strlen(lower);
    if (n != len) return false;
    for (size_t i = 0; i < n; i++)
        if (ascii_lower((unsigned char)s[i]) != (unsigned char)lower[i]) return false;
    return true;
}

/* ---- tags -------------------------------------------------------------- */

static const char *const void_tags[] = {"area", "base",  "br",   "col",   "embed", "hr",   "img",
                                        "input", "link", "meta", "source", "track", "wbr"};

static markup_tag_kind tag_kind(const char *name, size_t n) {
    if (n > 6) return MARKUP_TAG_NORMAL; /* the longest listed tag is 6 bytes */
    if (equals_ignore_case(name, n, "script")) return MARKUP_TAG_SCRIPT;
    if (equals_ignore_case(name, n, "style")) return MARKUP_TAG_STYLE;
    for (size_t i = 0; i < sizeof void_tags / sizeof void_tags[0]; i++)
        if (equals_ignore_case(name, n, void_tags[i])) return MARKUP_TAG_VOID;
    return MARKUP_TAG_NORMAL;
}

markup_status markup_html_check_tag(const char *name, size_t n, markup_tag_kind *kind,
                                    markup_error *err) {
    if (name == NULL && n != 0)
        return fail(err, MARKUP_ERR_INVALID_ARG, 0, "NULL tag name with non-zero length");
    if (n == 0) return fail(err, MARKUP_ERR_INVALID_TAG, 0, "tag name is empty");
    if (!ascii_alpha((unsigned char)name[0]))
        return fail(err, MARKUP_ERR_INVALID_TAG, 0, "tag name must start with an ASCII letter");
    for (size_t i = 1; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!ascii_alpha(c) && !ascii_digit(c) && c != '-')
            return fail(err, MARKUP_ERR_INVALID_TAG, i,
                        "tag name may only hold ASCII letters, digits and '-'");
    }
    if (kind) *kind = tag_kind(name, n);
    return MARKUP_OK;
}

/* ---- attribute names --------------------------------------------------- */

/* ASCII bytes that may not appear in an attribute name, with the reason. */
static const char *attr_ascii_reject(unsigned char c) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r')
        return "attribute name contains whitespace";
    if (c < 0x20 || c == 0x7F) return "attribute name contains a control character";
    switch (c) {
    case '"': case '\'': case '<': case '>': case '/': case '=': case '&': case '\\': case '`':
        return "attribute name contains one of \" ' < > / = & \\ `";
    default: return NULL;
    }
}

/* Bit c of the pair is set for the ASCII bytes attr_ascii_reject refuses:
   controls, space, DEL and " & ' / < = > \ `. */
#define BIT(c) ((uint64_t)1 << ((c) & 63))
static const uint64_t attr_reject_low = /* 0x00..0x3F */
    (((uint64_t)1 << 33) - 1) /* 0x00..0x20 */ | BIT('"') | BIT('&') | BIT('\'') | BIT('/') |
    BIT('<') | BIT('=') | BIT('>');
static const uint64_t attr_reject_high = BIT('\\') | BIT('`') | BIT(0x7F); /* 0x40..0x7F */
#undef BIT

/* True when name[0..n) is ASCII and holds no refused byte: most names, in
   one branch-free pass. */
static bool attr_name_plain_ascii(const char *name, size_t n) {
    uint64_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        uint64_t mask = c & 0x40 ? attr_reject_high : attr_reject_low;
        bad |= (uint64_t)(c >> 7) | (mask >> (c & 63));
    }
    return (bad & 1) == 0;
}

markup_status markup_html_check_attr_name(const char *name, size_t n, markup_error *err) {
    if (name == NULL && n != 0)
        return fail(err, MARKUP_ERR_INVALID_ARG, 0, "NULL attribute name with non-zero length");
    if (n == 0) return fail(err, MARKUP_ERR_INVALID_ATTR_NAME, 0, "attribute name is empty");
    if (attr_name_plain_ascii(name, n)) return MARKUP_OK;
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)name[i];
        if (c < 0x80) {
            const char *why = attr_ascii_reject(c);
            if (why) return fail(err, MARKUP_ERR_INVALID_ATTR_NAME, i, why);
            i++;
            continue;
        }
        size_t len = markup_utf8_sequence_(name + i, n - i);
        if (len == 0) return fail(err, MARKUP_ERR_INVALID_UTF8, i, "attribute name is not valid UTF-8");
        /* C1 controls U+0080..U+009F are encoded C2 80..C2 9F. */
        if (c == 0xC2 && (unsigned char)name[i + 1] <= 0x9F)
            return fail(err, MARKUP_ERR_INVALID_ATTR_NAME, i,
                        "attribute name contains a control character");
        i += len;
    }
    return MARKUP_OK;
}

/* ---- raw text ---------------------------------------------------------- */

/* True when s[0..n) starts with the lower-case ASCII `lower`, ignoring case. */
static bool starts_with_ignore_case(const char *s, size_t n, const char *lower, size_t len) {
    if (n < len) return false;
    for (size_t i = 0; i < len; i++)
        if (ascii_lower((unsigned char)s[i]) != (unsigned char)lower[i]) return false;
    return true;
}

markup_status markup_html_check_raw_text(markup_tag_kind kind, const char *s, size_t n,
                                         markup_error *err) {
    if (s == NULL && n != 0)
        return fail(err, MARKUP_ERR_INVALID_ARG, 0, "NULL text with non-zero length");
    if (n == 0 || (kind != MARKUP_TAG_SCRIPT && kind != MARKUP_TAG_STYLE)) return MARKUP_OK;
    const char *p = s, *end = s + n;
    while (p < end && (p = memchr(p, '<', (size_t)(end - p))) != NULL) {
        size_t left = (size_t)(end - p);
        if (kind == MARKUP_TAG_SCRIPT) {
            if (starts_with_ignore_case(p, left, "</script", 8))
                return fail(err, MARKUP_ERR_RAW_TEXT, (size_t)(p - s),
                            "\"</script\" inside <script> would end it early");
            if (starts_with_ignore_case(p, left, "<!--", 4))
                return fail(err, MARKUP_ERR_RAW_TEXT, (size_t)(p - s),
                            "\"<!--\" inside <script> changes how it is parsed");
        } else if (starts_with_ignore_case(p, left, "</style", 7)) {
            return fail(err, MARKUP_ERR_RAW_TEXT, (size_t)(p - s),
                        "\"</style\" inside <style> would end it early");
        }
        p++;
    }
    return MARKUP_OK;
}

/* The elements whose whole content a parser reads as text, up to their
   end tag (with JavaScript on, for noscript), as end tags. */
static const char *const TEXT_ELEMENT_END_TAGS[] = {
    "</title", "</textarea", "</noscript", "</iframe", "</xmp", "</noembed", "</noframes",
};
#define TEXT_ELEMENTS (sizeof TEXT_ELEMENT_END_TAGS / sizeof TEXT_ELEMENT_END_TAGS[0])

static bool tag_equals(const char *tag, size_t n, const char *lower);

bool markup_html_reads_as_text(const char *tag, size_t n) {
    if (tag == NULL) return false;
    for (size_t i = 0; i < TEXT_ELEMENTS; i++) {
        const char *name = TEXT_ELEMENT_END_TAGS[i] + 2;
        if (tag_equals(tag, n, name)) return true;
    }
    return false;
}

markup_status markup_html_check_text_inside(const char *s, size_t n, markup_error *err) {
    if (s == NULL && n != 0)
        return fail(err, MARKUP_ERR_INVALID_ARG, 0, "NULL text with non-zero length");
    const char *p = s, *end = s + n;
    while (n != 0 && p < end && (p = memchr(p, '<', (size_t)(end - p))) != NULL) {
        size_t left = (size_t)(end - p);
        for (size_t i = 0; i < TEXT_ELEMENTS; i++) {
            const char *end_tag = TEXT_ELEMENT_END_TAGS[i];
            if (starts_with_ignore_case(p, left, end_tag, strlen(end_tag)))
                return fail(err, MARKUP_ERR_RAW_TEXT, (size_t)(p - s),
                            "an end tag of title, textarea, noscript, iframe, xmp, noembed or "
                            "noframes in raw text inside such an element would end it early");
        }
        p++;
    }
    return MARKUP_OK;
}

/* ---- writers ----------------------------------------------------------- */

markup_status markup_html_write_doctype(markup_buf *buf) {
    if (buf == NULL) return MARKUP_ERR_INVALID_ARG;
    return markup_buf_append(buf, "<!doctype html>", 15);
}

markup_status markup_html_write_open(markup_buf *buf, const char *tag, size_t n) {
    if (buf == NULL || (tag == NULL && n != 0)) return MARKUP_ERR_INVALID_ARG;
    if (n == SIZE_MAX) return MARKUP_ERR_TOO_LARGE;
    markup_status st = markup_buf_reserve(buf, n + 1);
    if (st != MARKUP_OK) return st;
    buf->data[buf->len++] = '<';
    copy_short(buf->data + buf->len, tag, n);
    buf->len += n;
    return MARKUP_OK;
}

markup_status markup_html_write_close(markup_buf *buf, const char *tag, size_t n) {
    if (buf == NULL || (tag == NULL && n != 0)) return MARKUP_ERR_INVALID_ARG;
    if (n > SIZE_MAX - 3) return MARKUP_ERR_TOO_LARGE;
    markup_status st = markup_buf_reserve(buf, n + 3);
    if (st != MARKUP_OK) return st;
    char *d = buf->data + buf->len;
    d[0] = '<';
    d[1] = '/';
    copy_short(d + 2, tag, n);
    d[n + 2] = '>';
    buf->len += n + 3;
    return MARKUP_OK;
}

markup_status markup_html_write_attr_bare(markup_buf *buf, const char *name, size_t name_len) {
    if (buf == NULL || (name == NULL && name_len != 0)) return MARKUP_ERR_INVALID_ARG;
    if (name_len == SIZE_MAX) return MARKUP_ERR_TOO_LARGE;
    markup_status st = markup_buf_reserve(buf, name_len + 1);
    if (st != MARKUP_OK) return st;
    buf->data[buf->len++] = ' ';
    copy_short(buf->data + buf->len, name, name_len);
    buf->len += name_len;
    return MARKUP_OK;
}

/* ' name="' then the value (escaped or not) then '"'. */
static markup_status write_attr(markup_buf *buf, const char *name, size_t name_len,
                                const char *value, size_t value_len, bool escape) {
    if (buf == NULL || (name == NULL && name_len != 0) || (value == NULL && value_len != 0))
        return MARKUP_ERR_INVALID_ARG;
    if (name_len > SIZE_MAX - 3) return MARKUP_ERR_TOO_LARGE;
    size_t start = buf->len;
    markup_status st = markup_buf_reserve(buf, name_len + 3);
    if (st != MARKUP_OK) return st;
    char *d = buf->data + buf->len;
    d[0] = ' ';
    copy_short(d + 1, name, name_len);
    d[name_len + 1] = '=';
    d[name_len + 2] = '"';
    buf->len += name_len + 3;
    st = escape ? markup_escape(buf, value, value_len) : markup_buf_append(buf, value, value_len);
    if (st == MARKUP_OK) st = markup_buf_putc(buf, '"');
    if (st != MARKUP_OK) markup_buf_truncate(buf, start);
    return st;
}

markup_status markup_html_write_attr(markup_buf *buf, const char *name, size_t name_len,
                                     const char *value, size_t value_len) {
    return write_attr(buf, name, name_len, value, value_len, true);
}

markup_status markup_html_write_attr_html(markup_buf *buf, const char *name, size_t name_len,
                                          const char *value, size_t value_len) {
    return write_attr(buf, name, name_len, value, value_len, false);
}

markup_status markup_html_write_comment(markup_buf *buf, const char *s, size_t n) {
    if (buf == NULL || (s == NULL && n != 0)) return MARKUP_ERR_INVALID_ARG;
    size_t start = buf->len;
    markup_status st = markup_buf_append(buf, "<!--", 4);
    if (st == MARKUP_OK) st = markup_escape(buf, s, n);
    if (st == MARKUP_OK) st = markup_buf_append(buf, "-->", 3);
    if (st != MARKUP_OK) markup_buf_truncate(buf, start);
    return st;
}

/* ---- foreign content -------------------------------------------------- */

static bool tag_equals(const char *tag, size_t n, const char *lower) {
    size_t i = 0;
    for (; i < n && lower[i] != '\0'; i++) {
        char c = tag[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != lower[i]) return false;
    }
    return i == n && lower[i] == '\0';
}

markup_content markup_html_content_inside(markup_content outer, const char *tag, size_t n) {
    if (tag == NULL || n > 13) return outer; /* "foreignobject" is the longest */
    switch (outer) {
    case MARKUP_CONTENT_HTML:
        if (tag_equals(tag, n, "svg")) return MARKUP_CONTENT_SVG;
        if (tag_equals(tag, n, "math")) return MARKUP_CONTENT_MATH;
        /* MathML again when straight inside mi, mo, mn, ms or mtext, and
           meaningless anywhere else in HTML: taken as MathML everywhere,
           so their script text is escaped (never unsafe). */
        if (tag_equals(tag, n, "mglyph") || tag_equals(tag, n, "malignmark"))
            return MARKUP_CONTENT_MATH;
        return outer;
    case MARKUP_CONTENT_SVG:
        if (tag_equals(tag, n, "foreignobject") || tag_equals(tag, n, "desc") ||
            tag_equals(tag, n, "title"))
            return MARKUP_CONTENT_HTML;
        return outer;
    case MARKUP_CONTENT_MATH:
        if (tag_equals(tag, n, "mi") || tag_equals(tag, n, "mo") || tag_equals(tag, n, "mn") ||
            tag_equals(tag, n, "ms") || tag_equals(tag, n, "mtext"))
            return MARKUP_CONTENT_HTML;
        return outer;
    }
    return outer;
}
