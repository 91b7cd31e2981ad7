/* test_writer.c - the HTML writer's state machine: where the parser
   stands after each element, what is written raw, escaped or refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "markup/binding.h"
#include "test_alloc.h"

#define S(lit) (lit), (sizeof(lit) - 1)

static const char payload[] = "<img src=x onerror=alert(1)>";
static const char escaped[] = "&lt;img src=x onerror=alert(1)&gt;";

typedef struct fixture {
    markup_buf buf;
    markup_writer w;
    markup_error err;
} fixture;

static void start(fixture *f) {
    markup_buf_init(&f->buf, NULL);
    markup_writer_init(&f->w, &f->buf, MARKUP_CONTEXT_HTML);
    f->err = (markup_error)MARKUP_ERROR_INIT;
}

static void stop(fixture *f) {
    markup_writer_dispose(&f->w);
    markup_buf_free(&f->buf);
}

static markup_status open_tag(fixture *f, const char *tag) {
    return markup_writer_open(&f->w, tag, strlen(tag), &f->err);
}

/* Opens each tag of a NULL-terminated path; all must be accepted. */
static void open_path(fixture *f, const char *const *path) {
    for (; *path; path++) assert_int_equal(open_tag(f, *path), MARKUP_OK);
}

static void close_all(fixture *f) {
    while (markup_writer_depth(&f->w))
        assert_int_equal(markup_writer_close(&f->w, NULL), MARKUP_OK);
}

static void assert_output(fixture *f, const char *expected) {
    size_t n = strlen(expected);
    if (f->buf.len != n || memcmp(f->buf.data, expected, n) != 0) {
        print_error("wrote    \"%.*s\"\nexpected \"%s\"\n", (int)f->buf.len, f->buf.data, expected);
        fail();
    }
}

/* Where text is raw and where it is escaped: a style holding the payload
   at the end of each path. */
static void test_raw_or_escaped_by_where_the_parser_is(void **state) {
    (void)state;
    static const struct {
        const char *path[6];
        bool raw;
    } cases[] = {
        {{"div", NULL}, true},
        {{"svg", NULL}, false},
        {{"math", NULL}, false},
        {{"svg", "g", NULL}, false},
        {{"svg", "foreignObject", NULL}, true},
        {{"svg", "desc", NULL}, true},
        {{"svg", "title", NULL}, true},
        {{"math", "mi", NULL}, true},
        {{"math", "mtext", NULL}, true},
        {{"math", "mi", "mglyph", NULL}, false},       /* MathML again straight inside mi */
        {{"math", "mi", "div", "mglyph", NULL}, true}, /* but HTML one level down */
        {{"mi", "mglyph", NULL}, true},                /* outside math: plain HTML */
        {{"mglyph", "svg", "mi", NULL}, false},        /* svg's mi is no integration point */
        {{"math", "annotation-xml", NULL}, false},
        {{"math", "annotation-xml", "svg", NULL}, false},
        {{"math", "annotation-xml", "svg", "desc", NULL}, true},
        {{"math", "annotation-xml", "svg", "mi", NULL}, false},
        {{"math", "svg", "desc", NULL}, false}, /* math's svg is MathML */
        {{"svg", "desc", "math", NULL}, false},
        {{"svg", "desc", "svg", "foreignObject", NULL}, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture f;
        start(&f);
        open_path(&f, cases[i].path);
        assert_int_equal(open_tag(&f, "style"), MARKUP_OK);
        /* Raw text under svg or math holds no '<', so that no reading of the
           element can make it markup. */
        bool under_foreign = false;
        for (size_t d = 0; cases[i].path[d]; d++)
            under_foreign |=
                strcmp(cases[i].path[d], "svg") == 0 || strcmp(cases[i].path[d], "math") == 0;
        markup_status st = markup_writer_text(&f.w, payload, strlen(payload), &f.err);
        if (cases[i].raw && under_foreign) {
            assert_int_equal(st, MARKUP_ERR_CONTEXT);
            assert_int_equal(f.err.pos, 0);
            stop(&f);
            continue;
        }
        assert_int_equal(st, MARKUP_OK);
        close_all(&f);
        const char *want = cases[i].raw ? payload : escaped;
        if (strstr(f.buf.data, want) == NULL) {
            print_error("case %zu: wrote \"%.*s\"\n", i, (int)f.buf.len, f.buf.data);
            fail();
        }
        stop(&f);
    }
}

static void test_annotation_xml_encoding(void **state) {
    (void)state;
    static const struct {
        const char *value;
        bool html;
    } cases[] = {{"text/html", true},
                 {"TEXT/HTML", true},
                 {"application/xhtml+xml", true},
                 {"application/mathml+xml", false},
                 {"text/html ", false},
                 {"", false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture f;
        start(&f);
        open_path(&f, (const char *const[]){"math", "annotation-xml", NULL});
        assert_int_equal(
            markup_writer_attr(&f.w, S("Encoding"), cases[i].value, strlen(cases[i].value), &f.err),
            MARKUP_OK);
        /* Only the first encoding counts, as the tokenizer keeps it. */
        assert_int_equal(markup_writer_attr(&f.w, S("encoding"), S("text/html"), &f.err),
                         MARKUP_OK);
        assert_int_equal(open_tag(&f, "script"), MARKUP_OK);
        assert_int_equal(markup_writer_text(&f.w, S("a>b"), &f.err), MARKUP_OK);
        close_all(&f);
        assert_non_null(strstr(f.buf.data, cases[i].html ? ">a>b<" : ">a&gt;b<"));
        stop(&f);
    }
    /* A character reference could spell text/html: refused in trusted HTML. */
    fixture f;
    start(&f);
    open_path(&f, (const char *const[]){"math", "annotation-xml", NULL});
    assert_int_equal(markup_writer_attr_html(&f.w, S("encoding"), S("text&#47;html"), &f.err),
                     MARKUP_ERR_CONTEXT);
    assert_int_equal(markup_writer_check_attr_slot(&f.w, S("encoding"), &f.err),
                     MARKUP_ERR_CONTEXT);
    assert_int_equal(markup_writer_check_attr_slot(&f.w, S("id"), &f.err), MARKUP_OK);
    close_all(&f);
    stop(&f);
}

/* Refused where they stand: the message names the reason, nothing is
   written, and the writer goes on. */
static void test_refusals(void **state) {
    (void)state;
    static const struct {
        const char *path[5];
        const char *tag;
        markup_status status;
    } cases[] = {
        {{"svg", NULL}, "p", MARKUP_ERR_CONTEXT},
        {{"svg", "g", NULL}, "DIV", MARKUP_ERR_CONTEXT},
        {{"math", NULL}, "table", MARKUP_ERR_CONTEXT},
        {{"math", "annotation-xml", NULL}, "b", MARKUP_ERR_CONTEXT},
        {{"math", "mi", "mglyph", NULL}, "span", MARKUP_ERR_CONTEXT},
        {{"svg", "desc", NULL}, "td", MARKUP_ERR_CONTEXT},
        {{"svg", "foreignObject", "div", NULL}, "tr", MARKUP_ERR_CONTEXT},
        {{"math", "mtext", NULL}, "table", MARKUP_ERR_CONTEXT},
        {{"svg", "desc", NULL}, "frameset", MARKUP_ERR_CONTEXT},
        {{"select", NULL}, "style", MARKUP_ERR_CONTEXT},
        {{"select", "option", "svg", "desc", NULL}, "style", MARKUP_ERR_CONTEXT},
        /* Each ends the select; older parsers ignore the svg around. */
        {{"select", NULL}, "select", MARKUP_ERR_CONTEXT},
        {{"select", "option", NULL}, "input", MARKUP_ERR_CONTEXT},
        {{"select", "svg", NULL}, "textarea", MARKUP_ERR_CONTEXT},
        {{"select", "svg", "option", NULL}, "select", MARKUP_ERR_CONTEXT},
        {{"select", "math", "mi", NULL}, "keygen", MARKUP_ERR_CONTEXT},
        {{"title", NULL}, "title", MARKUP_ERR_CONTEXT},
        {{"textarea", "svg", NULL}, "textarea", MARKUP_ERR_CONTEXT},
        {{"noscript", "div", NULL}, "noscript", MARKUP_ERR_CONTEXT},
        {{"div", NULL}, "plaintext", MARKUP_ERR_CONTEXT},
        {{"script", NULL}, "b", MARKUP_ERR_RAW_TEXT},
        {{"br", NULL}, "b", MARKUP_ERR_VOID_CHILD},
        {{"param", NULL}, "b", MARKUP_ERR_VOID_CHILD},
        {{"image", NULL}, "b", MARKUP_ERR_VOID_CHILD}, /* an <img> to the parser */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture f;
        start(&f);
        open_path(&f, cases[i].path);
        size_t len = f.buf.len, depth = markup_writer_depth(&f.w);
        assert_int_equal(open_tag(&f, cases[i].tag), cases[i].status);
        assert_int_equal(f.err.code, cases[i].status);
        assert_non_null(f.err.msg);
        if (cases[i].status == MARKUP_ERR_CONTEXT) {
            /* The refused element, by the table's (lower-case) name. */
            assert_non_null(f.err.refused);
            assert_int_equal(strlen(f.err.refused), strlen(cases[i].tag));
            for (size_t k = 0; cases[i].tag[k]; k++)
                assert_int_equal(f.err.refused[k], cases[i].tag[k] | 0x20);
        } else {
            assert_null(f.err.refused);
        }
        assert_int_equal(f.buf.len, len);
        assert_int_equal(markup_writer_depth(&f.w), depth);
        assert_int_equal(open_tag(&f, "g"),
                         cases[i].status == MARKUP_ERR_CONTEXT ? MARKUP_OK : cases[i].status);
        close_all(&f);
        stop(&f);
    }
    /* Everyday shapes next to them are fine. */
    static const char *const fine[][5] = {
        {"svg", "foreignObject", "p", NULL}, {"math", "mtext", "b", NULL},
        {"select", "option", NULL},          {"select", "script", NULL},
        {"table", "tr", "td", "svg", NULL},  {"title", "b", NULL},
        {"noscript", "style", NULL},         {"svg", "style", NULL},
    };
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        fixture f;
        start(&f);
        open_path(&f, fine[i]);
        close_all(&f);
        stop(&f);
    }
}

static void test_font_in_foreign_content(void **state) {
    (void)state;
    fixture f;
    start(&f);
    open_path(&f, (const char *const[]){"svg", "font", NULL});
    assert_int_equal(markup_writer_attr(&f.w, S("id"), S("x"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_attr(&f.w, S("COLOR"), S("red"), &f.err), MARKUP_ERR_CONTEXT);
    assert_int_equal(markup_writer_attr_bool(&f.w, S("size"), true, &f.err), MARKUP_ERR_CONTEXT);
    assert_int_equal(markup_writer_check_attr_slot(&f.w, S("face"), &f.err), MARKUP_ERR_CONTEXT);
    close_all(&f);
    assert_output(&f, "<svg><font id=\"x\"></font></svg>");
    stop(&f);
    start(&f); /* in HTML, font's attributes are only attributes */
    assert_int_equal(open_tag(&f, "font"), MARKUP_OK);
    assert_int_equal(markup_writer_attr(&f.w, S("color"), S("red"), &f.err), MARKUP_OK);
    close_all(&f);
    assert_output(&f, "<font color=\"red\"></font>");
    stop(&f);
}

/* err.element names the text element a refused sequence would end: the
   one the text is in, or one around it. Trusted HTML ending in the start
   of an end tag names none yet. */
static void test_refusal_names_the_text_element(void **state) {
    (void)state;
    fixture f;
    start(&f);
    open_path(&f, (const char *const[]){"noscript", "div", "script", NULL});
    assert_int_equal(markup_writer_text(&f.w, S("a </SCRIPT>"), &f.err), MARKUP_ERR_RAW_TEXT);
    assert_string_equal(f.err.element, "script");
    assert_int_equal(markup_writer_text(&f.w, S("a <!-- b"), &f.err), MARKUP_ERR_RAW_TEXT);
    assert_string_equal(f.err.element, "script");
    assert_int_equal(markup_writer_text(&f.w, S("a </noscript>"), &f.err), MARKUP_ERR_RAW_TEXT);
    assert_string_equal(f.err.element, "noscript");
    assert_int_equal(markup_writer_text(&f.w, S("a </nosc"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_text(&f.w, S("ript>"), &f.err), MARKUP_ERR_RAW_TEXT);
    assert_string_equal(f.err.element, "noscript"); /* across the two pieces */
    close_all(&f);
    stop(&f);

    start(&f);
    open_path(&f, (const char *const[]){"title", NULL});
    markup_context in_title = markup_writer_context(&f.w);
    assert_int_equal(markup_context_check_child_html(in_title, S("a </TITLE>"), &f.err),
                     MARKUP_ERR_RAW_TEXT);
    assert_string_equal(f.err.element, "title");
    assert_int_equal(markup_context_check_child_html(in_title, S("a </tit"), &f.err),
                     MARKUP_ERR_RAW_TEXT);
    assert_string_equal(f.err.refused, "<");
    assert_null(f.err.element);
    assert_int_equal(markup_context_check_child_html(in_title, S("a"), &f.err), MARKUP_OK);
    assert_null(f.err.element);
    close_all(&f);
    stop(&f);
}

/* Raw text is checked alone and across pieces; inside a text element for
   that element's end tag too, and so is trusted HTML, and escaped text
   that finishes an end tag trusted HTML began. */
static void test_raw_text_checks(void **state) {
    (void)state;
    fixture f;
    start(&f);
    assert_int_equal(open_tag(&f, "script"), MARKUP_OK);
    assert_int_equal(markup_writer_text(&f.w, S("if (a < b) x = '</SCRIPT'"), &f.err),
                     MARKUP_ERR_RAW_TEXT);
    assert_int_equal(f.err.pos, 16);
    assert_string_equal(f.err.refused, "</script");
    assert_int_equal(markup_writer_text(&f.w, S("var s = '</scr"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_html(&f.w, S("ipt>'"), &f.err), MARKUP_ERR_RAW_TEXT);
    assert_string_equal(f.err.refused, "</script"); /* across the two pieces */
    assert_int_equal(markup_writer_text(&f.w, S("ipx';"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_comment(&f.w, S("x"), &f.err), MARKUP_ERR_RAW_TEXT);
    close_all(&f);
    assert_output(&f, "<script>var s = '</scripx';</script>");
    stop(&f);

    start(&f);
    open_path(&f, (const char *const[]){"title", NULL});
    assert_int_equal(markup_writer_html(&f.w, S("<b>ok</b>"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_html(&f.w, S("</TITLE>"), &f.err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_writer_html(&f.w, S("</tit"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_text(&f.w, S("le x"), &f.err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_writer_text(&f.w, S("<le"), &f.err), MARKUP_OK);
    close_all(&f);
    assert_output(&f, "<title><b>ok</b></tit&lt;le</title>");
    stop(&f);

    start(&f);
    open_path(&f, (const char *const[]){"noscript", "div", "style", NULL});
    assert_int_equal(markup_writer_text(&f.w, S(".a{} </noscript>"), &f.err), MARKUP_ERR_RAW_TEXT);
    assert_string_equal(f.err.refused, "</noscript");
    assert_int_equal(f.err.pos, 5);
    assert_int_equal(markup_writer_text(&f.w, S(".a{} </noscripts"), &f.err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_writer_text(&f.w, S(".a > b {}"), &f.err), MARKUP_OK);
    close_all(&f);
    assert_output(&f, "<noscript><div><style>.a > b {}</style></div></noscript>");
    stop(&f);

    start(&f);
    assert_int_equal(open_tag(&f, "frameset"), MARKUP_OK);
    close_all(&f);
    assert_int_equal(open_tag(&f, "style"), MARKUP_OK);
    assert_int_equal(markup_writer_text(&f.w, S("a{}"), &f.err), MARKUP_ERR_CONTEXT);
    close_all(&f);
    stop(&f);
}

/* A writer started at another's context writes as that one would. */
static void test_context_resumes(void **state) {
    (void)state;
    fixture f;
    start(&f);
    open_path(&f, (const char *const[]){"select", "svg", NULL});
    assert_int_equal(markup_writer_flush_tag(&f.w, &f.err), MARKUP_OK);
    markup_context here = markup_writer_context(&f.w);
    assert_true(markup_context_is_plain(here));
    markup_writer slot;
    markup_writer_init(&slot, &f.buf, here);
    assert_int_equal(markup_writer_open(&slot, S("style"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_text(&slot, S("a<b"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_close(&slot, &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_open(&slot, S("desc"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_open(&slot, S("style"), &f.err), MARKUP_ERR_CONTEXT);
    assert_int_equal(markup_writer_close(&slot, &f.err), MARKUP_OK);
    markup_writer_dispose(&slot);
    close_all(&f);
    assert_output(&f, "<select><svg><style>a&lt;b</style><desc></desc></svg></select>");
    stop(&f);

    start(&f);
    open_path(&f, (const char *const[]){"title", NULL});
    assert_int_equal(markup_writer_flush_tag(&f.w, &f.err), MARKUP_OK);
    assert_false(markup_context_is_plain(markup_writer_context(&f.w)));
    close_all(&f);
    stop(&f);

    /* After a frameset the parser ignores script start tags: a writer
       resumed later in that document refuses script text too. */
    start(&f);
    open_path(&f, (const char *const[]){"frameset", NULL});
    close_all(&f);
    open_path(&f, (const char *const[]){"select", NULL});
    assert_int_equal(markup_writer_flush_tag(&f.w, &f.err), MARKUP_OK);
    markup_writer later;
    markup_writer_init(&later, &f.buf, markup_writer_context(&f.w));
    assert_int_equal(markup_writer_open(&later, S("script"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_text(&later, S("<frame src=x>"), &f.err), MARKUP_ERR_CONTEXT);
    assert_int_equal(markup_writer_close(&later, &f.err), MARKUP_OK);
    markup_writer_dispose(&later);
    close_all(&f);
    stop(&f);
}

/* Inside a text element the parser reads a child's whole start tag as
   text: a trusted attribute value there must not hold an end tag that
   ends the element around, whether it goes through the writer or
   straight into the buffer of a baked attribute slot. */
static void test_trusted_attribute_inside_a_text_element(void **state) {
    (void)state;
    fixture f;
    start(&f);
    markup_writer_skip_name_checks(&f.w);
    open_path(&f, (const char *const[]){"textarea", NULL});
    /* The text element's own start tag stands outside its text. */
    assert_non_null(markup_writer_attr_buf(&f.w));
    assert_true(markup_context_is_plain(markup_writer_start_tag_context(&f.w)));
    assert_int_equal(markup_writer_attr_html(&f.w, S("id"), S("</textarea>"), &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"b", NULL});
    /* The child's attributes go through the writer's check. */
    assert_null(markup_writer_attr_buf(&f.w));
    markup_context at = markup_writer_start_tag_context(&f.w);
    assert_false(markup_context_is_plain(at));
    assert_int_equal(markup_writer_attr_html(&f.w, S("id"), S("x</TextArea >"), &f.err),
                     MARKUP_ERR_RAW_TEXT);
    assert_int_equal(f.err.pos, 1);
    assert_string_equal(f.err.refused, "</textarea");
    assert_int_equal(markup_context_check_attr_html(at, S("a </noscript"), &f.err),
                     MARKUP_ERR_RAW_TEXT);
    assert_int_equal(f.err.pos, 2);
    assert_int_equal(markup_context_check_attr_html(MARKUP_CONTEXT_HTML, S("</textarea>"), &f.err),
                     MARKUP_OK);
    assert_int_equal(markup_writer_attr_html(&f.w, S("id"), S("</tex"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_attr(&f.w, S("title"), S("</textarea>"), &f.err), MARKUP_OK);
    close_all(&f);
    assert_output(&f, "<textarea id=\"</textarea>\"><b id=\"</tex\" "
                      "title=\"&lt;/textarea&gt;\"></b></textarea>");
    stop(&f);

    /* Nothing open: the start tag would stand where the writer began. */
    start(&f);
    assert_true(markup_context_is_plain(markup_writer_start_tag_context(&f.w)));
    stop(&f);
}

static void test_void_elements_and_misuse(void **state) {
    (void)state;
    fixture f;
    start(&f);
    static const char *const voids[] = {"br",      "img",   "param", "keygen", "basefont",
                                        "bgsound", "frame", "image", "IMAGE"};
    for (size_t i = 0; i < sizeof voids / sizeof voids[0]; i++) {
        assert_int_equal(open_tag(&f, voids[i]), MARKUP_OK);
        assert_int_equal(markup_writer_text(&f.w, S("x"), &f.err), MARKUP_ERR_VOID_CHILD);
        assert_int_equal(markup_writer_close(&f.w, &f.err), MARKUP_OK);
    }
    assert_output(&f, "<br><img><param><keygen><basefont><bgsound><frame><image><IMAGE>");
    markup_buf_clear(&f.buf);
    /* In svg, image is an element of its own, with an end tag. */
    open_path(&f, (const char *const[]){"svg", "image", "title", NULL});
    close_all(&f);
    assert_output(&f, "<svg><image><title></title></image></svg>");
    markup_buf_clear(&f.buf);
    assert_int_equal(markup_writer_close(&f.w, &f.err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_writer_attr(&f.w, S("id"), S("x"), &f.err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(open_tag(&f, "1x"), MARKUP_ERR_INVALID_TAG);
    assert_int_equal(open_tag(&f, "p"), MARKUP_OK);
    assert_int_equal(markup_writer_attr(&f.w, S("a b"), S("x"), &f.err),
                     MARKUP_ERR_INVALID_ATTR_NAME);
    assert_int_equal(markup_writer_text(&f.w, S("x"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_attr(&f.w, S("id"), S("x"), &f.err), MARKUP_ERR_INVALID_ARG);
    close_all(&f);
    stop(&f);
}

/* Deep nesting: past the inline frames onto the heap, and refused at
   MARKUP_MAX_DEPTH. */
static void test_depth(void **state) {
    (void)state;
    fixture f;
    start(&f);
    for (size_t i = 0; i < MARKUP_MAX_DEPTH; i++) assert_int_equal(open_tag(&f, "b"), MARKUP_OK);
    assert_int_equal(open_tag(&f, "b"), MARKUP_ERR_TOO_DEEP);
    assert_int_equal(markup_writer_depth(&f.w), MARKUP_MAX_DEPTH);
    close_all(&f);
    assert_int_equal(f.buf.len, (size_t)MARKUP_MAX_DEPTH * 7);
    stop(&f);
}

/* A sink gets the output in chunks at element boundaries; together they
   are the output a buffer would hold. */
typedef struct collected {
    markup_buf all;
    size_t chunks;
    size_t stop_after; /* 0: never */
} collected;

static markup_status collect(void *ctx, const char *data, size_t n) {
    collected *c = ctx;
    if (c->stop_after && c->chunks == c->stop_after) return MARKUP_ERR_INVALID_ARG;
    c->chunks++;
    return markup_buf_append(&c->all, data, n);
}

static void write_list(markup_writer *w, size_t items) {
    assert_int_equal(markup_writer_open(w, S("ul"), NULL), MARKUP_OK);
    for (size_t i = 0; i < items; i++) {
        assert_int_equal(markup_writer_open(w, S("li"), NULL), MARKUP_OK);
        assert_int_equal(markup_writer_attr(w, S("class"), S("row"), NULL), MARKUP_OK);
        assert_int_equal(markup_writer_text(w, S("caf\xc3\xa9 & <tea>"), NULL), MARKUP_OK);
        assert_int_equal(markup_writer_close(w, NULL), MARKUP_OK);
    }
    assert_int_equal(markup_writer_close(w, NULL), MARKUP_OK);
}

static void test_sink(void **state) {
    (void)state;
    fixture whole;
    start(&whole);
    write_list(&whole.w, 100);

    collected c = {{NULL, 0, 0, NULL}, 0, 0};
    markup_buf_init(&c.all, NULL);
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    markup_writer w;
    markup_writer_init(&w, &buf, MARKUP_CONTEXT_HTML);
    markup_writer_set_sink(&w, collect, &c, 256);
    write_list(&w, 100);
    assert_int_equal(markup_writer_flush(&w, NULL), MARKUP_OK);
    assert_int_equal(buf.len, 0);
    assert_true(c.chunks > 10);
    assert_int_equal(c.all.len, whole.buf.len);
    assert_memory_equal(c.all.data, whole.buf.data, whole.buf.len);
    markup_writer_dispose(&w);

    /* A sink that stops: the call that flushed returns its status. */
    c.stop_after = 2;
    c.chunks = 0;
    markup_writer_init(&w, &buf, MARKUP_CONTEXT_HTML);
    markup_writer_set_sink(&w, collect, &c, 1);
    markup_error err;
    assert_int_equal(markup_writer_open(&w, S("p"), &err), MARKUP_OK);
    assert_int_equal(markup_writer_open(&w, S("b"), &err), MARKUP_OK);
    assert_int_equal(markup_writer_close(&w, &err), MARKUP_OK);
    assert_int_equal(markup_writer_open(&w, S("i"), &err), MARKUP_OK);
    assert_int_equal(markup_writer_close(&w, &err), MARKUP_OK);
    assert_int_equal(markup_writer_close(&w, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(err.code, MARKUP_ERR_INVALID_ARG);
    assert_int_equal(c.chunks, 2);
    markup_writer_dispose(&w);
    markup_buf_free(&buf);
    markup_buf_free(&c.all);
    stop(&whole);
}

/* A call that runs out of memory changes nothing: the raw-text seam and
   annotation-xml's encoding are taken in only once their bytes are out. */
static void test_out_of_memory_leaves_the_writer_as_it_was(void **state) {
    (void)state;
    char big[4096];
    memset(big, 'x', sizeof big);
    test_alloc ta;
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_buf buf;
    markup_buf_init(&buf, &ta.alc);
    markup_writer w;
    markup_writer_init(&w, &buf, MARKUP_CONTEXT_HTML);
    markup_error err;
    assert_int_equal(markup_writer_open(&w, S("script"), &err), MARKUP_OK);
    assert_int_equal(markup_writer_text(&w, S("var s = '</scr"), &err), MARKUP_OK);
    ta.fail_at = ta.calls; /* the next growth fails */
    assert_int_equal(markup_writer_text(&w, big, sizeof big, &err), MARKUP_ERR_NOMEM);
    ta.fail_at = TEST_ALLOC_NEVER;
    assert_int_equal(markup_writer_text(&w, S("ipt><img src=x>"), &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_writer_close(&w, &err), MARKUP_OK);

    assert_int_equal(markup_writer_open(&w, S("math"), &err), MARKUP_OK);
    assert_int_equal(markup_writer_open(&w, S("annotation-xml"), &err), MARKUP_OK);
    ta.fail_at = ta.calls;
    assert_int_equal(markup_writer_attr(&w, S("encoding"), big, sizeof big, &err),
                     MARKUP_ERR_NOMEM);
    ta.fail_at = TEST_ALLOC_NEVER;
    assert_int_equal(markup_writer_open(&w, S("style"), &err), MARKUP_OK);
    assert_int_equal(markup_writer_text(&w, S("<b>"), &err), MARKUP_OK);
    while (markup_writer_depth(&w)) assert_int_equal(markup_writer_close(&w, &err), MARKUP_OK);
    /* No encoding went out, so the style is MathML and its text escaped. */
    assert_non_null(strstr(buf.data, "<annotation-xml><style>&lt;b&gt;</style>"));
    markup_writer_dispose(&w);
    markup_buf_free(&buf);
    assert_int_equal(ta.live_blocks, 0);
}

/* A writer resumed at another's context writes part of a larger document:
   a frameset there would change how the parser reads what follows it. */
static void test_resumed_writer_refuses_a_frameset(void **state) {
    (void)state;
    fixture f;
    start(&f);
    assert_int_equal(open_tag(&f, "html"), MARKUP_OK);
    assert_int_equal(markup_writer_flush_tag(&f.w, &f.err), MARKUP_OK);
    markup_writer slot;
    markup_writer_init(&slot, &f.buf, markup_writer_context(&f.w));
    assert_int_equal(markup_writer_open(&slot, S("frameset"), &f.err), MARKUP_ERR_CONTEXT);
    assert_string_equal(f.err.refused, "frameset");
    markup_writer_dispose(&slot);
    assert_int_equal(open_tag(&f, "frameset"), MARKUP_OK); /* in the document itself */
    close_all(&f);
    stop(&f);
}

/* A col first in a template (head elements before it do not count) makes
   the parser ignore every start tag in the rest of the template but col
   and template: script and style text there would be read as markup. */
static void test_template_whose_first_element_is_a_col(void **state) {
    (void)state;
    fixture f;
    start(&f);
    open_path(&f, (const char *const[]){"template", "title", NULL});
    assert_int_equal(markup_writer_close(&f.w, &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"col", NULL});
    assert_int_equal(markup_writer_close(&f.w, &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"div", "script", NULL});
    assert_int_equal(markup_writer_text(&f.w, S("</template><img src=x onerror=alert(1)>"), &f.err),
                     MARKUP_ERR_CONTEXT);
    assert_int_equal(markup_writer_text(&f.w, S(""), &f.err), MARKUP_OK); /* nothing to misread */
    close_all(&f);
    assert_output(&f, "<template><title></title><col><div><script></script></div></template>");
    stop(&f);

    /* Once another element decided the template's reading, a col there is
       ignored and changes nothing. */
    start(&f);
    open_path(&f, (const char *const[]){"template", "p", NULL});
    assert_int_equal(markup_writer_close(&f.w, &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"col", NULL});
    assert_int_equal(markup_writer_close(&f.w, &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"style", NULL});
    assert_int_equal(markup_writer_text(&f.w, S("a{}"), &f.err), MARKUP_OK);
    close_all(&f);
    stop(&f);

    /* After a branch point in an undecided template, a col may come first
       whatever the compiler met next: raw text in the rest is refused. */
    start(&f);
    open_path(&f, (const char *const[]){"template", NULL});
    assert_int_equal(markup_writer_flush_tag(&f.w, &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_branch(&f.w, &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"div", NULL});
    assert_int_equal(markup_writer_close(&f.w, &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"style", NULL});
    assert_int_equal(markup_writer_text(&f.w, S("a{}"), &f.err), MARKUP_ERR_CONTEXT);
    close_all(&f);
    stop(&f);
    start(&f); /* right after open: the branch is among the children */
    open_path(&f, (const char *const[]){"template", NULL});
    assert_int_equal(markup_writer_branch(&f.w, &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"div", NULL});
    assert_int_equal(markup_writer_close(&f.w, &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"style", NULL});
    assert_int_equal(markup_writer_text(&f.w, S("a{}"), &f.err), MARKUP_ERR_CONTEXT);
    close_all(&f);
    stop(&f);
    start(&f); /* a template already decided, or no template: no change */
    open_path(&f, (const char *const[]){"template", "p", NULL});
    assert_int_equal(markup_writer_branch(&f.w, &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_close(&f.w, &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_branch(&f.w, &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"script", NULL});
    assert_int_equal(markup_writer_text(&f.w, S("x"), &f.err), MARKUP_OK);
    close_all(&f);
    stop(&f);

    /* In a text element, the text before a branch point may be joined to
       what follows another one: it may not end in the start of an end
       tag, and the seam the writer sees in walking order is not checked. */
    start(&f);
    open_path(&f, (const char *const[]){"title", NULL});
    assert_int_equal(markup_writer_html(&f.w, S("a </titl"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_branch(&f.w, &f.err), MARKUP_ERR_CONTEXT);
    stop(&f);
    start(&f);
    open_path(&f, (const char *const[]){"title", NULL});
    assert_int_equal(markup_writer_html(&f.w, S("a </b"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_branch(&f.w, &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_html(&f.w, S("</i>"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_html(&f.w, S("</ti"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_html(&f.w, S("tle>"), &f.err), MARKUP_ERR_RAW_TEXT);
    close_all(&f);
    stop(&f);
    /* Script and style text is checked whole: no branch in it ("</scr",
       a branch, then "ipt>" would join into an end tag). */
    start(&f);
    open_path(&f, (const char *const[]){"script", NULL});
    assert_int_equal(markup_writer_text(&f.w, S("var s='</scr"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_branch(&f.w, &f.err), MARKUP_ERR_RAW_TEXT);
    stop(&f);

    /* The check for trusted HTML filling a child slot without a writer. */
    markup_context in_template = MARKUP_CONTEXT_HTML, in_script, in_br;
    start(&f);
    open_path(&f, (const char *const[]){"template", NULL});
    in_template = markup_writer_context(&f.w);
    open_path(&f, (const char *const[]){"script", NULL});
    in_script = markup_writer_context(&f.w);
    assert_int_equal(markup_writer_close(&f.w, &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"br", NULL});
    in_br = markup_writer_context(&f.w);
    close_all(&f);
    stop(&f);
    assert_int_equal(markup_context_check_child_html(in_template, S("<col>"), &f.err),
                     MARKUP_ERR_CONTEXT);
    assert_int_equal(markup_context_check_child_html(in_template, S("<p>x</p><col>"), &f.err),
                     MARKUP_OK);
    assert_int_equal(markup_context_check_child_html(in_template, NULL, 5, &f.err),
                     MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_context_check_child_html(MARKUP_CONTEXT_HTML, NULL, 5, &f.err),
                     MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_context_check_child_html(in_script, S("</script><b>"), &f.err),
                     MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_context_check_child_html(in_br, S("x"), &f.err), MARKUP_ERR_VOID_CHILD);
    assert_int_equal(markup_context_check_child_html(MARKUP_CONTEXT_HTML, S("<col></x>"), &f.err),
                     MARKUP_OK);

    /* A writer resumed first in a template may not open that col; after a
       static col, it refuses script text. */
    start(&f);
    open_path(&f, (const char *const[]){"template", NULL});
    assert_int_equal(markup_writer_flush_tag(&f.w, &f.err), MARKUP_OK);
    markup_writer slot;
    markup_writer_init(&slot, &f.buf, markup_writer_context(&f.w));
    assert_int_equal(markup_writer_open(&slot, S("col"), &f.err), MARKUP_ERR_CONTEXT);
    assert_string_equal(f.err.refused, "col");
    markup_writer_dispose(&slot);
    open_path(&f, (const char *const[]){"col", NULL});
    assert_int_equal(markup_writer_close(&f.w, &f.err), MARKUP_OK);
    markup_writer_init(&slot, &f.buf, markup_writer_context(&f.w));
    assert_int_equal(markup_writer_open(&slot, S("script"), &f.err), MARKUP_OK);
    assert_int_equal(markup_writer_text(&slot, S("x"), &f.err), MARKUP_ERR_CONTEXT);
    assert_int_equal(markup_writer_close(&slot, &f.err), MARKUP_OK);
    markup_writer_dispose(&slot);
    close_all(&f);
    stop(&f);

    /* Trusted HTML first in a template decides it as an element would,
       read as the tokenizer reads it (quoted values, comments, a title's
       text); HTML left open may hide a col. */
    static const struct {
        const char *html;
        bool script_refused;
    } trusted[] = {
        {"<COL span='>'>", true},          {"<title><col></title><!-- <div> --><col/>", true},
        {"<meta content=x", true},         {"<title><col></title><div></div>", false},
        {"<!-- <col> --><p>x</p>", false},
    };
    for (size_t i = 0; i < sizeof trusted / sizeof trusted[0]; i++) {
        start(&f);
        open_path(&f, (const char *const[]){"template", NULL});
        assert_int_equal(markup_writer_html(&f.w, trusted[i].html, strlen(trusted[i].html), &f.err),
                         MARKUP_OK);
        open_path(&f, (const char *const[]){"script", NULL});
        assert_int_equal(markup_writer_text(&f.w, S("x"), &f.err),
                         trusted[i].script_refused ? MARKUP_ERR_CONTEXT : MARKUP_OK);
        close_all(&f);
        stop(&f);
    }
    /* Text and head elements leave it undecided: the col element decides. */
    start(&f);
    open_path(&f, (const char *const[]){"template", NULL});
    assert_int_equal(markup_writer_html(&f.w, S("a < b<title>t</title>"), &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"col", NULL});
    assert_int_equal(markup_writer_close(&f.w, &f.err), MARKUP_OK);
    open_path(&f, (const char *const[]){"style", NULL});
    assert_int_equal(markup_writer_text(&f.w, S("a{}"), &f.err), MARKUP_ERR_CONTEXT);
    close_all(&f);
    stop(&f);
    /* A writer resumed first in a template may not be given a first col. */
    start(&f);
    open_path(&f, (const char *const[]){"template", NULL});
    assert_int_equal(markup_writer_flush_tag(&f.w, &f.err), MARKUP_OK);
    markup_writer_init(&slot, &f.buf, markup_writer_context(&f.w));
    assert_int_equal(markup_writer_html(&slot, S("<col>"), &f.err), MARKUP_ERR_CONTEXT);
    assert_int_equal(markup_writer_html(&slot, S("<span>x</span>"), &f.err), MARKUP_OK);
    markup_writer_dispose(&slot);
    close_all(&f);
    stop(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_or_escaped_by_where_the_parser_is),
        cmocka_unit_test(test_annotation_xml_encoding),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_font_in_foreign_content),
        cmocka_unit_test(test_raw_text_checks),
        cmocka_unit_test(test_refusal_names_the_text_element),
        cmocka_unit_test(test_context_resumes),
        cmocka_unit_test(test_trusted_attribute_inside_a_text_element),
        cmocka_unit_test(test_void_elements_and_misuse),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_sink),
        cmocka_unit_test(test_out_of_memory_leaves_the_writer_as_it_was),
        cmocka_unit_test(test_resumed_writer_refuses_a_frameset),
        cmocka_unit_test(test_template_whose_first_element_is_a_col),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
