// The public header compiles as C++ (-Wall -Wextra -Wpedantic -Werror) and
// the library links from a C++ caller.
#include "markup/markup.h"
#include "markup/binding.h"

#include <cstring>
#include <string>

int main() {
    markup_buf buf;
    markup_buf_init(&buf, nullptr);
    markup_node *p = nullptr;
    if (markup_node_new_element("p", 1, nullptr, &p, nullptr) != MARKUP_OK) return 1;
    if (markup_node_append_text(p, "a<b", 3, nullptr) != MARKUP_OK) return 1;
    if (markup_node_render(p, &buf, nullptr) != MARKUP_OK) return 1;
    std::string html(buf.data, buf.len);
    markup_node_unref(p);
    markup_buf_free(&buf);
    return html == "<p>a&lt;b</p>" ? 0 : 1;
}
