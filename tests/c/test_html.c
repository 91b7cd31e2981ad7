/* test_html.c - tag and attribute-name checks, raw-text checks and the
   low-level writers (including their roll-back on allocation failure). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "markup/binding.h"
#include "test_alloc.h"

#define S(lit) lit, (sizeof(lit) - 1)

static void assert_buf_equals(const markup_buf *buf, const char *expected) {
    size_t n = strlen(expected);
    if (buf->len != n || (n && memcmp(buf->data, expected, n) != 0)) {
        print_error("got \"%.*s\", expected \"%s\"\n", (int)buf->len, buf->data ? buf->data : "",
                    expected);
        fail();
    }
}

/* ---- tags -------------------------------------------------------------- */

static void check_tag(const char *name, markup_tag_kind expected) {
    markup_tag_kind kind = (markup_tag_kind)-1;
    markup_error err;
    assert_int_equal(markup_html_check_tag(name, strlen(name), &kind, &err), MARKUP_OK);
    if (kind != expected) {
        print_error("%s: kind %d, expected %d\n", name, kind, expected);
        fail();
    }
    assert_int_equal(markup_html_check_tag(name, strlen(name), NULL, NULL), MARKUP_OK);
}

static void check_bad_tag(const char *name, size_t n, size_t pos) {
    markup_error err = {MARKUP_ERR_NOMEM, 99, "stale", "stale", "stale", "stale"};
    assert_int_equal(markup_html_check_tag(name, n, NULL, &err), MARKUP_ERR_INVALID_TAG);
    assert_int_equal(err.code, MARKUP_ERR_INVALID_TAG);
    assert_non_null(err.msg);
    assert_null(err.refused);
    assert_null(err.element);
    if (n == 0) { /* the empty name: no byte to point at */
        assert_true(err.pos == MARKUP_POS_NONE);
        assert_null(err.arg);
    } else {
        assert_int_equal(err.pos, pos);
        assert_string_equal(err.arg, "tag");
    }
}

static void test_tag_names(void **state) {
    (void)state;
    check_tag("div", MARKUP_TAG_NORMAL);
    check_tag("h1", MARKUP_TAG_NORMAL);
    check_tag("my-widget", MARKUP_TAG_NORMAL);
    check_tag("x-", MARKUP_TAG_NORMAL);
    check_tag("DIV", MARKUP_TAG_NORMAL);
    check_tag("a", MARKUP_TAG_NORMAL);
    check_tag("brr", MARKUP_TAG_NORMAL);
    check_tag("scripts", MARKUP_TAG_NORMAL);
    check_tag("scrip", MARKUP_TAG_NORMAL);
    check_tag("template", MARKUP_TAG_NORMAL);
    check_tag("textarea", MARKUP_TAG_NORMAL);
    check_tag("script", MARKUP_TAG_SCRIPT);
    check_tag("SCRIPT", MARKUP_TAG_SCRIPT);
    check_tag("ScRiPt", MARKUP_TAG_SCRIPT);
    check_tag("style", MARKUP_TAG_STYLE);
    check_tag("STYLE", MARKUP_TAG_STYLE);
    static const char *const voids[] = {"area",  "base", "br",   "col",    "embed", "hr", "img",
                                        "input", "link", "meta", "source", "track", "wbr"};
    for (size_t i = 0; i < sizeof voids / sizeof voids[0]; i++) {
        check_tag(voids[i], MARKUP_TAG_VOID);
        char upper[16];
        size_t n = strlen(voids[i]);
        for (size_t k = 0; k <= n; k++)
            upper[k] = (char)(voids[i][k] >= 'a' ? voids[i][k] - 32 : voids[i][k]);
        check_tag(upper, MARKUP_TAG_VOID);
    }
    check_bad_tag("", 0, 0);
    check_bad_tag("1a", 2, 0);
    check_bad_tag("-a", 2, 0);
    check_bad_tag("a_b", 3, 1);
    check_bad_tag("my widget", 9, 2);
    check_bad_tag("div>", 4, 3);
    check_bad_tag("a\0b", 3, 1);
    check_bad_tag("d\xC3\xAEv", 4, 1);
    check_bad_tag("\xC3\xA9", 2, 0);
    check_bad_tag("x:y", 3, 1);
    /* every ASCII byte in second position */
    for (int c = 0; c < 256; c++) {
        char name[2] = {'a', (char)c};
        bool ok =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
        if (ok)
            assert_int_equal(markup_html_check_tag(name, 2, NULL, NULL), MARKUP_OK);
        else
            check_bad_tag(name, 2, 1);
    }
    markup_error err;
    assert_int_equal(markup_html_check_tag(NULL, 3, NULL, &err), MARKUP_ERR_INVALID_ARG);
}

/* ---- attribute names --------------------------------------------------- */

static void check_attr_ok(const char *name, size_t n) {
    markup_error err;
    markup_status st = markup_html_check_attr_name(name, n, &err);
    if (st != MARKUP_OK) {
        print_error("attribute name \"%.*s\" rejected: %s\n", (int)n, name ? name : "", err.msg);
        fail();
    }
}

static void check_attr_bad(const char *name, size_t n, markup_status code, size_t pos) {
    markup_error err = {MARKUP_ERR_NOMEM, 99, "stale", "stale", "stale", "stale"};
    markup_status st = markup_html_check_attr_name(name, n, &err);
    if (n == 0) pos = MARKUP_POS_NONE; /* the empty name: no byte to point at */
    assert_true(pos == MARKUP_POS_NONE ? err.arg == NULL : strcmp(err.arg, "name") == 0);
    if (st != code || err.pos != pos) {
        print_error("attribute name \"%.*s\": status %d pos %zu, expected %d at %zu\n", (int)n,
                    name ? name : "", st, err.pos, code, pos);
        fail();
    }
    assert_int_equal(err.code, code);
    assert_non_null(err.msg);
}

static void test_attr_name_examples(void **state) {
    (void)state;
    check_attr_ok(S("class"));
    check_attr_ok(S("data-id"));
    check_attr_ok(S("@click"));
    check_attr_ok(S(":class"));
    check_attr_ok(S("x-on:click.prevent"));
    check_attr_ok(S("data-on-click__debounce.500ms"));
    check_attr_ok(S("hx-on::after-request"));
    check_attr_ok(S("[value]"));
    check_attr_ok(S("(click)"));
    check_attr_ok(S("#ref"));
    check_attr_ok(S("aria-label"));
    check_attr_ok(S("donn\xC3\xA9"
                    "es"));                       /* é */
    check_attr_ok(S("\xE6\x97\xA5\xE6\x9C\xAC")); /* 日本 */
    check_attr_ok(S("x\xC2\xA0y"));               /* U+00A0 is not ASCII space */
    check_attr_ok(S("\xF0\x9F\x98\x80"));
    check_attr_bad(S(""), MARKUP_ERR_INVALID_ATTR_NAME, 0);
    check_attr_bad(S("on click"), MARKUP_ERR_INVALID_ATTR_NAME, 2);
    check_attr_bad(S("a=b"), MARKUP_ERR_INVALID_ATTR_NAME, 1);
    check_attr_bad(S("x\"onload"), MARKUP_ERR_INVALID_ATTR_NAME, 1);
    check_attr_bad(S("/"), MARKUP_ERR_INVALID_ATTR_NAME, 0);
    check_attr_bad(S("ab\xC2\x80"), MARKUP_ERR_INVALID_ATTR_NAME, 2);  /* U+0080 */
    check_attr_bad(S("ab\xC2\x9F"), MARKUP_ERR_INVALID_ATTR_NAME, 2);  /* U+009F */
    check_attr_bad(S("ab\xC2\x85z"), MARKUP_ERR_INVALID_ATTR_NAME, 2); /* NEL */
    check_attr_bad(S("ab\xC3"), MARKUP_ERR_INVALID_UTF8, 2);
    check_attr_bad(S("ab\xFF"), MARKUP_ERR_INVALID_UTF8, 2);
    check_attr_bad(S("\x80x"), MARKUP_ERR_INVALID_UTF8, 0);
    check_attr_bad(S("a\xED\xA0\x80"), MARKUP_ERR_INVALID_UTF8, 1); /* surrogate */
    check_attr_bad(S("a\xC0\xBC"), MARKUP_ERR_INVALID_UTF8, 1);     /* overlong '<' */
    markup_error err;
    assert_int_equal(markup_html_check_attr_name(NULL, 1, &err), MARKUP_ERR_INVALID_ARG);
}

static void test_every_ascii_byte_in_attr_name(void **state) {
    (void)state;
    static const char rejected_chars[] = "\"'<>/=&\\`";
    for (int c = 0; c < 128; c++) {
        bool whitespace = c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
        bool control = c < 0x20 || c == 0x7F;
        bool listed = c != 0 && strchr(rejected_chars, c) != NULL;
        bool rejected = whitespace || control || listed;
        char name[3] = {'a', 'b', (char)c};
        if (rejected) {
            check_attr_bad(name, 3, MARKUP_ERR_INVALID_ATTR_NAME, 2);
            check_attr_bad(name + 2, 1, MARKUP_ERR_INVALID_ATTR_NAME, 0);
        } else {
            check_attr_ok(name, 3);
            check_attr_ok(name + 2, 1);
        }
    }
    /* every C1 control, and the first code point after them */
    for (int c = 0x80; c <= 0xA0; c++) {
        char name[3] = {'x', (char)0xC2, (char)c};
        if (c <= 0x9F)
            check_attr_bad(name, 3, MARKUP_ERR_INVALID_ATTR_NAME, 1);
        else
            check_attr_ok(name, 3);
    }
}

/* ---- raw text ---------------------------------------------------------- */

static void check_raw(markup_tag_kind kind, const char *s, size_t n, bool ok, size_t pos) {
    markup_error err = {MARKUP_ERR_NOMEM, 99, "stale", "stale", "stale", "stale"};
    markup_status st = markup_html_check_raw_text(kind, s, n, &err);
    if (ok) {
        if (st != MARKUP_OK) {
            print_error("raw text \"%.*s\" rejected\n", (int)n, s ? s : "");
            fail();
        }
        return;
    }
    if (st != MARKUP_ERR_RAW_TEXT || err.pos != pos) {
        print_error("raw text \"%.*s\": status %d pos %zu, expected RAW_TEXT at %zu\n", (int)n,
                    s ? s : "", st, err.pos, pos);
        fail();
    }
    assert_int_equal(err.code, MARKUP_ERR_RAW_TEXT);
    assert_non_null(err.msg);
    /* Each sequence would end (or, "<!--", move the end of) the element
       whose text it is. */
    assert_string_equal(err.element, kind == MARKUP_TAG_SCRIPT ? "script" : "style");
}

static void test_raw_text_checks(void **state) {
    (void)state;
    const markup_tag_kind script = MARKUP_TAG_SCRIPT, style = MARKUP_TAG_STYLE;
    check_raw(script, S("if (a < b && c > d) { x = '</p>'; }"), true, 0);
    check_raw(script, S("x</script>"), false, 1);
    check_raw(script, S("x</SCRIPT>"), false, 1);
    check_raw(script, S("</ScRiPt"), false, 0);
    check_raw(script, S("a</script"), false, 1);
    check_raw(script, S("<</script x"), false, 1);
    check_raw(script, S("</scrip"), true, 0);
    check_raw(script, S("</scriptx"), false, 0); /* "</script" followed by anything */
    check_raw(script, S("< /script"), true, 0);
    check_raw(script, S("<!--"), false, 0);
    check_raw(script, S("a <!-- b"), false, 2);
    check_raw(script, S("<!-"), true, 0);
    check_raw(script, S("<!---->"), false, 0);
    check_raw(script, S("</style>"), true, 0);
    check_raw(script, S("-->"), true, 0);
    check_raw(style, S("p::after { content: '<b>' }"), true, 0);
    check_raw(style, S("a</style>"), false, 1);
    check_raw(style, S("a</STYLE"), false, 1);
    check_raw(style, S("</StYlE "), false, 0);
    check_raw(style, S("</styl"), true, 0);
    check_raw(style, S("<!--"), true, 0);
    check_raw(style, S("</script>"), true, 0);
    check_raw(MARKUP_TAG_NORMAL, S("</script><!--</style>"), true, 0);
    check_raw(MARKUP_TAG_VOID, S("</script>"), true, 0);
    check_raw(script, NULL, 0, true, 0);
    /* Other end tags are a matter for markup_html_check_text_inside. */
    check_raw(script, S("document.write('<iframe></iframe>')"), true, 0);
    check_raw(style, S("/* </title> */"), true, 0);
    /* A NUL does not hide what follows it. */
    check_raw(script, S("a\0</script>"), false, 2);
    markup_error err;
    assert_int_equal(markup_html_check_raw_text(script, NULL, 2, &err), MARKUP_ERR_INVALID_ARG);
}

/* Inside the elements whose content a parser reads as text, a <script> or
   <style> is their text: its raw text may not hold their end tags. */
static void test_text_elements(void **state) {
    (void)state;
    static const char *const names[] = {"title", "textarea", "noscript", "iframe",
                                        "xmp",   "noembed",  "noframes"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *name = names[i];
        size_t len = strlen(name);
        assert_true(markup_html_reads_as_text(name, len));
        char upper[16];
        for (size_t k = 0; k <= len; k++)
            upper[k] = (char)(name[k] >= 'a' ? name[k] - 32 : name[k]);
        assert_true(markup_html_reads_as_text(upper, len));
        assert_false(markup_html_reads_as_text(name, len - 1)); /* "titl" */
        char text[32];
        int n = snprintf(text, sizeof text, "a </%s>", upper);
        markup_error err = {MARKUP_ERR_NOMEM, 99, "stale", "stale", "stale", "stale"};
        assert_int_equal(markup_html_check_text_inside(text, (size_t)n, &err), MARKUP_ERR_RAW_TEXT);
        assert_int_equal(err.pos, 2);
        assert_non_null(err.msg);
        assert_string_equal(err.element, name); /* lower case, as refused + 2 */
        /* One letter short is no end tag. */
        assert_int_equal(markup_html_check_text_inside(text, (size_t)n - 2, NULL), MARKUP_OK);
    }
    static const char *const others[] = {"script", "style", "div", "textareas", "svg", ""};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        assert_false(markup_html_reads_as_text(others[i], strlen(others[i])));
    assert_false(markup_html_reads_as_text(NULL, 5));
    assert_int_equal(markup_html_check_text_inside(S("a </script> </p> <!--"), NULL), MARKUP_OK);
    assert_int_equal(markup_html_check_text_inside(S("</titles"), NULL), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_html_check_text_inside(NULL, 0, NULL), MARKUP_OK);
    assert_int_equal(markup_html_check_text_inside(NULL, 3, NULL), MARKUP_ERR_INVALID_ARG);
}

/* ---- writers ----------------------------------------------------------- */

static void test_writers(void **state) {
    (void)state;
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    assert_int_equal(markup_html_write_doctype(&buf), MARKUP_OK);
    assert_int_equal(markup_html_write_open(&buf, S("input")), MARKUP_OK);
    assert_int_equal(markup_html_write_attr(&buf, S("value"), S("a \"b\" & 'c' <d>")), MARKUP_OK);
    assert_int_equal(markup_html_write_attr_html(&buf, S("title"), S("&amp; ok")), MARKUP_OK);
    assert_int_equal(markup_html_write_attr_bare(&buf, S("disabled")), MARKUP_OK);
    assert_int_equal(markup_html_write_attr(&buf, S("data-n"), S("0")), MARKUP_OK);
    assert_int_equal(markup_html_write_attr(&buf, S("alt"), NULL, 0), MARKUP_OK);
    assert_int_equal(markup_buf_putc(&buf, '>'), MARKUP_OK);
    assert_int_equal(markup_html_write_comment(&buf, S(" a --> <b> ")), MARKUP_OK);
    assert_int_equal(markup_html_write_comment(&buf, NULL, 0), MARKUP_OK);
    assert_int_equal(markup_html_write_close(&buf, S("div")), MARKUP_OK);
    assert_buf_equals(
        &buf, "<!doctype html><input value=\"a &#34;b&#34; &amp; &#39;c&#39; &lt;d&gt;\""
              " title=\"&amp; ok\" disabled data-n=\"0\" alt=\"\"><!-- a --&gt; &lt;b&gt; -->"
              "<!----></div>");
    size_t len = buf.len;
    assert_int_equal(markup_html_write_open(NULL, S("p")), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_html_write_open(&buf, NULL, 1), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_html_write_attr(&buf, S("a"), NULL, 1), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_html_write_attr_bare(&buf, NULL, 2), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_html_write_close(&buf, NULL, 2), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_html_write_comment(&buf, NULL, 2), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_html_write_doctype(NULL), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(buf.len, len);
    markup_buf_free(&buf);
}

/* Runs every writer with allocation N failing, N = 0, 1, ...: a failing
   writer leaves the buffer exactly as it was. */
static void test_writers_roll_back_on_failure(void **state) {
    (void)state;
    char value[3000];
    for (size_t i = 0; i < sizeof value; i++) value[i] = "ab<&\"c"[i % 6];
    for (size_t fail_at = 0;; fail_at++) {
        test_alloc ta;
        test_alloc_init(&ta, fail_at);
        markup_buf buf;
        markup_buf_init(&buf, &ta.alc);
        markup_status st = MARKUP_OK;
        size_t step = 0;
        for (; st == MARKUP_OK && step < 9; step++) {
            size_t before = buf.len;
            char *snapshot = NULL;
            if (before) {
                snapshot = malloc(before);
                memcpy(snapshot, buf.data, before);
            }
            switch (step) {
            case 0: st = markup_html_write_doctype(&buf); break;
            case 1: st = markup_html_write_open(&buf, S("custom-element-with-a-long-name")); break;
            case 2: st = markup_html_write_attr(&buf, S("data-value"), value, sizeof value); break;
            case 3: st = markup_html_write_attr_html(&buf, S("title"), value, sizeof value); break;
            case 4: st = markup_html_write_attr_bare(&buf, S("hidden")); break;
            case 5: st = markup_buf_putc(&buf, '>'); break;
            case 6: st = markup_html_write_comment(&buf, value, sizeof value); break;
            case 7: st = markup_html_write_comment(&buf, value, sizeof value); break;
            case 8: st = markup_html_write_close(&buf, S("custom-element-with-a-long-name")); break;
            }
            if (st != MARKUP_OK) {
                assert_int_equal(st, MARKUP_ERR_NOMEM);
                assert_int_equal(buf.len, before);
                if (before) assert_memory_equal(buf.data, snapshot, before);
            }
            free(snapshot);
        }
        markup_buf_free(&buf);
        assert_int_equal(ta.live_bytes, 0);
        assert_int_equal(ta.size_mismatches, 0);
        if (st == MARKUP_OK) {
            assert_true(fail_at > 3);
            break;
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tag_names),
        cmocka_unit_test(test_attr_name_examples),
        cmocka_unit_test(test_every_ascii_byte_in_attr_name),
        cmocka_unit_test(test_raw_text_checks),
        cmocka_unit_test(test_text_elements),
        cmocka_unit_test(test_writers),
        cmocka_unit_test(test_writers_roll_back_on_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
