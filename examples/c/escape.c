/*
 * escape.c - escaping a C string for HTML, and JSON made safe for a
 * <script>, each in one call.
 */
#include <markup/markup.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    const char *comment = "I <3 \"tea\" & 'cake'";
    markup_error err = MARKUP_ERROR_INIT;
    char *escaped = markup_escape_string(comment, strlen(comment), NULL, &err);
    if (escaped == NULL) {
        fprintf(stderr, "escape: %s: %s\n", markup_status_name(err.code), err.msg);
        return 1;
    }
    printf("<p>%s</p>\n", escaped);
    free(escaped);

    /* JSON from any serializer; here a literal. */
    const char *json = "{\"note\": \"</script><script>alert('x')</script>\"}";
    markup_buf script;
    markup_buf_init(&script, NULL);
    markup_status st = markup_buf_append(&script, "<script>var data = ", 19);
    if (st == MARKUP_OK) st = markup_html_json_for_script(&script, json, strlen(json), &err);
    if (st == MARKUP_OK) st = markup_buf_append(&script, ";</script>\n", 11);
    if (st == MARKUP_OK) fwrite(script.data, 1, script.len, stdout);
    markup_buf_free(&script);
    if (st != MARKUP_OK) {
        fprintf(stderr, "escape: %s: %s\n", markup_status_name(st), err.msg ? err.msg : "");
        return 1;
    }
    return 0;
}
