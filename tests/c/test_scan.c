/* test_scan.c - markup_scan: the place a value inserted after some static
   HTML stands in, as the standard's tokenizer reads that HTML. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "markup/markup.h"

/* One case: the text before the value ("|" marks earlier values), where the
   value stands, and the tag and attribute markup_scan_at names. */
typedef struct {
    const char *before;
    markup_place place;
    const char *tag;
    const char *attr;
    char quote;
    bool value_start;
} place_case;

static void scan_before(markup_scan *scan, const char *before) {
    markup_scan_init(scan);
    const char *s = before;
    for (const char *bar; (bar = strchr(s, '|')) != NULL; s = bar + 1) {
        markup_scan_text(scan, s, (size_t)(bar - s));
        markup_scan_value(scan);
    }
    markup_scan_text(scan, s, strlen(s));
}

static void check_place(const place_case *c) {
    markup_scan scan;
    scan_before(&scan, c->before);
    markup_scan_where where;
    markup_scan_at(&scan, &where);
    bool same = where.place == c->place && where.tag_len == strlen(c->tag) &&
                memcmp(where.tag, c->tag, where.tag_len) == 0 &&
                where.attr_len == strlen(c->attr) &&
                memcmp(where.attr, c->attr, where.attr_len) == 0 && where.quote == c->quote &&
                where.value_start == c->value_start;
    if (!same) {
        print_error("after \"%s\": place %d tag \"%.*s\" attr \"%.*s\" quote %d start %d, "
                    "expected %d \"%s\" \"%s\" %d %d\n",
                    c->before, where.place, (int)where.tag_len, where.tag, (int)where.attr_len,
                    where.attr, where.quote, where.value_start, c->place, c->tag, c->attr, c->quote,
                    c->value_start);
        fail();
    }
}

static void test_text_and_raw_text(void **state) {
    (void)state;
    static const place_case cases[] = {
        {"", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<p class=x>Hello ", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"a < b ", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<script>var x = ", MARKUP_PLACE_RAW_TEXT, "script", "", 0, false},
        {"<SCRIPT type=module>if (a<b) ", MARKUP_PLACE_RAW_TEXT, "script", "", 0, false},
        {"<script>'</scrip", MARKUP_PLACE_RAW_TEXT, "script", "", 0, false},
        {"<script></style>", MARKUP_PLACE_RAW_TEXT, "script", "", 0, false},
        {"<script>x</script>", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<script>x</SCRIPT >", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<style>p{}</style >after", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<style>a {", MARKUP_PLACE_RAW_TEXT, "style", "", 0, false},
        {"<title>", MARKUP_PLACE_RCDATA, "title", "", 0, false},
        {"<textarea name=t><p>", MARKUP_PLACE_RCDATA, "textarea", "", 0, false},
        {"<textarea></textarea><p>", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<iframe>", MARKUP_PLACE_RAW_TEXT, "iframe", "", 0, false},
        {"<noscript>", MARKUP_PLACE_RAW_TEXT, "noscript", "", 0, false},
        {"<plaintext></plaintext>", MARKUP_PLACE_RAW_TEXT, "plaintext", "", 0, false},
        {"</script><script/>", MARKUP_PLACE_RAW_TEXT, "script", "", 0, false},
        {"<scripts>", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<|>", MARKUP_PLACE_TEXT, "", "", 0, false}, /* a tag named by a value */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_place(&cases[i]);
}

static void test_tags_and_attributes(void **state) {
    (void)state;
    static const place_case cases[] = {
        {"<", MARKUP_PLACE_TAG_NAME, "", "", 0, false},
        {"</", MARKUP_PLACE_TAG_NAME, "", "", 0, false},
        {"<h", MARKUP_PLACE_TAG_NAME, "h", "", 0, false},
        {"<di|", MARKUP_PLACE_TAG_NAME, "", "", 0, false},
        {"<div ", MARKUP_PLACE_ATTR_NAME, "div", "", 0, false},
        {"<DIV id=a ", MARKUP_PLACE_ATTR_NAME, "div", "", 0, false},
        {"<div hidden", MARKUP_PLACE_ATTR_NAME, "div", "", 0, false},
        {"<div a=\"1\"", MARKUP_PLACE_ATTR_NAME, "div", "", 0, false},
        {"<br/", MARKUP_PLACE_ATTR_NAME, "br", "", 0, false},
        {"<a href=", MARKUP_PLACE_ATTR_VALUE, "a", "href", 0, true},
        {"<a HREF = ", MARKUP_PLACE_ATTR_VALUE, "a", "href", 0, true},
        {"<a href=\"", MARKUP_PLACE_ATTR_VALUE, "a", "href", '"', true},
        {"<a href='/u/", MARKUP_PLACE_ATTR_VALUE, "a", "href", '\'', false},
        {"<a href=\"|", MARKUP_PLACE_ATTR_VALUE, "a", "href", '"', false},
        {"<a href=|", MARKUP_PLACE_ATTR_VALUE, "a", "href", 0, false},
        {"<a title=\"it's > \" onclick=\"f(", MARKUP_PLACE_ATTR_VALUE, "a", "onclick", '"', false},
        {"<a data-|=\"", MARKUP_PLACE_ATTR_VALUE, "a", "", '"', true},
        {"<a =x ", MARKUP_PLACE_ATTR_NAME, "a", "", 0, false},
        {"<a =x=", MARKUP_PLACE_ATTR_VALUE, "a", "=x", 0, true},
        {"<a x=1>", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<script src=\"/a.js\"></script><a href=", MARKUP_PLACE_ATTR_VALUE, "a", "href", 0, true},
        {"<textarea>\"<a href=\"", MARKUP_PLACE_RCDATA, "textarea", "", 0, false},
        {"<script>x</script foo=\"", MARKUP_PLACE_ATTR_VALUE, "script", "foo", '"', true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_place(&cases[i]);
}

static void test_comments(void **state) {
    (void)state;
    static const place_case cases[] = {
        {"<!-- ", MARKUP_PLACE_COMMENT, "", "", 0, false},
        {"<!-- a -- b ->", MARKUP_PLACE_COMMENT, "", "", 0, false},
        {"<!-- a -->", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<!-- a --!>", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<!-->", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<!--->", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<!---->", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<!-- --|>", MARKUP_PLACE_COMMENT, "", "", 0, false},
        {"<!doctype ", MARKUP_PLACE_COMMENT, "", "", 0, false},
        {"<!doctype html>", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<?xml ", MARKUP_PLACE_COMMENT, "", "", 0, false},
        {"</ x", MARKUP_PLACE_COMMENT, "", "", 0, false},
        {"<script><!-- ", MARKUP_PLACE_RAW_TEXT, "script", "", 0, false},
        {"<script><!-- </script>", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<script><!-- <script></script>", MARKUP_PLACE_RAW_TEXT, "script", "", 0, false},
        {"<script><!--<script>--></script>", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<script><!--<script></script>--></script>", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<script><!--<script></script></script>", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<script><!--<scripts></script>", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<script><!-></script>", MARKUP_PLACE_TEXT, "", "", 0, false},
        {"<style><!--<style></style>", MARKUP_PLACE_TEXT, "", "", 0, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_place(&cases[i]);
}

/* Text read in pieces leaves the scanner where reading it whole does. */
static void test_pieces(void **state) {
    (void)state;
    static const char *const texts[] = {
        "<script type=\"module\">a</script><a href='x' onclick=y>",
        "<!-- c --><title>t</title><p data-x=\"1\">",
        "<style>p{}</STYLE><textarea>",
    };
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        const char *s = texts[t];
        size_t n = strlen(s);
        for (size_t cut = 0; cut <= n; cut++) {
            markup_scan whole, pieces;
            markup_scan_init(&whole);
            markup_scan_init(&pieces);
            markup_scan_text(&whole, s, cut);
            markup_scan_text(&pieces, s, 0);
            for (size_t i = 0; i < cut; i++) markup_scan_text(&pieces, s + i, 1);
            markup_scan_where a, b;
            markup_scan_at(&whole, &a);
            markup_scan_at(&pieces, &b);
            assert_int_equal(a.place, b.place);
            assert_int_equal(a.tag_len, b.tag_len);
            assert_memory_equal(a.tag, b.tag, a.tag_len);
            assert_int_equal(a.attr_len, b.attr_len);
            assert_memory_equal(a.attr, b.attr, a.attr_len);
        }
    }
}

/* Names longer than the scanner keeps are cut, never overrun. */
static void test_long_names(void **state) {
    (void)state;
    char text[400];
    memset(text, 'a', sizeof text);
    text[0] = '<';
    text[200] = ' ';
    text[399] = '=';
    markup_scan scan;
    markup_scan_init(&scan);
    markup_scan_text(&scan, text, sizeof text);
    markup_scan_where where;
    markup_scan_at(&scan, &where);
    assert_int_equal(where.place, MARKUP_PLACE_ATTR_VALUE);
    assert_int_equal(where.tag_len, 31);
    assert_int_equal(where.attr_len, 63);
    assert_true(where.value_start);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_and_raw_text), cmocka_unit_test(test_tags_and_attributes),
        cmocka_unit_test(test_comments),          cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_long_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
