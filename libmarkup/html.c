/*
 * html.c - HTML name checks, tag tables, raw-text checks and the low-level
 * writers of HTML syntax.
 */
#include <stdint.h>
#include <string.h>

#include "copy_impl.h"
#include "error_impl.h"
#include "html_impl.h"
#include "markup/binding.h"
#include "utf8_impl.h"

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

static markup_tag_kind tag_kind(const char *name, size_t n) {
    markup_tag_class cls = markup_html_tag_class(name, n);
    if (cls & MARKUP_TAG_IS_SCRIPT) return MARKUP_TAG_SCRIPT;
    if (cls & MARKUP_TAG_IS_STYLE) return MARKUP_TAG_STYLE;
    if (cls & MARKUP_TAG_IS_VOID) return MARKUP_TAG_VOID;
    return MARKUP_TAG_NORMAL;
}

markup_status markup_html_check_tag(const char *tag, size_t n, markup_tag_kind *kind,
                                    markup_error *err) {
    markup_clear_(err);
    const char *name = tag;
    if (name == NULL && n != 0)
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL tag name with non-zero length");
    if (n == 0) return markup_fail_(err, MARKUP_ERR_INVALID_TAG, "tag name is empty");
    if (!ascii_alpha((unsigned char)name[0]))
        return markup_fail_at_(err, MARKUP_ERR_INVALID_TAG, 0, "tag",
                               "tag name must start with an ASCII letter");
    for (size_t i = 1; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!ascii_alpha(c) && !ascii_digit(c) && c != '-')
            return markup_fail_at_(err, MARKUP_ERR_INVALID_TAG, i, "tag",
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
    case '"':
    case '\'':
    case '<':
    case '>':
    case '/':
    case '=':
    case '&':
    case '\\':
    case '`': return "attribute name contains one of \" ' < > / = & \\ `";
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
    markup_clear_(err);
    if (name == NULL && n != 0)
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG,
                            "NULL attribute name with non-zero length");
    if (n == 0) return markup_fail_(err, MARKUP_ERR_INVALID_ATTR_NAME, "attribute name is empty");
    if (attr_name_plain_ascii(name, n)) return MARKUP_OK;
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)name[i];
        if (c < 0x80) {
            const char *why = attr_ascii_reject(c);
            if (why) return markup_fail_at_(err, MARKUP_ERR_INVALID_ATTR_NAME, i, "name", why);
            i++;
            continue;
        }
        size_t len = markup_utf8_sequence_(name + i, n - i);
        if (len == 0)
            return markup_fail_at_(err, MARKUP_ERR_INVALID_UTF8, i, "name",
                                   "attribute name is not valid UTF-8");
        /* C1 controls U+0080..U+009F are encoded C2 80..C2 9F. */
        if (c == 0xC2 && (unsigned char)name[i + 1] <= 0x9F)
            return markup_fail_at_(err, MARKUP_ERR_INVALID_ATTR_NAME, i, "name",
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
    markup_clear_(err);
    if (s == NULL && n != 0)
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL text with non-zero length");
    if (n == 0 || (kind != MARKUP_TAG_SCRIPT && kind != MARKUP_TAG_STYLE)) return MARKUP_OK;
    const char *p = s, *end = s + n;
    while (p < end && (p = memchr(p, '<', (size_t)(end - p))) != NULL) {
        size_t left = (size_t)(end - p);
        if (kind == MARKUP_TAG_SCRIPT) {
            if (starts_with_ignore_case(p, left, "</script", 8))
                return markup_refuse_(err, (size_t)(p - s), "s", "</script", "script",
                                      "\"</script\" inside <script> would end it early");
            if (starts_with_ignore_case(p, left, "<!--", 4))
                return markup_refuse_(err, (size_t)(p - s), "s", "<!--", "script",
                                      "\"<!--\" inside <script> changes how it is parsed");
        } else if (starts_with_ignore_case(p, left, "</style", 7)) {
            return markup_refuse_(err, (size_t)(p - s), "s", "</style", "style",
                                  "\"</style\" inside <style> would end it early");
        }
        p++;
    }
    return MARKUP_OK;
}

/* The elements whose whole content a parser reads as text, up to their
   end tag (with JavaScript on, for noscript), as end tags. */
static const char *const TEXT_ELEMENT_END_TAGS[] = {
    "</title", "</textarea", "</iframe", "</xmp", "</noembed", "</noframes", "</noscript",
};
#define TEXT_ELEMENTS (sizeof TEXT_ELEMENT_END_TAGS / sizeof TEXT_ELEMENT_END_TAGS[0])

markup_status markup_html_check_slot_end_(const char *s, size_t n, markup_error *err) {
    enum { LONGEST_END_TAG = 10 }; /* "</noframes", "</textarea", "</noscript" */
    size_t from = n > LONGEST_END_TAG - 1 ? n - (LONGEST_END_TAG - 1) : 0;
    for (size_t i = from; i < n; i++) {
        if (s[i] != '<') continue;
        /* What follows could finish it only if s ends in the start of one
           of the end tags: "<", "</", "</ti" ..., not "</em>" or "< b". */
        for (size_t t = 0; t < TEXT_ELEMENTS; t++) {
            const char *end_tag = TEXT_ELEMENT_END_TAGS[t];
            if (n - i < strlen(end_tag) && starts_with_ignore_case(s + i, n - i, end_tag, n - i))
                return markup_refuse_(err, i, "s", "<", NULL,
                                      "trusted HTML in a slot inside a title, textarea, "
                                      "noscript, iframe, xmp, noembed or noframes ends in the "
                                      "start of an end tag that what follows the slot could "
                                      "finish");
        }
    }
    return MARKUP_OK;
}

bool markup_html_reads_as_text(const char *tag, size_t n) {
    if (tag == NULL) return false;
    for (size_t i = 0; i < TEXT_ELEMENTS; i++) {
        const char *name = TEXT_ELEMENT_END_TAGS[i] + 2;
        if (equals_ignore_case(tag, n, name)) return true;
    }
    return false;
}

markup_status markup_html_check_text_inside(const char *s, size_t n, markup_error *err) {
    markup_clear_(err);
    if (s == NULL && n != 0)
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL text with non-zero length");
    if (n == 0) return MARKUP_OK;
    const char *p = s, *end = s + n;
    while (p < end && (p = memchr(p, '<', (size_t)(end - p))) != NULL) {
        size_t left = (size_t)(end - p);
        for (size_t i = 0; i < TEXT_ELEMENTS; i++) {
            const char *end_tag = TEXT_ELEMENT_END_TAGS[i];
            if (starts_with_ignore_case(p, left, end_tag, strlen(end_tag)))
                return markup_refuse_(
                    err, (size_t)(p - s), "s", end_tag, end_tag + 2,
                    "an end tag of title, textarea, noscript, iframe, xmp, noembed or "
                    "noframes in raw text inside such an element would end it early");
        }
        p++;
    }
    return MARKUP_OK;
}

/* ---- trusted HTML first in a template ---------------------------------- */

static inline bool tag_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* Where a tag whose name ends at s[i] ends: just past its '>', or 0 when
   it does not end in s. Follows the tokenizer's attribute states, so that
   a '>' in a quoted value does not end it ("=" right after a space starts
   a name, not a value). */
static size_t tag_end(const char *s, size_t n, size_t i) {
    enum { BEFORE_NAME, NAME, AFTER_NAME, BEFORE_VALUE, QUOTED, UNQUOTED } state = BEFORE_NAME;
    unsigned char quote = 0;
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (state == QUOTED) {
            if (c == quote) state = BEFORE_NAME;
        } else if (c == '>') {
            return i + 1;
        } else if (state == UNQUOTED) {
            if (tag_space(c)) state = BEFORE_NAME;
        } else if (state == BEFORE_VALUE) {
            if (c == '"' || c == '\'') {
                quote = c;
                state = QUOTED;
            } else if (!tag_space(c)) {
                state = UNQUOTED;
            }
        } else if (c == '/') {
            state = BEFORE_NAME; /* self-closing, or a stray '/' */
        } else if (tag_space(c)) {
            if (state == NAME) state = AFTER_NAME;
        } else if (c == '=' && state != BEFORE_NAME) {
            state = BEFORE_VALUE;
        } else {
            state = NAME;
        }
    }
    return 0;
}

/* Where the text of the element `name` (lower case), begun at s[i], ends
   with its end tag: just past that tag's '>', or 0 when it does not end in
   s (or, in a script, "<!--" makes its end depend on more than the next
   end tag). */
static size_t text_end(const char *s, size_t n, size_t i, const char *name, bool script) {
    size_t len = strlen(name);
    for (const char *p = s + i; (p = memchr(p, '<', (size_t)(s + n - p))) != NULL; p++) {
        size_t at = (size_t)(p - s), left = n - at;
        if (script && starts_with_ignore_case(p, left, "<!--", 4)) return 0;
        if (left > 2 + len && p[1] == '/' && starts_with_ignore_case(p + 2, left - 2, name, len) &&
            (tag_space((unsigned char)p[2 + len]) || p[2 + len] == '/' || p[2 + len] == '>'))
            return tag_end(s, n, at + 2 + len);
    }
    return 0;
}

/* Where a comment begun at s[i] (just past "<!--") ends, or 0. */
static size_t comment_end(const char *s, size_t n, size_t i) {
    if (i < n && s[i] == '>') return i + 1;                        /* "<!-->" */
    if (i + 1 < n && s[i] == '-' && s[i + 1] == '>') return i + 2; /* "<!--->" */
    for (; i + 2 < n; i++) {
        if (s[i] != '-' || s[i + 1] != '-') continue;
        if (s[i + 2] == '>') return i + 3;
        if (i + 3 < n && s[i + 2] == '!' && s[i + 3] == '>') return i + 4;
    }
    return 0;
}

markup_template_start markup_html_template_start_(const char *s, size_t n) {
    size_t i = 0;
    const char *p;
    while (i < n && (p = memchr(s + i, '<', n - i)) != NULL) {
        i = (size_t)(p - s) + 1;
        if (i == n) return MARKUP_TEMPLATE_MAY_BE_COL; /* what follows may make a tag */
        unsigned char c = (unsigned char)s[i];
        size_t end;
        if (c == '!' && starts_with_ignore_case(s + i + 1, n - i - 1, "--", 2)) {
            end = comment_end(s, n, i + 3);
        } else if (c == '!' || c == '?') { /* a doctype, or a bogus comment */
            p = memchr(s + i, '>', n - i);
            end = p ? (size_t)(p - s) + 1 : 0;
        } else if (c == '/') {
            if (i + 1 == n) return MARKUP_TEMPLATE_MAY_BE_COL;
            size_t name = i + 1, len = 0;
            if (!ascii_alpha((unsigned char)s[name])) { /* "</>" or a bogus comment */
                p = memchr(s + name, '>', n - name);
                end = p ? (size_t)(p - s) + 1 : 0;
            } else {
                while (name + len < n && !tag_space((unsigned char)s[name + len]) &&
                       s[name + len] != '/' && s[name + len] != '>')
                    len++;
                /* </template> would end the template itself. */
                if (markup_html_tag_class(s + name, len) & MARKUP_TAG_IS_TEMPLATE)
                    return MARKUP_TEMPLATE_MAY_BE_COL;
                end = tag_end(s, n, name + len);
            }
        } else if (ascii_alpha(c)) {
            size_t len = 0;
            while (i + len < n && !tag_space((unsigned char)s[i + len]) && s[i + len] != '/' &&
                   s[i + len] != '>')
                len++;
            if (i + len == n) return MARKUP_TEMPLATE_MAY_BE_COL; /* the name may go on */
            markup_tag_class cls = markup_html_tag_class(s + i, len);
            if (!(cls & MARKUP_TAG_IS_HEAD_RULES))
                return (cls & MARKUP_TAG_IS_COL) ? MARKUP_TEMPLATE_MAY_BE_COL
                                                 : MARKUP_TEMPLATE_DECIDED;
            /* A template inside has content of its own: not followed here. */
            if (cls & MARKUP_TAG_IS_TEMPLATE) return MARKUP_TEMPLATE_MAY_BE_COL;
            end = tag_end(s, n, i + len);
            if (end && (cls & (MARKUP_TAG_IS_SCRIPT | MARKUP_TAG_IS_STYLE | MARKUP_TAG_TEXT_MASK)))
                end = text_end(s, n, end, markup_html_tag_name_(s + i, len),
                               (cls & MARKUP_TAG_IS_SCRIPT) != 0);
        } else {
            continue; /* "< " or "<3": text */
        }
        if (end == 0) return MARKUP_TEMPLATE_MAY_BE_COL;
        i = end;
    }
    return MARKUP_TEMPLATE_UNDECIDED;
}

markup_status markup_html_json_for_script(markup_buf *out, const char *json, size_t n,
                                          markup_error *err) {
    markup_clear_(err);
    if (out == NULL) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    markup_status st = markup_error_in_(err, markup_utf8_validate(json, n, err), "json");
    if (st != MARKUP_OK) return st;
    size_t start = out->len;
    const char *run = json; /* bytes not yet appended */
    for (size_t i = 0; i < n && st == MARKUP_OK; i++) {
        unsigned char c = (unsigned char)json[i];
        const char *code = NULL;
        size_t skip = 1;
        switch (c) {
        case '<': code = "\\u003c"; break;
        case '>': code = "\\u003e"; break;
        case '&': code = "\\u0026"; break;
        case '\'': code = "\\u0027"; break;
        case 0xE2: /* U+2028 and U+2029 are E2 80 A8 and E2 80 A9 */
            if (i + 2 < n && (unsigned char)json[i + 1] == 0x80 &&
                ((unsigned char)json[i + 2] & 0xFE) == 0xA8) {
                code = (unsigned char)json[i + 2] == 0xA8 ? "\\u2028" : "\\u2029";
                skip = 3;
            }
            break;
        default: break;
        }
        if (code == NULL) continue;
        st = markup_buf_append(out, run, (size_t)(json + i - run));
        if (st == MARKUP_OK) st = markup_buf_append(out, code, 6);
        run = json + i + skip;
        i += skip - 1;
    }
    if (st == MARKUP_OK) st = markup_buf_append(out, run, (size_t)(json + n - run));
    if (st != MARKUP_OK) {
        markup_buf_truncate(out, start);
        return markup_fail_status_(err, st);
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
    if (name_len > SIZE_MAX - 4) return MARKUP_ERR_TOO_LARGE;
    if (!escape) {
        /* Trusted HTML (a number, say): all of it in one reservation. */
        if (value_len > SIZE_MAX - 4 - name_len) return MARKUP_ERR_TOO_LARGE;
        markup_status st = markup_buf_reserve(buf, name_len + value_len + 4);
        if (st != MARKUP_OK) return st;
        char *d = buf->data + buf->len;
        d[0] = ' ';
        copy_short(d + 1, name, name_len);
        d[name_len + 1] = '=';
        d[name_len + 2] = '"';
        copy_short(d + name_len + 3, value, value_len);
        d[name_len + 3 + value_len] = '"';
        buf->len += name_len + value_len + 4;
        return MARKUP_OK;
    }
    size_t start = buf->len;
    markup_status st = markup_buf_reserve(buf, name_len + 3);
    if (st != MARKUP_OK) return st;
    char *d = buf->data + buf->len;
    d[0] = ' ';
    copy_short(d + 1, name, name_len);
    d[name_len + 1] = '=';
    d[name_len + 2] = '"';
    buf->len += name_len + 3;
    st = markup_escape(buf, value, value_len);
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

/* ---- tag classes ------------------------------------------------------ */

/*
 * What each tag is to the HTML parser (the standard's "tree construction",
 * 13.2.6). Most tags are "any other start tag": the parser inserts the
 * element and makes it the current node, and its end tag pops it. The
 * writer follows the parser only as long as that holds, so every tag the
 * rules treat otherwise is in this table, walked rule by rule through the
 * "in body" insertion mode (which is also how start tags are read at the
 * HTML integration points inside svg and math):
 *
 *   html body head ............ ignored, or their attributes merged onto an
 *                               element already open: RESTRUCTURES
 *   frameset .................. replaces the body, or is ignored: FRAMESET
 *   form ...................... ignored while a form is open: RESTRUCTURES
 *   isindex ................... older parsers (html5lib) build a form, hr,
 *                               label and input of it: RESTRUCTURES
 *   command ................... void to older parsers (html5lib), so its end
 *                               tag ends another element: RESTRUCTURES
 *   a nobr .................... close (by the adoption agency, which may move
 *                               elements around) an open a / nobr:
 *                               CLOSES_SAME and RESTRUCTURES
 *   button .................... closes an open button: CLOSES_SAME and
 *                               RESTRUCTURES
 *   select option optgroup .... select changes the insertion mode; option and
 *                               optgroup close an open option: RESTRUCTURES
 *   input keygen textarea ..... end an open select ("in select"): ENDS_SELECT
 *   caption col colgroup frame tbody td tfoot th thead tr
 *                               ignored in body, table modes elsewhere:
 *                               TABLE_PART (frame: RESTRUCTURES)
 *   the block elements, li dd dt, h1-h6, pre listing xmp hr table form
 *   plaintext ................. close an open p first: CLOSES_P; li dd dt
 *                               close an open li / dd, dt: LIST_ITEM; a
 *                               heading closes a heading that is the current
 *                               node: HEADING
 *   rb rp rt rtc .............. close p li dd dt rb rp rt rtc when that is the
 *                               current node: RUBY_TEXT
 *   the formatting elements ... kept in the list of active formatting
 *                               elements, reopened at the next text or start
 *                               tag when something else closed them:
 *                               FORMATTING
 *   applet marquee object template td th caption
 *                               stop that list and the scopes: MARKER
 *   base basefont bgsound link meta; script style title textarea noscript
 *   noembed noframes iframe xmp plaintext; image; svg math font
 *                               void, text, renamed, foreign: their own bits
 *
 * The writer (writer.c) refuses inside svg and math every start tag that
 * may close, ignore or move something, so that there each end tag ends the
 * element it was written for; and everywhere a start tag that would close
 * an element with a formatting element inside it, which the parser would
 * reopen later, out of the writer's sight (inside svg, say).
 */
#define CLOSES_P     MARKUP_TAG_CLOSES_P
#define FORMATTING   (MARKUP_TAG_IS_FORMATTING | MARKUP_TAG_IS_BREAKOUT)
#define MARKER       MARKUP_TAG_IS_MARKER
#define HEADING      (MARKUP_TAG_IS_BREAKOUT | MARKUP_TAG_CLOSES_P | MARKUP_TAG_IS_HEADING)
#define LIST_ITEM    (MARKUP_TAG_IS_BREAKOUT | MARKUP_TAG_CLOSES_P | MARKUP_TAG_IS_LIST_ITEM)
#define RUBY_TEXT    MARKUP_TAG_IS_RUBY_TEXT
#define RESTRUCTURES MARKUP_TAG_RESTRUCTURES

static const struct {
    const char *name;
    markup_tag_class cls;
} TAG_CLASSES[] = {
    /* lower case; looked up by first letter and length */
    /* Void, and the ones the parser reads as empty. */
    {"area", MARKUP_TAG_IS_VOID},
    {"base", MARKUP_TAG_IS_VOID | MARKUP_TAG_IS_HEAD_RULES},
    {"br", MARKUP_TAG_IS_VOID | MARKUP_TAG_IS_BREAKOUT},
    {"col", MARKUP_TAG_IS_VOID | MARKUP_TAG_IS_TABLE_PART | MARKUP_TAG_IS_COL},
    {"embed", MARKUP_TAG_IS_VOID | MARKUP_TAG_IS_BREAKOUT},
    {"hr", MARKUP_TAG_IS_VOID | MARKUP_TAG_IS_BREAKOUT | CLOSES_P},
    {"img", MARKUP_TAG_IS_VOID | MARKUP_TAG_IS_BREAKOUT},
    {"input", MARKUP_TAG_IS_VOID | MARKUP_TAG_ENDS_SELECT},
    {"link", MARKUP_TAG_IS_VOID | MARKUP_TAG_IS_HEAD_RULES},
    {"meta", MARKUP_TAG_IS_VOID | MARKUP_TAG_IS_BREAKOUT | MARKUP_TAG_IS_HEAD_RULES},
    {"source", MARKUP_TAG_IS_VOID},
    {"track", MARKUP_TAG_IS_VOID},
    {"wbr", MARKUP_TAG_IS_VOID},
    {"keygen", MARKUP_TAG_IS_VOID | MARKUP_TAG_ENDS_SELECT},
    {"param", MARKUP_TAG_IS_VOID},
    {"basefont", MARKUP_TAG_IS_VOID | MARKUP_TAG_IS_HEAD_RULES},
    {"bgsound", MARKUP_TAG_IS_VOID | MARKUP_TAG_IS_HEAD_RULES},
    {"frame", MARKUP_TAG_IS_VOID | RESTRUCTURES},
    {"image", MARKUP_TAG_IS_IMAGE},
    /* Raw text, and the elements whose content the parser reads as text,
       numbered 1-7 (MARKUP_TAG_TEXT_MASK) in
       the order of TEXT_ELEMENT_END_TAGS. */
    {"script", MARKUP_TAG_IS_SCRIPT | MARKUP_TAG_IS_HEAD_RULES},
    {"style", MARKUP_TAG_IS_STYLE | MARKUP_TAG_IS_HEAD_RULES},
    {"title", 1 | MARKUP_TAG_IS_SVG_POINT | MARKUP_TAG_IS_HEAD_RULES},
    {"textarea", 2 | MARKUP_TAG_ENDS_SELECT},
    {"iframe", 3},
    {"xmp", 4 | CLOSES_P},
    {"noembed", 5},
    {"noframes", 6 | MARKUP_TAG_IS_HEAD_RULES},
    {"noscript", 7},
    {"plaintext", MARKUP_TAG_IS_PLAINTEXT | CLOSES_P},
    {"select", MARKUP_TAG_IS_SELECT | RESTRUCTURES},
    {"option", RESTRUCTURES},
    {"optgroup", RESTRUCTURES},
    {"frameset", MARKUP_TAG_IS_FRAMESET},
    {"template", MARKUP_TAG_IS_TEMPLATE | MARKUP_TAG_IS_HEAD_RULES | MARKER},
    /* Foreign content. */
    {"svg", MARKUP_TAG_IS_SVG},
    {"math", MARKUP_TAG_IS_MATH},
    {"foreignobject", MARKUP_TAG_IS_SVG_POINT},
    {"desc", MARKUP_TAG_IS_SVG_POINT},
    {"mi", MARKUP_TAG_IS_MATH_TEXT},
    {"mo", MARKUP_TAG_IS_MATH_TEXT},
    {"mn", MARKUP_TAG_IS_MATH_TEXT},
    {"ms", MARKUP_TAG_IS_MATH_TEXT},
    {"mtext", MARKUP_TAG_IS_MATH_TEXT},
    {"annotation-xml", MARKUP_TAG_IS_ANNOTATION},
    {"mglyph", MARKUP_TAG_IS_MGLYPH},
    {"malignmark", MARKUP_TAG_IS_MGLYPH},
    {"font", MARKUP_TAG_IS_FONT | MARKUP_TAG_IS_FORMATTING},
    /* The document's own elements. */
    {"html", RESTRUCTURES},
    {"head", MARKUP_TAG_IS_BREAKOUT | RESTRUCTURES},
    {"body", MARKUP_TAG_IS_BREAKOUT | RESTRUCTURES},
    {"form", CLOSES_P | RESTRUCTURES},
    {"isindex", RESTRUCTURES},
    /* Void to older parsers (html5lib): its end tag then finds another
       current node. */
    {"command", RESTRUCTURES},
    {"a", MARKUP_TAG_IS_FORMATTING | MARKUP_TAG_CLOSES_SAME | RESTRUCTURES},
    {"nobr", FORMATTING | MARKUP_TAG_CLOSES_SAME | RESTRUCTURES},
    {"button", MARKUP_TAG_CLOSES_SAME | RESTRUCTURES},
    /* The formatting elements; all but a end foreign content. */
    {"b", FORMATTING},
    {"big", FORMATTING},
    {"code", FORMATTING},
    {"em", FORMATTING},
    {"i", FORMATTING},
    {"s", FORMATTING},
    {"small", FORMATTING},
    {"strike", FORMATTING},
    {"strong", FORMATTING},
    {"tt", FORMATTING},
    {"u", FORMATTING},
    /* The block elements, which close an open p; the first ones also end
       foreign content. */
    {"blockquote", MARKUP_TAG_IS_BREAKOUT | CLOSES_P},
    {"center", MARKUP_TAG_IS_BREAKOUT | CLOSES_P},
    {"div", MARKUP_TAG_IS_BREAKOUT | CLOSES_P},
    {"dl", MARKUP_TAG_IS_BREAKOUT | CLOSES_P},
    {"listing", MARKUP_TAG_IS_BREAKOUT | CLOSES_P},
    {"menu", MARKUP_TAG_IS_BREAKOUT | CLOSES_P},
    {"ol", MARKUP_TAG_IS_BREAKOUT | CLOSES_P},
    {"p", MARKUP_TAG_IS_BREAKOUT | CLOSES_P | MARKUP_TAG_IS_P},
    {"pre", MARKUP_TAG_IS_BREAKOUT | CLOSES_P},
    {"ul", MARKUP_TAG_IS_BREAKOUT | CLOSES_P},
    {"table", MARKUP_TAG_IS_BREAKOUT | MARKUP_TAG_IS_TABLE_PART | CLOSES_P},
    {"li", LIST_ITEM},
    {"dd", LIST_ITEM},
    {"dt", LIST_ITEM},
    {"h1", HEADING},
    {"h2", HEADING},
    {"h3", HEADING},
    {"h4", HEADING},
    {"h5", HEADING},
    {"h6", HEADING},
    {"address", CLOSES_P},
    {"article", CLOSES_P},
    {"aside", CLOSES_P},
    {"details", CLOSES_P},
    {"dialog", CLOSES_P},
    {"dir", CLOSES_P},
    {"fieldset", CLOSES_P},
    {"figcaption", CLOSES_P},
    {"figure", CLOSES_P},
    {"footer", CLOSES_P},
    {"header", CLOSES_P},
    {"hgroup", CLOSES_P},
    {"main", CLOSES_P},
    {"nav", CLOSES_P},
    {"search", CLOSES_P},
    {"section", CLOSES_P},
    {"summary", CLOSES_P},
    /* The rest of the elements that end foreign content. */
    {"ruby", MARKUP_TAG_IS_BREAKOUT},
    {"span", MARKUP_TAG_IS_BREAKOUT},
    {"sub", MARKUP_TAG_IS_BREAKOUT},
    {"sup", MARKUP_TAG_IS_BREAKOUT},
    {"var", MARKUP_TAG_IS_BREAKOUT},
    {"rb", RUBY_TEXT},
    {"rp", RUBY_TEXT},
    {"rt", RUBY_TEXT},
    {"rtc", RUBY_TEXT},
    /* Table parts: the parser may close elements up to a table for them. */
    {"caption", MARKUP_TAG_IS_TABLE_PART | MARKER},
    {"colgroup", MARKUP_TAG_IS_TABLE_PART},
    {"tbody", MARKUP_TAG_IS_TABLE_PART},
    {"thead", MARKUP_TAG_IS_TABLE_PART},
    {"tfoot", MARKUP_TAG_IS_TABLE_PART},
    {"tr", MARKUP_TAG_IS_TABLE_PART},
    {"td", MARKUP_TAG_IS_TABLE_PART | MARKER},
    {"th", MARKUP_TAG_IS_TABLE_PART | MARKER},
    {"applet", MARKER},
    {"marquee", MARKER},
    {"object", MARKER},
};

/* The entry of the class table for `tag`, or -1. */
static ptrdiff_t tag_entry(const char *tag, size_t n) {
    if (tag == NULL || n == 0 || n > 14) return -1; /* "annotation-xml" is the longest */
    unsigned char first = ascii_lower((unsigned char)tag[0]);
    for (size_t i = 0; i < sizeof TAG_CLASSES / sizeof TAG_CLASSES[0]; i++) {
        const char *name = TAG_CLASSES[i].name;
        if ((unsigned char)name[0] == first && equals_ignore_case(tag, n, name))
            return (ptrdiff_t)i;
    }
    return -1;
}

markup_tag_class markup_html_tag_class(const char *tag, size_t n) {
    ptrdiff_t i = tag_entry(tag, n);
    return i < 0 ? 0 : TAG_CLASSES[i].cls;
}

const char *markup_html_tag_name_(const char *tag, size_t n) {
    ptrdiff_t i = tag_entry(tag, n);
    return i < 0 ? NULL : TAG_CLASSES[i].name;
}
