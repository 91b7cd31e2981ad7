/* test_baked.c: baked templates (static HTML plus slots). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "markup/binding.h"
#include "test_alloc.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                    */
/* ------------------------------------------------------------------------ */

/* The escaping rule written out independently of libmarkup. */
static void ref_escape(markup_buf *buf, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const char *rep;
        switch (s[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&#34;"; break;
        case '\'': rep = "&#39;"; break;
        default: assert_int_equal(markup_buf_putc(buf, s[i]), MARKUP_OK); continue;
        }
        assert_int_equal(markup_buf_append(buf, rep, strlen(rep)), MARKUP_OK);
    }
}

static void put(markup_buf *buf, const char *s) {
    assert_int_equal(markup_buf_append(buf, s, strlen(s)), MARKUP_OK);
}

static markup_value text(const char *s) { return (markup_value){MARKUP_VALUE_TEXT, s, strlen(s)}; }
static markup_value html(const char *s) { return (markup_value){MARKUP_VALUE_HTML, s, strlen(s)}; }
static const markup_value TRUE_VALUE = {MARKUP_VALUE_TRUE, NULL, 0};
static const markup_value OMIT_VALUE = {MARKUP_VALUE_OMIT, NULL, 0};

/* Builds a template from a tiny pattern: '#' is a child slot, '@name;' an
   attribute slot, anything else static text. */
static markup_baked *bake(const char *pattern) {
    markup_baked_builder *b = NULL;
    assert_int_equal(markup_baked_builder_new(NULL, &b), MARKUP_OK);
    const char *p = pattern;
    while (*p) {
        if (*p == '#') {
            assert_int_equal(markup_baked_builder_add_child_slot(b), MARKUP_OK);
            p++;
        } else if (*p == '@') {
            const char *end = strchr(p, ';');
            assert_non_null(end);
            assert_int_equal(
                markup_baked_builder_add_attr_slot(b, p + 1, (size_t)(end - p - 1), NULL),
                MARKUP_OK);
            p = end + 1;
        } else {
            size_t n = strcspn(p, "#@");
            assert_int_equal(markup_baked_builder_add_static(b, p, n), MARKUP_OK);
            p += n;
        }
    }
    markup_baked *tpl = NULL;
    assert_int_equal(markup_baked_builder_finish(b, &tpl, NULL), MARKUP_OK);
    assert_non_null(tpl);
    return tpl;
}

static void assert_renders(const markup_baked *tpl, const markup_value *values, size_t n,
                           const char *expected) {
    markup_buf out;
    markup_buf_init(&out, NULL);
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_baked_render(tpl, values, n, &out, &err), MARKUP_OK);
    size_t len = strlen(expected);
    if (out.len != len || (len && memcmp(out.data, expected, len) != 0))
        fail_msg("rendered \"%.*s\", expected \"%s\"", (int)out.len, out.data ? out.data : "",
                 expected);
    markup_buf_free(&out);
}

/* ------------------------------------------------------------------------ */
/* Shapes                                                                     */
/* ------------------------------------------------------------------------ */

static void test_child_slot_escapes_text(void **state) {
    (void)state;
    markup_baked *tpl = bake("<p>#</p>");
    markup_value v = text("a<b");
    assert_renders(tpl, &v, 1, "<p>a&lt;b</p>");
    markup_baked_free(tpl);
}

static void test_static_only(void **state) {
    (void)state;
    markup_baked *tpl = bake("<!doctype html><html><body>hi</body></html>");
    assert_int_equal(markup_baked_slot_count(tpl), 0);
    assert_int_equal(markup_baked_static_size(tpl), 43);
    assert_renders(tpl, NULL, 0, "<!doctype html><html><body>hi</body></html>");

    /* Appends after what the buffer already holds. */
    markup_buf out;
    markup_buf_init(&out, NULL);
    put(&out, "pre:");
    assert_int_equal(markup_baked_render(tpl, NULL, 0, &out, NULL), MARKUP_OK);
    assert_int_equal(out.len, 4 + 43);
    assert_memory_equal(out.data, "pre:<!doctype html>", 19);
    markup_buf_free(&out);
    markup_baked_free(tpl);
}

static void test_empty_template(void **state) {
    (void)state;
    markup_baked_builder *b = NULL;
    markup_baked *tpl = NULL;
    assert_int_equal(markup_baked_builder_new(NULL, &b), MARKUP_OK);
    assert_int_equal(markup_baked_builder_finish(b, &tpl, NULL), MARKUP_OK);
    assert_int_equal(markup_baked_slot_count(tpl), 0);
    assert_int_equal(markup_baked_static_size(tpl), 0);
    /* Nothing to write: no allocation (the first one would fail). */
    test_alloc ta;
    test_alloc_init(&ta, 0);
    markup_buf out;
    markup_buf_init(&out, &ta.alc);
    assert_int_equal(markup_baked_render(tpl, NULL, 0, &out, NULL), MARKUP_OK);
    assert_int_equal(out.len, 0);
    assert_int_equal(ta.calls, 0);
    markup_buf_free(&out);
    markup_baked_free(tpl);
}

static void test_room_made_for_the_values_given(void **state) {
    (void)state;
    /* Room is made for the short text values escaped (5x). The lengths of
       TRUE and OMIT values are not read: garbage there changes nothing. */
    enum { SLOTS = 200 };
    markup_baked_builder *b = NULL;
    assert_int_equal(markup_baked_builder_new(NULL, &b), MARKUP_OK);
    for (int i = 0; i < SLOTS; i++) {
        assert_int_equal(markup_baked_builder_add_static(b, "<i", 2), MARKUP_OK);
        assert_int_equal(markup_baked_builder_add_attr_slot(b, "hidden", 6, NULL), MARKUP_OK);
        assert_int_equal(markup_baked_builder_add_static(b, ">", 1), MARKUP_OK);
        assert_int_equal(markup_baked_builder_add_child_slot(b), MARKUP_OK);
        assert_int_equal(markup_baked_builder_add_static(b, "</i>", 4), MARKUP_OK);
    }
    markup_baked *tpl = NULL;
    assert_int_equal(markup_baked_builder_finish(b, &tpl, NULL), MARKUP_OK);
    markup_value values[2 * SLOTS];
    for (int i = 0; i < SLOTS; i++) {
        values[2 * i] = (markup_value){i % 2 ? MARKUP_VALUE_TRUE : MARKUP_VALUE_OMIT, NULL, 64};
        values[2 * i + 1] = (markup_value){MARKUP_VALUE_OMIT, "unread", 64};
    }
    test_alloc ta;
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_buf out;
    markup_buf_init(&out, &ta.alc);
    assert_int_equal(markup_baked_render(tpl, values, 2 * SLOTS, &out, NULL), MARKUP_OK);
    assert_int_equal(out.len, SLOTS * 7 + (SLOTS / 2) * 7); /* "<i></i>", " hidden" */
    /* static text and the attribute names: no room for 400 values of 64 */
    assert_true(ta.peak_bytes < 4 * out.len);
    markup_buf_free(&out);

    /* Text values do get room, once: a single allocation of at least the
       output's size. */
    for (int i = 0; i < SLOTS; i++) values[2 * i + 1] = text("&&&&&&&&&&");
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_buf_init(&out, &ta.alc);
    assert_int_equal(markup_baked_render(tpl, values, 2 * SLOTS, &out, NULL), MARKUP_OK);
    assert_int_equal(out.len, SLOTS * 7 + (SLOTS / 2) * 7 + SLOTS * 50);
    assert_int_equal(ta.calls, 1);
    markup_buf_free(&out);
    markup_baked_free(tpl);
}

static void test_slots_at_start_and_end(void **state) {
    (void)state;
    markup_baked *tpl = bake("#<hr>#");
    assert_int_equal(markup_baked_slot_count(tpl), 2);
    assert_int_equal(markup_baked_static_size(tpl), 4);
    markup_value v[2] = {text("A&"), text("\"Z\"")};
    assert_renders(tpl, v, 2, "A&amp;<hr>&#34;Z&#34;");
    markup_baked_free(tpl);

    tpl = bake("#");
    markup_value one = text("only");
    assert_renders(tpl, &one, 1, "only");
    markup_baked_free(tpl);
}

static void test_adjacent_slots_and_statics(void **state) {
    (void)state;
    markup_baked_builder *b = NULL;
    assert_int_equal(markup_baked_builder_new(NULL, &b), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_static(b, "<in", 3), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_static(b, "put", 3), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_static(b, NULL, 0), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_attr_slot(b, "type", 4, NULL), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_attr_slot(b, "checked", 7, NULL), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_static(b, ">", 1), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_child_slot(b), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_child_slot(b), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_child_slot(b), MARKUP_OK);
    markup_baked *tpl = NULL;
    assert_int_equal(markup_baked_builder_finish(b, &tpl, NULL), MARKUP_OK);

    assert_int_equal(markup_baked_static_size(tpl), 7);
    assert_int_equal(markup_baked_slot_count(tpl), 5);
    markup_slot_kind kind = MARKUP_SLOT_CHILD;
    assert_int_equal(markup_baked_slot_kind(tpl, 0, &kind), MARKUP_OK);
    assert_int_equal(kind, MARKUP_SLOT_ATTR);
    assert_int_equal(markup_baked_slot_kind(tpl, 1, &kind), MARKUP_OK);
    assert_int_equal(kind, MARKUP_SLOT_ATTR);
    assert_int_equal(markup_baked_slot_kind(tpl, 4, &kind), MARKUP_OK);
    assert_int_equal(kind, MARKUP_SLOT_CHILD);
    /* Past the last slot: an error, and *kind untouched. */
    kind = MARKUP_SLOT_ATTR;
    assert_int_equal(markup_baked_slot_kind(tpl, 5, &kind), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(kind, MARKUP_SLOT_ATTR);
    assert_int_equal(markup_baked_slot_kind(tpl, 0, NULL), MARKUP_ERR_INVALID_ARG);

    markup_value v[5] = {text("checkbox"), TRUE_VALUE, text("a"), html("<b>"), text("c")};
    assert_renders(tpl, v, 5, "<input type=\"checkbox\" checked>a<b>c");
    markup_value w[5] = {OMIT_VALUE, OMIT_VALUE, OMIT_VALUE, OMIT_VALUE, text("")};
    assert_renders(tpl, w, 5, "<input>");
    markup_baked_free(tpl);
}

/* 10000 slots, alternating kinds, against the same page written by hand. */
static void test_ten_thousand_slots(void **state) {
    (void)state;
    enum { ROWS = 5000 };
    static const char *const samples[] = {
        "", "plain", "Tea & cake", "<i>\"q\"</i>", "it's", "caf\xc3\xa9 \xe2\x82\xac"};
    const size_t nsamples = sizeof samples / sizeof samples[0];

    markup_baked_builder *b = NULL;
    assert_int_equal(markup_baked_builder_new(NULL, &b), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_static(b, "<ul>", 4), MARKUP_OK);
    for (int i = 0; i < ROWS; i++) {
        assert_int_equal(markup_baked_builder_add_static(b, "<li", 3), MARKUP_OK);
        assert_int_equal(markup_baked_builder_add_attr_slot(b, "data-id", 7, NULL), MARKUP_OK);
        assert_int_equal(markup_baked_builder_add_static(b, ">", 1), MARKUP_OK);
        assert_int_equal(markup_baked_builder_add_child_slot(b), MARKUP_OK);
        assert_int_equal(markup_baked_builder_add_static(b, "</li>", 5), MARKUP_OK);
    }
    assert_int_equal(markup_baked_builder_add_static(b, "</ul>", 5), MARKUP_OK);
    markup_baked *tpl = NULL;
    assert_int_equal(markup_baked_builder_finish(b, &tpl, NULL), MARKUP_OK);
    assert_int_equal(markup_baked_slot_count(tpl), 2 * ROWS);
    assert_int_equal(markup_baked_static_size(tpl), 9 + (size_t)ROWS * 9);

    markup_value *values = calloc(2 * ROWS, sizeof *values);
    assert_non_null(values);
    markup_buf expected;
    markup_buf_init(&expected, NULL);
    put(&expected, "<ul>");
    for (int i = 0; i < ROWS; i++) {
        const char *attr = samples[(size_t)i % nsamples];
        const char *child = samples[(size_t)(i * 7 + 3) % nsamples];
        /* Every fourth row omits the attribute, every ninth passes HTML. */
        values[2 * i] = i % 4 == 3 ? OMIT_VALUE : text(attr);
        values[2 * i + 1] = i % 9 == 0 ? html(child) : text(child);
        put(&expected, "<li");
        if (i % 4 != 3) {
            put(&expected, " data-id=\"");
            ref_escape(&expected, attr, strlen(attr));
            put(&expected, "\"");
        }
        put(&expected, ">");
        if (i % 9 == 0)
            put(&expected, child);
        else
            ref_escape(&expected, child, strlen(child));
        put(&expected, "</li>");
    }
    put(&expected, "</ul>");

    markup_buf out;
    markup_buf_init(&out, NULL);
    assert_int_equal(markup_baked_render(tpl, values, 2 * ROWS, &out, NULL), MARKUP_OK);
    assert_int_equal(out.len, expected.len);
    assert_memory_equal(out.data, expected.data, expected.len);

    markup_buf_free(&out);
    markup_buf_free(&expected);
    free(values);
    markup_baked_free(tpl);
}

/* ------------------------------------------------------------------------ */
/* Values                                                                     */
/* ------------------------------------------------------------------------ */

static void test_child_value_kinds(void **state) {
    (void)state;
    markup_baked *tpl = bake("<p>#</p>");
    markup_value v = text("1 < 2 & \"3\" > '0'");
    assert_renders(tpl, &v, 1, "<p>1 &lt; 2 &amp; &#34;3&#34; &gt; &#39;0&#39;</p>");
    v = html("<em>1 &lt; 2</em>");
    assert_renders(tpl, &v, 1, "<p><em>1 &lt; 2</em></p>");
    assert_renders(tpl, &OMIT_VALUE, 1, "<p></p>");
    v = text("");
    assert_renders(tpl, &v, 1, "<p></p>");
    v = (markup_value){MARKUP_VALUE_TEXT, NULL, 0};
    assert_renders(tpl, &v, 1, "<p></p>");
    v = text("\xe6\x97\xa5\xe6\x9c\xac & \xf0\x9f\x8d\xb5");
    assert_renders(tpl, &v, 1, "<p>\xe6\x97\xa5\xe6\x9c\xac &amp; \xf0\x9f\x8d\xb5</p>");

    /* TRUE has no meaning as a child. */
    markup_buf out;
    markup_buf_init(&out, NULL);
    put(&out, "keep");
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_baked_render(tpl, &TRUE_VALUE, 1, &out, &err), MARKUP_ERR_SLOT_VALUE);
    assert_int_equal(err.code, MARKUP_ERR_SLOT_VALUE);
    assert_non_null(err.msg);
    assert_int_equal(out.len, 4);
    markup_buf_free(&out);
    markup_baked_free(tpl);
}

static void test_attr_value_kinds(void **state) {
    (void)state;
    markup_baked *tpl = bake("<a@href;>x</a>");
    markup_value v = text("/q?a=1&b='2'");
    assert_renders(tpl, &v, 1, "<a href=\"/q?a=1&amp;b=&#39;2&#39;\">x</a>");
    v = html("/q?a=1&amp;b=2");
    assert_renders(tpl, &v, 1, "<a href=\"/q?a=1&amp;b=2\">x</a>");
    assert_renders(tpl, &TRUE_VALUE, 1, "<a href>x</a>");
    assert_renders(tpl, &OMIT_VALUE, 1, "<a>x</a>");
    /* 0 and "" are kept. */
    v = text("");
    assert_renders(tpl, &v, 1, "<a href=\"\">x</a>");
    v = text("0");
    assert_renders(tpl, &v, 1, "<a href=\"0\">x</a>");
    markup_baked_free(tpl);

    tpl = bake("<div@@click;@:class;@x-on:click.prevent;@data-on-click__debounce.500ms;>");
    markup_value w[4] = {text("go()"), text("{a: b > 1}"), TRUE_VALUE, html("$x")};
    assert_renders(tpl, w, 4,
                   "<div @click=\"go()\" :class=\"{a: b &gt; 1}\" x-on:click.prevent"
                   " data-on-click__debounce.500ms=\"$x\">");
    markup_baked_free(tpl);
}

static void test_hostile_text_is_escaped(void **state) {
    (void)state;
    markup_baked *tpl = bake("<div@title;>#</div>");
    const char *attack = "\"><script>alert('x')</script><a b=\"&amp;";
    const char *safe = "&#34;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&lt;a b=&#34;"
                       "&amp;amp;";
    markup_value v[2] = {text(attack), text(attack)};
    char expected[512];
    snprintf(expected, sizeof expected, "<div title=\"%s\">%s</div>", safe, safe);
    assert_renders(tpl, v, 2, expected);
    /* Nothing of the attack survives as markup. */
    markup_buf out;
    markup_buf_init(&out, NULL);
    assert_int_equal(markup_baked_render(tpl, v, 2, &out, NULL), MARKUP_OK);
    size_t quotes = 0, lts = 0;
    for (size_t i = 0; i < out.len; i++) {
        quotes += out.data[i] == '"';
        lts += out.data[i] == '<';
    }
    assert_int_equal(quotes, 2); /* the ones around the title value */
    assert_int_equal(lts, 2);    /* <div and </div */
    markup_buf_free(&out);
    markup_baked_free(tpl);
}

static void test_invalid_utf8_position(void **state) {
    (void)state;
    static const struct {
        const char *s;
        size_t n;
        size_t pos;
    } cases[] = {
        {"abc\xff", 4, 3},              /* never valid              */
        {"ab\xe2\x82", 4, 2},           /* truncated at the end     */
        {"x\xed\xa0\x80y", 5, 1},       /* surrogate U+D800         */
        {"\xc0\xafok", 4, 0},           /* overlong '/'             */
        {"ok \xf4\x90\x80\x80", 7, 3},  /* above U+10FFFF           */
        {"\xc3\xa9\xc3\xa9\x80", 5, 4}, /* stray continuation byte  */
    };
    markup_baked *tpl = bake("<p@title;>#</p>");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int slot = 0; slot < 2; slot++) {
            for (int kind = 0; kind < 2; kind++) {
                markup_value v[2] = {text("fine"), text("fine")};
                v[slot] = (markup_value){kind ? MARKUP_VALUE_HTML : MARKUP_VALUE_TEXT, cases[i].s,
                                         cases[i].n};
                markup_buf out;
                markup_buf_init(&out, NULL);
                put(&out, "before");
                markup_error err = MARKUP_ERROR_INIT;
                assert_int_equal(markup_baked_render(tpl, v, 2, &out, &err),
                                 MARKUP_ERR_INVALID_UTF8);
                assert_int_equal(err.code, MARKUP_ERR_INVALID_UTF8);
                assert_int_equal(err.pos, cases[i].pos);
                assert_int_equal(out.len, 6);
                assert_memory_equal(out.data, "before", 6);
                markup_buf_free(&out);
            }
        }
    }
    /* Invalid bytes in an omitted value are never looked at. */
    markup_value v[2] = {{MARKUP_VALUE_OMIT, "\xff", 1}, text("ok")};
    assert_renders(tpl, v, 2, "<p>ok</p>");
    markup_baked_free(tpl);
}

/* Render's fast path for short plain values must agree with the escaper
   and the validator for every length and every position of a byte that
   needs care. Each value sits in its own exact-size allocation so that a
   sanitizer sees any read past its end. */
static void test_every_length_and_position(void **state) {
    (void)state;
    static const unsigned char probes[] = {'&', '<', '>', '"', '\'', 0x80, 0xC3,
                                           '%', '=', '?', '!', 0x7F, 0x00};
    static const char filler[] = "aZ09 .-;:/()[]{}#%$!=+?@_~`|^";
    markup_baked *tpl = bake("<p@title;>#</p>");
    for (size_t len = 0; len <= 80; len++) {
        for (size_t pos = 0; pos <= len; pos++) {
            for (size_t p = 0; p < sizeof probes; p++) {
                if (pos == len && p > 0) break; /* pos == len: the value without a probe */
                char *value = malloc(len ? len : 1);
                assert_non_null(value);
                for (size_t i = 0; i < len; i++)
                    value[i] = filler[(i * 7 + len) % (sizeof filler - 1)];
                bool lone_lead = false;
                if (pos < len) {
                    value[pos] = (char)probes[p];
                    /* 0xC3 followed by 0xA9 is a valid 'é'; alone it is truncated. */
                    if (probes[p] == 0xC3) {
                        if (pos + 1 < len)
                            value[pos + 1] = (char)0xA9;
                        else
                            lone_lead = true;
                    }
                }
                bool invalid = pos < len && (probes[p] == 0x80 || lone_lead);

                for (int trusted = 0; trusted < 2; trusted++) {
                    markup_value_kind kind = trusted ? MARKUP_VALUE_HTML : MARKUP_VALUE_TEXT;
                    markup_value v[2] = {{kind, value, len}, {kind, value, len}};
                    markup_buf out;
                    markup_buf_init(&out, NULL);
                    markup_error err = MARKUP_ERROR_INIT;
                    markup_status st = markup_baked_render(tpl, v, 2, &out, &err);
                    /* A trusted value's '"' would end the quoted value. */
                    bool quote = trusted && memchr(value, '"', len) != NULL;
                    if (invalid && !quote) {
                        assert_int_equal(st, MARKUP_ERR_INVALID_UTF8);
                        assert_int_equal(err.pos, pos);
                        assert_int_equal(out.len, 0);
                    } else if (quote) {
                        assert_int_equal(st, MARKUP_ERR_RAW_TEXT);
                        assert_string_equal(err.refused, "\"");
                        assert_int_equal(out.len, 0);
                    } else {
                        assert_int_equal(st, MARKUP_OK);
                        markup_buf expected;
                        markup_buf_init(&expected, NULL);
                        put(&expected, "<p title=\"");
                        if (trusted)
                            assert_int_equal(markup_buf_append(&expected, value, len), MARKUP_OK);
                        else
                            ref_escape(&expected, value, len);
                        put(&expected, "\">");
                        if (trusted)
                            assert_int_equal(markup_buf_append(&expected, value, len), MARKUP_OK);
                        else
                            ref_escape(&expected, value, len);
                        put(&expected, "</p>");
                        assert_int_equal(out.len, expected.len);
                        assert_memory_equal(out.data, expected.data, expected.len);
                        markup_buf_free(&expected);
                    }
                    markup_buf_free(&out);
                }
                free(value);
            }
        }
    }
    markup_baked_free(tpl);
}

static void test_wrong_value_count(void **state) {
    (void)state;
    markup_baked *tpl = bake("<p@id;>#</p>");
    markup_value v[3] = {text("a"), text("b"), text("c")};
    markup_buf out;
    markup_buf_init(&out, NULL);
    put(&out, "x");
    for (size_t n = 0; n <= 3; n++) {
        if (n == 2) continue;
        markup_error err = MARKUP_ERROR_INIT;
        assert_int_equal(markup_baked_render(tpl, v, n, &out, &err), MARKUP_ERR_SLOT_COUNT);
        assert_int_equal(err.code, MARKUP_ERR_SLOT_COUNT);
        assert_int_equal(out.len, 1);
    }
    assert_int_equal(markup_baked_render(tpl, v, 2, &out, NULL), MARKUP_OK);
    assert_int_equal(out.len, 1 + strlen("<p id=\"a\">b</p>"));
    markup_buf_free(&out);
    markup_baked_free(tpl);
}

static void test_invalid_arguments(void **state) {
    (void)state;
    markup_baked_builder *b = NULL;
    assert_int_equal(markup_baked_builder_new(NULL, NULL), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_baked_builder_add_static(NULL, "x", 1), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_baked_builder_add_child_slot(NULL), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_baked_builder_finish(NULL, NULL, NULL), MARKUP_ERR_INVALID_ARG);
    markup_baked_builder_free(NULL);
    markup_baked_free(NULL);
    assert_int_equal(markup_baked_slot_count(NULL), 0);
    assert_int_equal(markup_baked_static_size(NULL), 0);

    assert_int_equal(markup_baked_builder_new(NULL, &b), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_static(b, NULL, 3), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_baked_builder_add_attr_slot(b, NULL, 3, NULL), MARKUP_ERR_INVALID_ARG);
    markup_baked *tpl = NULL;
    assert_int_equal(markup_baked_builder_add_child_slot(b), MARKUP_OK);
    assert_int_equal(markup_baked_builder_finish(b, &tpl, NULL), MARKUP_OK);

    markup_buf out;
    markup_buf_init(&out, NULL);
    markup_value v = {MARKUP_VALUE_TEXT, NULL, 5};
    assert_int_equal(markup_baked_render(tpl, &v, 1, &out, NULL), MARKUP_ERR_INVALID_ARG);
    v = (markup_value){(markup_value_kind)42, "x", 1};
    assert_int_equal(markup_baked_render(tpl, &v, 1, &out, NULL), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_baked_render(tpl, NULL, 1, &out, NULL), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_baked_render(NULL, NULL, 0, &out, NULL), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_baked_render(tpl, &v, 1, NULL, NULL), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_baked_render_slots(tpl, NULL, NULL, &out), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(out.len, 0);
    markup_buf_free(&out);
    markup_baked_free(tpl);
}

static void test_attr_slot_names_are_validated(void **state) {
    (void)state;
    static const struct {
        const char *name;
        size_t pos;
    } bad[] = {
        {"", 0},    {"a b", 1},  {"x\"", 1}, {"'", 0}, {"<", 0},    {"a>", 1},   {"on/x", 2},
        {"a=b", 1}, {"&amp", 0}, {"a\\", 1}, {"`", 0}, {"a\tb", 1}, {"\x7f", 0},
    };
    markup_baked_builder *b = NULL;
    assert_int_equal(markup_baked_builder_new(NULL, &b), MARKUP_OK);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        markup_error err = MARKUP_ERROR_INIT;
        assert_int_equal(
            markup_baked_builder_add_attr_slot(b, bad[i].name, strlen(bad[i].name), &err),
            MARKUP_ERR_INVALID_ATTR_NAME);
        assert_int_equal(err.code, MARKUP_ERR_INVALID_ATTR_NAME);
        assert_true(err.pos == (bad[i].name[0] ? bad[i].pos : MARKUP_POS_NONE));
    }
    markup_error err = MARKUP_ERROR_INIT;
    markup_status st = markup_baked_builder_add_attr_slot(b, "a\xff", 2, &err);
    assert_true(st == MARKUP_ERR_INVALID_UTF8 || st == MARKUP_ERR_INVALID_ATTR_NAME);
    assert_int_equal(err.pos, 1);
    /* Rejected names left nothing behind. */
    markup_baked *tpl = NULL;
    assert_int_equal(markup_baked_builder_add_attr_slot(b, "ok", 2, NULL), MARKUP_OK);
    assert_int_equal(markup_baked_builder_finish(b, &tpl, NULL), MARKUP_OK);
    assert_int_equal(markup_baked_slot_count(tpl), 1);
    assert_renders(tpl, &TRUE_VALUE, 1, " ok");
    markup_baked_free(tpl);
}

static void test_write_value_rules(void **state) {
    (void)state;
    markup_buf out;
    markup_buf_init(&out, NULL);
    markup_value v = text("<&>");
    assert_int_equal(markup_baked_write_value(MARKUP_SLOT_CHILD, NULL, 0, &v, &out), MARKUP_OK);
    assert_int_equal(markup_baked_write_value(MARKUP_SLOT_ATTR, "n", 1, &v, &out), MARKUP_OK);
    v = html("<&>");
    assert_int_equal(markup_baked_write_value(MARKUP_SLOT_CHILD, NULL, 0, &v, &out), MARKUP_OK);
    assert_int_equal(markup_baked_write_value(MARKUP_SLOT_ATTR, "n", 1, &v, &out), MARKUP_OK);
    assert_int_equal(markup_baked_write_value(MARKUP_SLOT_ATTR, "n", 1, &TRUE_VALUE, &out),
                     MARKUP_OK);
    assert_int_equal(markup_baked_write_value(MARKUP_SLOT_ATTR, "n", 1, &OMIT_VALUE, &out),
                     MARKUP_OK);
    assert_int_equal(markup_baked_write_value(MARKUP_SLOT_CHILD, NULL, 0, &OMIT_VALUE, &out),
                     MARKUP_OK);
    const char *expected = "&lt;&amp;&gt; n=\"&lt;&amp;&gt;\"<&> n=\"<&>\" n";
    assert_int_equal(out.len, strlen(expected));
    assert_memory_equal(out.data, expected, out.len);

    size_t len = out.len;
    assert_int_equal(markup_baked_write_value(MARKUP_SLOT_CHILD, NULL, 0, &TRUE_VALUE, &out),
                     MARKUP_ERR_SLOT_VALUE);
    assert_int_equal(markup_baked_write_value(MARKUP_SLOT_CHILD, NULL, 0, NULL, &out),
                     MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_baked_write_value((markup_slot_kind)7, "n", 1, &v, &out),
                     MARKUP_ERR_INVALID_ARG);
    assert_int_equal(out.len, len);
    markup_buf_free(&out);
}

/* ------------------------------------------------------------------------ */
/* render_slots                                                                */
/* ------------------------------------------------------------------------ */

typedef struct writer_state {
    size_t calls;
    size_t fail_at; /* slot index that returns `failure`; SIZE_MAX never */
    markup_status failure;
} writer_state;

/* Writes "[index:kind:name]" and checks that names arrive as promised. */
static markup_status describe_slot(void *ctx, size_t slot, markup_slot_kind kind, const char *name,
                                   size_t name_len, bool newline_first, markup_buf *out) {
    writer_state *ws = ctx;
    assert_false(newline_first);
    assert_int_equal(slot, ws->calls);
    ws->calls++;
    if (kind == MARKUP_SLOT_CHILD) assert_null(name);
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, "[%zu:%c:%.*s]", slot, kind == MARKUP_SLOT_ATTR ? 'a' : 'c',
                     (int)name_len, name ? name : "");
    markup_status st = markup_buf_append(out, tmp, (size_t)n);
    if (st != MARKUP_OK) return st;
    return slot == ws->fail_at ? ws->failure : MARKUP_OK;
}

static void test_render_slots_calls_each_slot(void **state) {
    (void)state;
    markup_baked *tpl = bake("#<i@class;@id;>#</i>#");
    writer_state ws = {0, SIZE_MAX, MARKUP_OK};
    markup_buf out;
    markup_buf_init(&out, NULL);
    assert_int_equal(markup_baked_render_slots(tpl, describe_slot, &ws, &out), MARKUP_OK);
    const char *expected = "[0:c:]<i[1:a:class][2:a:id]>[3:c:]</i>[4:c:]";
    assert_int_equal(ws.calls, 5);
    assert_int_equal(out.len, strlen(expected));
    assert_memory_equal(out.data, expected, out.len);
    markup_buf_free(&out);
    markup_baked_free(tpl);
}

static void test_render_slots_error_rolls_back(void **state) {
    (void)state;
    markup_baked *tpl = bake("<p>#</p><p>#</p><p>#</p>");
    for (size_t stop = 0; stop < 3; stop++) {
        writer_state ws = {0, stop, MARKUP_ERR_SLOT_VALUE};
        markup_buf out;
        markup_buf_init(&out, NULL);
        put(&out, "head");
        assert_int_equal(markup_baked_render_slots(tpl, describe_slot, &ws, &out),
                         MARKUP_ERR_SLOT_VALUE);
        assert_int_equal(ws.calls, stop + 1); /* no slot after the failing one */
        assert_int_equal(out.len, 4);
        assert_memory_equal(out.data, "head", 4);
        markup_buf_free(&out);
    }
    markup_baked_free(tpl);
}

/* ------------------------------------------------------------------------ */
/* Allocation failure                                                         */
/* ------------------------------------------------------------------------ */

/* Builds a template of `rows` rows with every allocation going through `alc`.
   Returns the first failing status, with nothing left allocated. */
static markup_status build_rows(const markup_alloc *alc, int rows, markup_baked **out) {
    markup_baked_builder *b = NULL;
    markup_status st = markup_baked_builder_new(alc, &b);
    if (st != MARKUP_OK) return st;
    for (int i = 0; i < rows && st == MARKUP_OK; i++) {
        st = markup_baked_builder_add_static(b, "<li", 3);
        if (st == MARKUP_OK) st = markup_baked_builder_add_attr_slot(b, "data-id", 7, NULL);
        if (st == MARKUP_OK) st = markup_baked_builder_add_static(b, "><span class=\"n\">", 17);
        if (st == MARKUP_OK) st = markup_baked_builder_add_child_slot(b);
        if (st == MARKUP_OK) st = markup_baked_builder_add_static(b, "</span></li>", 12);
    }
    if (st != MARKUP_OK) {
        markup_baked_builder_free(b);
        return st;
    }
    return markup_baked_builder_finish(b, out, NULL);
}

static void test_build_allocation_failure(void **state) {
    (void)state;
    enum { ROWS = 40 };
    size_t n;
    for (n = 0;; n++) {
        test_alloc ta;
        test_alloc_init(&ta, n);
        markup_baked *tpl = NULL;
        markup_status st = build_rows(&ta.alc, ROWS, &tpl);
        if (st == MARKUP_OK) {
            assert_int_equal(markup_baked_slot_count(tpl), 2 * ROWS);
            markup_baked_free(tpl);
            assert_int_equal(ta.live_blocks, 0);
            assert_int_equal(ta.size_mismatches, 0);
            break;
        }
        assert_int_equal(st, MARKUP_ERR_NOMEM);
        assert_int_equal(ta.failures, 1);
        assert_null(tpl);
        assert_int_equal(ta.live_blocks, 0);
        assert_int_equal(ta.size_mismatches, 0);
        assert_int_equal(ta.live_bytes, 0);
        assert_int_equal(ta.size_mismatches, 0);
    }
    assert_true(n > 4); /* builder, statics, names, slots and the template */
}

static void test_render_allocation_failure(void **state) {
    (void)state;
    enum { ROWS = 30 };
    markup_baked *tpl = NULL;
    assert_int_equal(build_rows(NULL, ROWS, &tpl), MARKUP_OK);
    markup_value values[2 * ROWS];
    /* Escape-heavy values, and long ones: the render reserves room for the
       short values up front, so the long ones must grow the buffer again. */
    static const char LONG[] = "&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&"
                               "<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<";
    for (int i = 0; i < ROWS; i++) {
        values[2 * i] = i % 3 ? text("<<>>&&\"\"") : TRUE_VALUE;
        values[2 * i + 1] = i % 10 == 5 ? text(LONG) : text("&&&&&&&&&&&&&&&&&&&&<>");
    }
    markup_buf expected;
    markup_buf_init(&expected, NULL);
    assert_int_equal(markup_baked_render(tpl, values, 2 * ROWS, &expected, NULL), MARKUP_OK);

    size_t n;
    for (n = 0;; n++) {
        test_alloc ta;
        test_alloc_init(&ta, n);
        markup_buf out;
        markup_buf_init(&out, &ta.alc);
        markup_error err = MARKUP_ERROR_INIT;
        markup_status st = markup_baked_render(tpl, values, 2 * ROWS, &out, &err);
        if (st == MARKUP_OK) {
            assert_int_equal(out.len, expected.len);
            assert_memory_equal(out.data, expected.data, out.len);
            markup_buf_free(&out);
            assert_int_equal(ta.live_blocks, 0);
            assert_int_equal(ta.size_mismatches, 0);
            break;
        }
        assert_int_equal(st, MARKUP_ERR_NOMEM);
        assert_int_equal(err.code, MARKUP_ERR_NOMEM);
        assert_int_equal(out.len, 0);
        markup_buf_free(&out);
        assert_int_equal(ta.live_blocks, 0);
        assert_int_equal(ta.size_mismatches, 0);
    }
    assert_true(n >= 2); /* the reservation, then growth for the long values */

    /* Same with a buffer that already holds data: it survives every failure. */
    for (n = 0;; n++) {
        test_alloc ta;
        test_alloc_init(&ta, TEST_ALLOC_NEVER);
        markup_buf out;
        markup_buf_init(&out, &ta.alc);
        put(&out, "prefix");
        ta.fail_at = ta.calls + n;
        markup_status st = markup_baked_render(tpl, values, 2 * ROWS, &out, NULL);
        assert_int_equal(out.len >= 6, 1);
        assert_memory_equal(out.data, "prefix", 6);
        markup_buf_free(&out);
        assert_int_equal(ta.live_blocks, 0);
        assert_int_equal(ta.size_mismatches, 0);
        if (st == MARKUP_OK) break;
        assert_int_equal(st, MARKUP_ERR_NOMEM);
    }

    /* render_slots reserves too. */
    for (n = 0;; n++) {
        test_alloc ta;
        test_alloc_init(&ta, n);
        markup_buf out;
        markup_buf_init(&out, &ta.alc);
        writer_state ws = {0, SIZE_MAX, MARKUP_OK};
        markup_status st = markup_baked_render_slots(tpl, describe_slot, &ws, &out);
        if (st == MARKUP_OK) {
            assert_int_equal(ws.calls, 2 * ROWS);
            markup_buf_free(&out);
            assert_int_equal(ta.live_blocks, 0);
            assert_int_equal(ta.size_mismatches, 0);
            break;
        }
        assert_int_equal(st, MARKUP_ERR_NOMEM);
        assert_int_equal(out.len, 0);
        markup_buf_free(&out);
        assert_int_equal(ta.live_blocks, 0);
        assert_int_equal(ta.size_mismatches, 0);
    }

    markup_buf_free(&expected);
    markup_baked_free(tpl);
}

/* ------------------------------------------------------------------------ */
/* Threads                                                                    */
/* ------------------------------------------------------------------------ */

enum { THREADS = 4, RENDERS_PER_THREAD = 200 };

typedef struct render_job {
    const markup_baked *tpl;
    const markup_value *values;
    size_t nvalues;
    const markup_buf *expected;
    int mismatches;
} render_job;

static void *render_many(void *arg) {
    render_job *job = arg;
    markup_buf out;
    markup_buf_init(&out, NULL);
    for (int i = 0; i < RENDERS_PER_THREAD; i++) {
        markup_buf_clear(&out);
        if (markup_baked_render(job->tpl, job->values, job->nvalues, &out, NULL) != MARKUP_OK ||
            out.len != job->expected->len || memcmp(out.data, job->expected->data, out.len) != 0)
            job->mismatches++;
    }
    markup_buf_free(&out);
    return NULL;
}

static void test_concurrent_renders(void **state) {
    (void)state;
    enum { ROWS = 300 };
    markup_baked *tpl = NULL;
    assert_int_equal(build_rows(NULL, ROWS, &tpl), MARKUP_OK);
    markup_value values[2 * ROWS];
    for (int i = 0; i < ROWS; i++) {
        values[2 * i] = i % 2 ? text("row & \"id\"") : OMIT_VALUE;
        values[2 * i + 1] = i % 5 ? text("Tea <b>cake</b>") : html("<b>bold</b>");
    }
    markup_buf expected;
    markup_buf_init(&expected, NULL);
    assert_int_equal(markup_baked_render(tpl, values, 2 * ROWS, &expected, NULL), MARKUP_OK);

    pthread_t threads[THREADS];
    render_job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (render_job){tpl, values, 2 * ROWS, &expected, 0};
        assert_int_equal(pthread_create(&threads[t], NULL, render_many, &jobs[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(threads[t], NULL), 0);
        assert_int_equal(jobs[t].mismatches, 0);
    }
    markup_buf_free(&expected);
    markup_baked_free(tpl);
}

/* ------------------------------------------------------------------------ */
/* A newline first in pre, listing and textarea                             */
/* ------------------------------------------------------------------------ */

/* <pre># + static "\nz" #</pre>, built through the builder's writer: the
   parser drops a newline that comes first there, so the render writes one
   that begins text twice, wherever nothing was written before it. */
static markup_baked *bake_pre(const char *tag) {
    markup_baked_builder *b = NULL;
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_baked_builder_new(NULL, &b), MARKUP_OK);
    assert_int_equal(markup_baked_builder_open(b, tag, strlen(tag), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_text(b, "\nz", 2, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    markup_baked *tpl = NULL;
    assert_int_equal(markup_baked_builder_finish(b, &tpl, &err), MARKUP_OK);
    return tpl;
}

static void test_newline_first_in_pre(void **state) {
    (void)state;
    markup_baked *tpl = bake_pre("pre");
    /* The first value comes first. */
    assert_renders(tpl, (markup_value[]){text("\nx"), text("y")}, 2, "<pre>\n\nx\nzy</pre>");
    assert_renders(tpl, (markup_value[]){text("\rx"), text("y")}, 2, "<pre>\n\rx\nzy</pre>");
    /* The static text does when the value before it wrote nothing. */
    assert_renders(tpl, (markup_value[]){text(""), text("y")}, 2, "<pre>\n\nzy</pre>");
    assert_renders(tpl, (markup_value[]){OMIT_VALUE, text("\ny")}, 2, "<pre>\n\nz\ny</pre>");
    /* Not after something. */
    assert_renders(tpl, (markup_value[]){text("a"), text("\ny")}, 2, "<pre>a\nz\ny</pre>");
    /* Trusted HTML is written as it is, and counts as written. */
    assert_renders(tpl, (markup_value[]){html("\nh"), text("y")}, 2, "<pre>\nh\nzy</pre>");
    assert_renders(tpl, (markup_value[]){html("\n"), text("y")}, 2, "<pre>\n\nzy</pre>");
    /* Long values take another path. */
    char long_text[200];
    memset(long_text, 'a', sizeof long_text - 1);
    long_text[0] = '\n';
    long_text[sizeof long_text - 1] = '\0';
    markup_buf expected;
    markup_buf_init(&expected, NULL);
    put(&expected, "<pre>\n");
    put(&expected, long_text);
    put(&expected, "\nz</pre>");
    assert_int_equal(markup_buf_putc(&expected, '\0'), MARKUP_OK);
    assert_renders(tpl, (markup_value[]){text(long_text), OMIT_VALUE}, 2, expected.data);
    markup_buf_free(&expected);
    markup_baked_free(tpl);

    /* Elsewhere nothing changes. */
    tpl = bake_pre("div");
    assert_renders(tpl, (markup_value[]){text("\nx"), text("")}, 2, "<div>\nx\nz</div>");
    assert_renders(tpl, (markup_value[]){text(""), text("")}, 2, "<div>\nz</div>");
    markup_baked_free(tpl);
}

typedef struct newline_calls {
    bool first[4];
    size_t calls;
} newline_calls;

static markup_status note_newline_first(void *ctx, size_t slot, markup_slot_kind kind,
                                        const char *name, size_t name_len, bool newline_first,
                                        markup_buf *out) {
    (void)kind;
    (void)name;
    (void)name_len;
    newline_calls *c = ctx;
    c->first[c->calls++] = newline_first;
    return slot == 0 ? MARKUP_OK : markup_buf_putc(out, 'v');
}

static void test_render_slots_says_which_value_comes_first(void **state) {
    (void)state;
    markup_baked *tpl = bake_pre("textarea");
    markup_buf out;
    markup_buf_init(&out, NULL);
    newline_calls c = {{false}, 0};
    assert_int_equal(markup_baked_render_slots(tpl, note_newline_first, &c, &out), MARKUP_OK);
    assert_int_equal(c.calls, 2);
    assert_true(c.first[0]);
    assert_false(c.first[1]); /* the static "\nz" came between */
    /* The first slot wrote nothing: the static text came first. */
    const char *expected = "<textarea>\n\nzv</textarea>";
    assert_int_equal(out.len, strlen(expected));
    assert_memory_equal(out.data, expected, out.len);
    markup_buf_free(&out);
    markup_baked_free(tpl);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_child_slot_escapes_text),
        cmocka_unit_test(test_static_only),
        cmocka_unit_test(test_room_made_for_the_values_given),
        cmocka_unit_test(test_empty_template),
        cmocka_unit_test(test_slots_at_start_and_end),
        cmocka_unit_test(test_adjacent_slots_and_statics),
        cmocka_unit_test(test_ten_thousand_slots),
        cmocka_unit_test(test_child_value_kinds),
        cmocka_unit_test(test_attr_value_kinds),
        cmocka_unit_test(test_hostile_text_is_escaped),
        cmocka_unit_test(test_invalid_utf8_position),
        cmocka_unit_test(test_every_length_and_position),
        cmocka_unit_test(test_wrong_value_count),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_attr_slot_names_are_validated),
        cmocka_unit_test(test_write_value_rules),
        cmocka_unit_test(test_render_slots_calls_each_slot),
        cmocka_unit_test(test_render_slots_error_rolls_back),
        cmocka_unit_test(test_build_allocation_failure),
        cmocka_unit_test(test_render_allocation_failure),
        cmocka_unit_test(test_concurrent_renders),
        cmocka_unit_test(test_newline_first_in_pre),
        cmocka_unit_test(test_render_slots_says_which_value_comes_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
