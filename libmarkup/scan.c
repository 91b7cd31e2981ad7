/*
 * scan.c - the HTML tokenizer's states over a template's static text, to
 * tell where an inserted value would stand (markup_scan in markup.h).
 *
 * The states are the standard's (13.2.5), merged where they do not change
 * the place a value stands in: character references, the doctype's inner
 * states and the CDATA section are not needed for that. A script's text
 * has its escaped states ("<!--" and "<script" inside it), which decide
 * whether "</script>" ends it.
 */
#include <string.h>

#include "markup/markup.h"

enum {
    S_DATA,
    S_TAG_OPEN,     /* after "<"                                     */
    S_END_TAG_OPEN, /* after "</"                                    */
    S_TAG_NAME,
    S_BEFORE_ATTR_NAME,
    S_ATTR_NAME,
    S_AFTER_ATTR_NAME,
    S_BEFORE_ATTR_VALUE,
    S_ATTR_VALUE_QUOTED, /* quote_ says which                            */
    S_ATTR_VALUE_UNQUOTED,
    S_AFTER_ATTR_VALUE_QUOTED,
    S_SELF_CLOSING,
    S_MARKUP_DECL,      /* after "<!"                                    */
    S_MARKUP_DECL_DASH, /* after "<!-"                                   */
    S_COMMENT_START,    /* after "<!--": ">" ends the comment at once     */
    S_COMMENT_START_DASH,
    S_COMMENT,                  /* dashes_ counts the '-' just read              */
    S_COMMENT_END_BANG,         /* after "--!"                                   */
    S_BOGUS_COMMENT,            /* "<!doctype ...>", "<?...>", "</ x>": ends at ">" */
    S_RAW,                      /* the text of raw_ (script, style, title ...)   */
    S_RAW_LT,                   /* after "<" in it                               */
    S_RAW_END_OPEN,             /* after "</" in it                              */
    S_RAW_END_NAME,             /* "</scr": end_ holds the name so far           */
    S_SCRIPT_ESCAPE_START,      /* "<!" in a script                      */
    S_SCRIPT_ESCAPE_START_DASH, /* "<!-" in a script                     */
    S_SCRIPT_ESCAPED,           /* after "<!--": dashes_ counts '-'      */
    S_SCRIPT_ESCAPED_LT,
    S_SCRIPT_DOUBLE_ESCAPE_START, /* "<!--<scr": end_ holds the name     */
    S_SCRIPT_DOUBLE_ESCAPED,      /* "<!--<script>": "</script>" does not
                                     end the script; dashes_ as above    */
    S_SCRIPT_DOUBLE_ESCAPED_LT,
    S_SCRIPT_DOUBLE_ESCAPE_END, /* "</scr" in it                       */
    S_PLAINTEXT,                /* after <plaintext>: text to the end            */
};

enum {
    F_END_TAG = 1,    /* the tag being read is an end tag              */
    F_TAG_VALUE = 2,  /* a value stands in the tag name                */
    F_ATTR_VALUE = 4, /* a value stands in the attribute name          */
    F_ESCAPED = 8,    /* a failed end tag goes back to S_SCRIPT_ESCAPED */
};

/* Elements whose text is read raw (RAWTEXT/RCDATA/script data), with
   whether entities in it are decoded. */
static const struct {
    const char *name;
    markup_place place;
} raw_elements[] = {
    {"script", MARKUP_PLACE_RAW_TEXT},   {"style", MARKUP_PLACE_RAW_TEXT},
    {"xmp", MARKUP_PLACE_RAW_TEXT},      {"iframe", MARKUP_PLACE_RAW_TEXT},
    {"noembed", MARKUP_PLACE_RAW_TEXT},  {"noframes", MARKUP_PLACE_RAW_TEXT},
    {"noscript", MARKUP_PLACE_RAW_TEXT}, {"title", MARKUP_PLACE_RCDATA},
    {"textarea", MARKUP_PLACE_RCDATA},
};

static inline bool is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static inline bool is_alpha(unsigned char c) { return (unsigned char)((c | 0x20) - 'a') < 26; }

static inline char lower(unsigned char c) {
    return (char)((c >= 'A' && c <= 'Z') ? (c | 0x20) : c);
}

/* Appends c (lower-cased) to a name kept to its first cap-1 bytes. */
static inline void name_add(char *name, uint8_t *len, size_t cap, unsigned char c) {
    if (*len + 1u < cap) name[(*len)++] = lower(c);
}

static bool name_is(const char *name, size_t len, const char *lower_name) {
    return len == strlen(lower_name) && memcmp(name, lower_name, len) == 0;
}

static ptrdiff_t raw_element(const char *name, size_t len) {
    for (size_t i = 0; i < sizeof raw_elements / sizeof raw_elements[0]; i++)
        if (name_is(name, len, raw_elements[i].name)) return (ptrdiff_t)i;
    return -1;
}

void markup_scan_init(markup_scan *scan) {
    memset(scan, 0, sizeof *scan);
    scan->state_ = S_DATA;
}

static void start_tag_name(markup_scan *scan, bool end) {
    scan->state_ = S_TAG_NAME;
    scan->flags_ = end ? F_END_TAG : 0;
    scan->tag_len_ = 0;
}

static void start_attr_name(markup_scan *scan) {
    scan->state_ = S_ATTR_NAME;
    scan->flags_ &= (uint8_t)~F_ATTR_VALUE;
    scan->attr_len_ = 0;
    scan->value_len_ = 0;
}

/* The start or end tag is complete ('>'): a start tag of a raw-text
   element switches the tokenizer to its text. */
static void emit_tag(markup_scan *scan) {
    scan->state_ = S_DATA;
    if (scan->flags_ & (F_END_TAG | F_TAG_VALUE)) return;
    if (name_is(scan->tag_, scan->tag_len_, "plaintext")) {
        scan->state_ = S_PLAINTEXT;
        return;
    }
    if (raw_element(scan->tag_, scan->tag_len_) < 0) return;
    memcpy(scan->raw_, scan->tag_, scan->tag_len_);
    scan->raw_len_ = scan->tag_len_;
    scan->state_ = S_RAW;
}

/* Where a failed end tag in raw text goes back to. */
static uint8_t raw_text_state(const markup_scan *scan) {
    return (scan->flags_ & F_ESCAPED) ? S_SCRIPT_ESCAPED : S_RAW;
}

/* One byte in a state. Returns false when the byte is to be read again in
   the new state (the standard's "reconsume"). */
static bool step(markup_scan *scan, unsigned char c) {
    switch (scan->state_) {
    case S_DATA:
        if (c == '<') scan->state_ = S_TAG_OPEN;
        return true;
    case S_TAG_OPEN:
        if (is_alpha(c)) {
            start_tag_name(scan, false);
            return false;
        }
        if (c == '!')
            scan->state_ = S_MARKUP_DECL;
        else if (c == '/')
            scan->state_ = S_END_TAG_OPEN;
        else if (c == '?')
            scan->state_ = S_BOGUS_COMMENT;
        else {
            scan->state_ = S_DATA; /* the '<' was text */
            return false;
        }
        return true;
    case S_END_TAG_OPEN:
        if (is_alpha(c)) {
            start_tag_name(scan, true);
            return false;
        }
        scan->state_ = c == '>' ? S_DATA : S_BOGUS_COMMENT;
        return true;
    case S_TAG_NAME:
        if (is_space(c))
            scan->state_ = S_BEFORE_ATTR_NAME;
        else if (c == '/')
            scan->state_ = S_SELF_CLOSING;
        else if (c == '>')
            emit_tag(scan);
        else
            name_add(scan->tag_, &scan->tag_len_, sizeof scan->tag_, c);
        return true;
    case S_BEFORE_ATTR_NAME:
        if (is_space(c)) return true;
        if (c == '/' || c == '>') {
            scan->state_ = S_AFTER_ATTR_NAME;
            return false;
        }
        start_attr_name(scan);
        if (c == '=') { /* a name that starts with '=' */
            name_add(scan->attr_, &scan->attr_len_, sizeof scan->attr_, c);
            return true;
        }
        return false;
    case S_ATTR_NAME:
        if (is_space(c) || c == '/' || c == '>') {
            scan->state_ = S_AFTER_ATTR_NAME;
            return false;
        }
        if (c == '=')
            scan->state_ = S_BEFORE_ATTR_VALUE;
        else
            name_add(scan->attr_, &scan->attr_len_, sizeof scan->attr_, c);
        return true;
    case S_AFTER_ATTR_NAME:
        if (is_space(c)) return true;
        if (c == '/')
            scan->state_ = S_SELF_CLOSING;
        else if (c == '=')
            scan->state_ = S_BEFORE_ATTR_VALUE;
        else if (c == '>')
            emit_tag(scan);
        else {
            start_attr_name(scan);
            return false;
        }
        return true;
    case S_BEFORE_ATTR_VALUE:
        if (is_space(c)) return true;
        if (c == '"' || c == '\'') {
            scan->state_ = S_ATTR_VALUE_QUOTED;
            scan->quote_ = c;
        } else if (c == '>') {
            emit_tag(scan);
        } else {
            scan->state_ = S_ATTR_VALUE_UNQUOTED;
            return false;
        }
        return true;
    case S_ATTR_VALUE_QUOTED:
        if (c == scan->quote_)
            scan->state_ = S_AFTER_ATTR_VALUE_QUOTED;
        else if (scan->value_len_ < UINT32_MAX)
            scan->value_len_++;
        return true;
    case S_ATTR_VALUE_UNQUOTED:
        if (is_space(c))
            scan->state_ = S_BEFORE_ATTR_NAME;
        else if (c == '>')
            emit_tag(scan);
        else if (scan->value_len_ < UINT32_MAX)
            scan->value_len_++;
        return true;
    case S_AFTER_ATTR_VALUE_QUOTED:
    case S_SELF_CLOSING:
        if (c == '>') {
            emit_tag(scan);
            return true;
        }
        if (scan->state_ == S_AFTER_ATTR_VALUE_QUOTED && c == '/') {
            scan->state_ = S_SELF_CLOSING;
            return true;
        }
        scan->state_ = S_BEFORE_ATTR_NAME;
        return is_space(c);
    case S_MARKUP_DECL:
    case S_MARKUP_DECL_DASH:
        if (c == '-') {
            scan->state_ = scan->state_ == S_MARKUP_DECL ? S_MARKUP_DECL_DASH : S_COMMENT_START;
            return true;
        }
        scan->state_ = c == '>' ? S_DATA : S_BOGUS_COMMENT;
        return true;
    case S_COMMENT_START:
    case S_COMMENT_START_DASH:
        if (c == '>') { /* "<!-->" and "<!--->" are whole comments */
            scan->state_ = S_DATA;
            return true;
        }
        if (c == '-') {
            if (scan->state_ == S_COMMENT_START) {
                scan->state_ = S_COMMENT_START_DASH;
            } else {
                scan->state_ = S_COMMENT;
                scan->dashes_ = 2;
            }
            return true;
        }
        scan->state_ = S_COMMENT;
        scan->dashes_ = 0;
        return false;
    case S_COMMENT:
        if (c == '-') {
            if (scan->dashes_ < 2) scan->dashes_++;
        } else if (c == '>' && scan->dashes_ == 2) {
            scan->state_ = S_DATA;
        } else if (c == '!' && scan->dashes_ == 2) {
            scan->state_ = S_COMMENT_END_BANG;
        } else {
            scan->dashes_ = 0;
        }
        return true;
    case S_COMMENT_END_BANG:
        if (c == '>') {
            scan->state_ = S_DATA;
        } else {
            scan->state_ = S_COMMENT;
            scan->dashes_ = c == '-' ? 1 : 0;
        }
        return true;
    case S_BOGUS_COMMENT:
        if (c == '>') scan->state_ = S_DATA;
        return true;
    case S_RAW:
        if (c == '<') scan->state_ = S_RAW_LT;
        return true;
    case S_RAW_LT:
        scan->state_ = S_RAW;
        if (c == '!' && name_is(scan->raw_, scan->raw_len_, "script")) {
            scan->state_ = S_SCRIPT_ESCAPE_START;
            return true;
        }
        if (c != '/') return false;
        scan->state_ = S_RAW_END_OPEN;
        scan->flags_ &= (uint8_t)~F_ESCAPED;
        scan->end_len_ = 0;
        return true;
    case S_RAW_END_OPEN:
        scan->state_ = is_alpha(c) ? S_RAW_END_NAME : raw_text_state(scan);
        return false;
    case S_RAW_END_NAME:
        if (is_alpha(c)) {
            name_add(scan->end_, &scan->end_len_, sizeof scan->end_, c);
            return true;
        }
        scan->state_ = raw_text_state(scan);
        if (scan->end_len_ != scan->raw_len_ ||
            memcmp(scan->end_, scan->raw_, scan->raw_len_) != 0 ||
            !(is_space(c) || c == '/' || c == '>'))
            return false;
        /* the appropriate end tag: read on as an end tag */
        start_tag_name(scan, true);
        memcpy(scan->tag_, scan->raw_, scan->raw_len_);
        scan->tag_len_ = scan->raw_len_;
        return false;
    case S_SCRIPT_ESCAPE_START:
    case S_SCRIPT_ESCAPE_START_DASH:
        if (c != '-') {
            scan->state_ = S_RAW;
            return false;
        }
        if (scan->state_ == S_SCRIPT_ESCAPE_START) {
            scan->state_ = S_SCRIPT_ESCAPE_START_DASH;
        } else {
            scan->state_ = S_SCRIPT_ESCAPED;
            scan->dashes_ = 2;
        }
        return true;
    case S_SCRIPT_ESCAPED:
    case S_SCRIPT_DOUBLE_ESCAPED:
        if (c == '-') {
            if (scan->dashes_ < 2) scan->dashes_++;
            return true;
        }
        if (c == '>' && scan->dashes_ == 2) {
            scan->state_ = S_RAW; /* "-->": back to the script's plain text */
        } else if (c == '<') {
            scan->state_ =
                scan->state_ == S_SCRIPT_ESCAPED ? S_SCRIPT_ESCAPED_LT : S_SCRIPT_DOUBLE_ESCAPED_LT;
        }
        scan->dashes_ = 0;
        return true;
    case S_SCRIPT_ESCAPED_LT:
        scan->state_ = S_SCRIPT_ESCAPED;
        scan->end_len_ = 0;
        if (c == '/') {
            scan->state_ = S_RAW_END_OPEN;
            scan->flags_ |= F_ESCAPED;
            return true;
        }
        if (is_alpha(c)) scan->state_ = S_SCRIPT_DOUBLE_ESCAPE_START;
        return false;
    case S_SCRIPT_DOUBLE_ESCAPED_LT:
        scan->state_ = S_SCRIPT_DOUBLE_ESCAPED;
        if (c != '/') return false;
        scan->state_ = S_SCRIPT_DOUBLE_ESCAPE_END;
        scan->end_len_ = 0;
        return true;
    case S_SCRIPT_DOUBLE_ESCAPE_START:
    case S_SCRIPT_DOUBLE_ESCAPE_END: {
        /* "<script" goes into the double-escaped text, "</script" out */
        bool start = scan->state_ == S_SCRIPT_DOUBLE_ESCAPE_START;
        if (is_alpha(c)) {
            name_add(scan->end_, &scan->end_len_, sizeof scan->end_, c);
            return true;
        }
        bool script = name_is(scan->end_, scan->end_len_, "script");
        if (is_space(c) || c == '/' || c == '>') {
            scan->state_ = start == script ? S_SCRIPT_DOUBLE_ESCAPED : S_SCRIPT_ESCAPED;
            return true;
        }
        scan->state_ = start ? S_SCRIPT_ESCAPED : S_SCRIPT_DOUBLE_ESCAPED;
        return false;
    }
    case S_PLAINTEXT:
    default: return true;
    }
}

void markup_scan_text(markup_scan *scan, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        while (!step(scan, (unsigned char)s[i])) {
        }
}

void markup_scan_at(const markup_scan *scan, markup_scan_where *where) {
    static const char none[] = "";
    memset(where, 0, sizeof *where);
    where->tag = where->attr = none;
    bool named_tag = !(scan->flags_ & F_TAG_VALUE);
    switch (scan->state_) {
    case S_DATA: where->place = MARKUP_PLACE_TEXT; return;
    case S_TAG_OPEN:
    case S_END_TAG_OPEN: where->place = MARKUP_PLACE_TAG_NAME; return;
    case S_TAG_NAME: where->place = MARKUP_PLACE_TAG_NAME; break;
    case S_BEFORE_ATTR_NAME:
    case S_ATTR_NAME:
    case S_AFTER_ATTR_NAME:
    case S_AFTER_ATTR_VALUE_QUOTED:
    case S_SELF_CLOSING: where->place = MARKUP_PLACE_ATTR_NAME; break;
    case S_BEFORE_ATTR_VALUE:
    case S_ATTR_VALUE_QUOTED:
    case S_ATTR_VALUE_UNQUOTED:
        where->place = MARKUP_PLACE_ATTR_VALUE;
        where->quote = (char)(scan->state_ == S_ATTR_VALUE_QUOTED ? scan->quote_ : 0);
        where->value_start = scan->value_len_ == 0;
        if (!(scan->flags_ & F_ATTR_VALUE)) {
            where->attr = scan->attr_;
            where->attr_len = scan->attr_len_;
        }
        break;
    case S_RAW:
    case S_RAW_LT:
    case S_RAW_END_OPEN:
    case S_RAW_END_NAME:
    case S_SCRIPT_ESCAPE_START:
    case S_SCRIPT_ESCAPE_START_DASH:
    case S_SCRIPT_ESCAPED:
    case S_SCRIPT_ESCAPED_LT:
    case S_SCRIPT_DOUBLE_ESCAPE_START:
    case S_SCRIPT_DOUBLE_ESCAPED:
    case S_SCRIPT_DOUBLE_ESCAPED_LT:
    case S_SCRIPT_DOUBLE_ESCAPE_END: {
        ptrdiff_t i = raw_element(scan->raw_, scan->raw_len_);
        where->place = i >= 0 ? raw_elements[i].place : MARKUP_PLACE_RAW_TEXT;
        where->tag = scan->raw_;
        where->tag_len = scan->raw_len_;
        return;
    }
    case S_PLAINTEXT:
        where->place = MARKUP_PLACE_RAW_TEXT;
        where->tag = "plaintext";
        where->tag_len = 9;
        return;
    default: /* the comment states */ where->place = MARKUP_PLACE_COMMENT; return;
    }
    if (named_tag) {
        where->tag = scan->tag_;
        where->tag_len = scan->tag_len_;
    }
}

void markup_scan_value(markup_scan *scan) {
    switch (scan->state_) {
    case S_TAG_OPEN:
    case S_END_TAG_OPEN:
        start_tag_name(scan, scan->state_ == S_END_TAG_OPEN);
        scan->flags_ |= F_TAG_VALUE;
        return;
    case S_TAG_NAME: scan->flags_ |= F_TAG_VALUE; return;
    case S_BEFORE_ATTR_NAME:
    case S_AFTER_ATTR_NAME:
    case S_AFTER_ATTR_VALUE_QUOTED:
    case S_SELF_CLOSING:
        start_attr_name(scan);
        scan->flags_ |= F_ATTR_VALUE;
        return;
    case S_ATTR_NAME: scan->flags_ |= F_ATTR_VALUE; return;
    case S_BEFORE_ATTR_VALUE:
        scan->state_ = S_ATTR_VALUE_UNQUOTED;
        scan->value_len_ = 1;
        return;
    case S_ATTR_VALUE_QUOTED:
    case S_ATTR_VALUE_UNQUOTED:
        if (scan->value_len_ < UINT32_MAX) scan->value_len_++;
        return;
    case S_RAW_LT:
    case S_SCRIPT_ESCAPE_START:
    case S_SCRIPT_ESCAPE_START_DASH: scan->state_ = S_RAW; return;
    case S_RAW_END_OPEN:
    case S_RAW_END_NAME: scan->state_ = raw_text_state(scan); return;
    case S_SCRIPT_ESCAPED:
    case S_SCRIPT_ESCAPED_LT:
    case S_SCRIPT_DOUBLE_ESCAPE_START: /* a name not known: not "script" */
        scan->state_ = S_SCRIPT_ESCAPED;
        scan->dashes_ = 0;
        return;
    case S_SCRIPT_DOUBLE_ESCAPED:
    case S_SCRIPT_DOUBLE_ESCAPED_LT:
    case S_SCRIPT_DOUBLE_ESCAPE_END:
        scan->state_ = S_SCRIPT_DOUBLE_ESCAPED;
        scan->dashes_ = 0;
        return;
    case S_MARKUP_DECL:
    case S_MARKUP_DECL_DASH: scan->state_ = S_BOGUS_COMMENT; return;
    case S_COMMENT_START:
    case S_COMMENT_START_DASH:
    case S_COMMENT_END_BANG:
        scan->state_ = S_COMMENT;
        scan->dashes_ = 0;
        return;
    case S_COMMENT: scan->dashes_ = 0; return;
    default: /* text: the value is text */ return;
    }
}
