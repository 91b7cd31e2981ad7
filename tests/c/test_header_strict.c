/* The public header compiles under -std=c11 -Wall -Wextra -Wpedantic -Werror
   and links; the inline buffer functions work from a strict C11 caller. */
#include "markup/markup.h"
#include "markup/binding.h"

#include <stdio.h>
#include <string.h>

int main(void) {
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    if (markup_buf_append(&buf, "<b>", 3) != MARKUP_OK) return 1;
    if (markup_escape(&buf, "&", 1) != MARKUP_OK) return 1;
    if (markup_buf_putc(&buf, '!') != MARKUP_OK) return 1;
    int ok = buf.len == 9 && memcmp(buf.data, "<b>&amp;!", 9) == 0;
    markup_buf_free(&buf);
    if (!ok) {
        fputs("unexpected output\n", stderr);
        return 1;
    }
    return strcmp(markup_version(), MARKUP_VERSION_STRING) == 0 ? 0 : 1;
}
