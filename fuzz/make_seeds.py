#!/usr/bin/env python3
"""Writes the seed corpus of the markup fuzzers: fuzz/corpus/<harness>/<name>.

Each seed is a small, readable case in the byte format the harness decodes
(options header first, see the *_options structs in fuzz/*.c). The tag and
attribute tables are read from the harness sources, so seeds follow them
when they change. Run from anywhere: python3 fuzz/make_seeds.py
"""

import re
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent


def c_table(source: str, name: str) -> list:
    """The string literals of `static const char *const <name>[] = {...};`."""
    text = (HERE / source).read_text()
    body = re.search(r"\b" + name + r"\[\]\s*=\s*\{(.*?)\};", text, re.S).group(1)
    return [
        bytes(s, "ascii").decode("unicode_escape") for s in re.findall(r'"((?:[^"\\]|\\.)*)"', body)
    ]


def s(data) -> bytes:
    """A length-prefixed string (at most 255 bytes)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    assert len(data) <= 255
    return bytes([len(data)]) + data


# --------------------------------------------------------------------------
# fuzz_escape: offset, prefix, split, fail_at, then the text
# --------------------------------------------------------------------------


def escape_seeds():
    def seed(text, offset=0, prefix=0, split=128, fail_at=0):
        if isinstance(text, str):
            text = text.encode("utf-8")
        return bytes([offset, prefix, split, fail_at]) + text

    return {
        "empty": seed(b""),
        "clean_ascii": seed("The quick brown fox jumps over the lazy dog 0123456789"),
        "all_five": seed("&<>\"'"),
        "entities_twice": seed("&amp; &lt; &gt; &#34; &#39; &quot;", prefix=5),
        "xss_attr": seed('" onmouseover="alert(1)" x=\'', offset=3),
        "script_tag": seed("<script>alert('x')</script>", offset=7, prefix=12),
        "utf8_mixed": seed("caf\u00e9 \u20ac <b>\U0001f600</b> & \u2028", offset=1),
        "nul_and_controls": seed(b"\x00<\x01>\x7f&\xff\xfe'\"\x00"),
        "simd_tail": seed("a" * 63 + "<", offset=13),
        "simd_blocks": seed(("x" * 31 + "&") * 6 + "'" * 17, offset=31, split=77),
        "long_clean": seed("lorem ipsum dolor sit amet " * 40, offset=5, split=200),
        "special_every_16": seed(("0123456789abcde" + '"') * 20, offset=9),
        "alloc_failure": seed("needs <escaping> & more " * 10, prefix=20, fail_at=1),
        "alloc_failure_2": seed("x" * 300 + "<" * 300, fail_at=2),
    }


# --------------------------------------------------------------------------
# fuzz_escape_wide: unit offset, high byte, then the text
# --------------------------------------------------------------------------


def escape_wide_seeds():
    def seed(text, offset=0, high=0):
        if isinstance(text, str):
            text = text.encode("latin-1")
        return bytes([offset, high]) + text

    return {
        "empty": seed(b""),
        "all_five": seed("&<>\"'"),
        "latin1_prose": seed(
            "Gr\u00f6\u00dfe & Qualit\u00e4t, caf\u00e9 <cr\u00e8me> \u00abtr\u00e8s\u00bb " * 6,
            offset=3,
        ),
        "lookalikes_u0126": seed("&<>\"'" * 20, offset=5, high=1),
        "lookalikes_high_ff": seed("a&b<c>d\"e'f" * 12, offset=11, high=0xFF),
        # raw units: "&\0" is U+0026 in 16 bits, "&\0\0\0" in 32 bits
        "raw_units": seed(
            b"&\x00<\x00&\x01<\x01\"\x00\x00\x00'\x00\x01\x00\x00\xd8>\x00" * 8, offset=1
        ),
        "block_edges": seed(("x" * 15 + "&") * 12 + "<" * 40, offset=16),
        "dense": seed("<" * 300, offset=7),
    }


# --------------------------------------------------------------------------
# fuzz_utf8: offset, raw_kind, then the bytes
# --------------------------------------------------------------------------


def utf8_seeds():
    def seed(data, offset=0, raw_kind=2):
        if isinstance(data, str):
            data = data.encode("utf-8")
        return bytes([offset, raw_kind]) + data

    return {
        "ascii": seed("plain ascii text, long enough for a word-at-a-time path: abcdefgh", 3),
        "valid_each_length": seed("a\u00e9\u20ac\U0001f600\U0010ffff\ufffd"),
        "overlong": seed(b"ok\xc0\xafok"),
        "overlong_3": seed(b"\xe0\x80\xaf"),
        "surrogate": seed(b"abc\xed\xa0\x80def", 5),
        "above_max": seed(b"\xf4\x90\x80\x80"),
        "truncated_end": seed(b"text then \xe2\x82", 11),
        "lone_continuation": seed(b"\x80abc"),
        "invalid_after_ascii_run": seed(b"x" * 40 + b"\xff" + b"y" * 10, 7),
        "attr_alpine": seed("@click"),
        "attr_vue": seed(":class"),
        "attr_datastar": seed("data-on-click__debounce.500ms"),
        "attr_rejected": seed('on"click'),
        "attr_c1": seed(b"x\xc2\x85y"),
        "tag_custom": seed("my-widget"),
        "tag_void_upper": seed("BR"),
        "tag_bad": seed("1div"),
        "raw_script_end": seed("var s = '</SCRIPT>';", raw_kind=2),
        "raw_script_comment": seed("x <!-- y", raw_kind=2),
        "raw_style_end": seed("a{} </style >", raw_kind=3),
    }


# --------------------------------------------------------------------------
# fuzz_serialize: flags, fail_lo, fail_hi, prefix, then operations
# --------------------------------------------------------------------------

SER_TAGS = c_table("fuzz_serialize.c", "known_tags")
SER_ATTRS = c_table("fuzz_serialize.c", "known_attrs")
(
    OPEN,
    FRAGMENT,
    CLOSE,
    TEXT,
    HTML,
    COMMENT,
    DOCTYPE,
    ATTR,
    ATTR_HTML,
    ATTR_BOOL,
    ADOPT,
    REUSE,
    MUTATE,
    DEEP,
    RENDER,
) = range(15)


class Ser:
    def __init__(self, flags=0, fail_at=0, prefix=0):
        self.out = bytearray(bytes([flags]) + struct.pack("<H", fail_at) + bytes([prefix]))

    def open(self, tag):
        self.out += bytes([OPEN, SER_TAGS.index(tag)])
        return self

    def open_raw(self, name):
        self.out += bytes([OPEN, 0xF0]) + s(name)
        return self

    def close(self, n=1):
        self.out += bytes([CLOSE]) * n
        return self

    def op(self, code, *args):
        self.out += bytes([code])
        for a in args:
            self.out += a if isinstance(a, (bytes, bytearray)) else bytes([a])
        return self

    def text(self, t):
        return self.op(TEXT, s(t))

    def html(self, t):
        return self.op(HTML, s(t))

    def comment(self, t):
        return self.op(COMMENT, s(t))

    def attr(self, name, value, code=ATTR):
        return self.op(code, SER_ATTRS.index(name), s(value))

    def bytes(self):
        return bytes(self.out)


def serialize_seeds():
    page = (
        Ser()
        .op(DOCTYPE)
        .open("html")
        .open("head")
        .open("title")
        .text("Tea & cake")
        .close(2)
        .open("body")
        .open("ul")
    )
    for i, name in enumerate(["Earl <Grey>", 'Caf\u00e9 "au" lait', "O'Brien's"]):
        page.open("li").attr("class", "card").attr("data-id", str(i)).open("span").text(name).close(
            2
        )
    page.close(3)

    raw = (
        Ser()
        .open("script")
        .text("if (a < b && c > d) { s = '<\\/script>'; }")
        .close()
        .open("style")
        .text('a > b { content: "&" }')
        .close()
        .open("SCRIPT")
        .html("x = 1;")
        .close()
    )

    attrs = (
        Ser(prefix=9)
        .open("input")
        .attr("@click", "open = !open")
        .attr(":class", "{'a': b}")
        .attr("disabled", "x", ATTR_BOOL)
        .attr("id", "", ATTR_BOOL)
        .attr("value", "<b>", ATTR_HTML)
        .attr("x-on:click.prevent", "go()")
        .close()
    )

    comments = Ser().open("div").comment("a -- b > c").text("after").op(DOCTYPE).close()

    sharing = (
        Ser()
        .open("ul")
        .open("li")
        .text("shared <li>")
        .close()
        .op(REUSE)
        .op(REUSE)
        .op(MUTATE)
        .op(FRAGMENT)
        .text("in a fragment")
        .op(ADOPT, 0)
        .close()
        .op(REUSE)
        .op(RENDER)
        .close()
    )

    deep = Ser().op(DEEP, 63, SER_TAGS.index("div"))
    for _ in range(16):
        deep.op(DEEP, 63, SER_TAGS.index("span"))
    deep.text("bottom")

    near_limit = Ser().op(DEEP, 63, SER_TAGS.index("div"))
    for _ in range(14):
        near_limit.op(DEEP, 63, SER_TAGS.index("p"))

    refused = (
        Ser()
        .open("br")
        .text("child of a void")
        .close()
        .open("script")
        .text("</script><img src=x onerror=alert(1)>")
        .text("</scr")
        .text("ipt>")
        .comment("c")
        .close()
        .open("style")
        .text("</STYLE")
        .close()
        .open_raw("1bad")
        .open_raw("my-widget")
        .text(b"bad \xff utf8")
        .op(ATTR, 0xF0, s('on"x'), s("v"))
        .close()
    )

    failing = (
        Ser(flags=1, fail_at=3)
        .open("div")
        .attr("class", "a")
        .text("t" * 40)
        .open("p")
        .text("<x>")
        .close(2)
    )
    failing_render = Ser(flags=1, fail_at=200).open("p").text("&" * 100).close()

    return {
        "page": page.bytes(),
        "raw_text": raw.bytes(),
        "attributes": attrs.bytes(),
        "comment_doctype": comments.bytes(),
        "sharing_and_frozen": sharing.bytes(),
        "too_deep": deep.bytes(),
        "near_depth_limit": near_limit.bytes(),
        "refused_calls": refused.bytes(),
        "alloc_failure_build": failing.bytes(),
        "alloc_failure_render": failing_render.bytes(),
    }


# --------------------------------------------------------------------------
# fuzz_baked: flags, fail_at, prefix, stop_at, then steps
# --------------------------------------------------------------------------

BAKED_TAGS = c_table("fuzz_baked.c", "known_tags")
BAKED_ATTRS = c_table("fuzz_baked.c", "known_attrs")
VALUE_TEXT, VALUE_HTML, VALUE_TRUE, VALUE_OMIT = 0, 1, 3, 4  # indexes into the harness's kinds[]


class Baked:
    def __init__(self, flags=0, fail_at=0, prefix=0, stop_at=255):
        self.out = bytearray([flags, fail_at, prefix, stop_at])

    def add(self, *parts):
        for p in parts:
            self.out += p if isinstance(p, (bytes, bytearray)) else bytes([p])
        return self

    def open(self, tag):
        return self.add(0, BAKED_TAGS.index(tag))

    def close(self, n=1):
        return self.add(*([1] * n))

    def text(self, t):
        return self.add(2, s(t))

    def html(self, t):
        return self.add(3, s(t))

    def comment(self, t):
        return self.add(4, s(t))

    def doctype(self):
        return self.add(5)

    def attr(self, name, value, how=0):
        return self.add(6, BAKED_ATTRS.index(name), s(value), how)

    def child_slot(self, value, kind=VALUE_TEXT):
        return self.add(7, s(value), kind)

    def attr_slot(self, name, value, kind=VALUE_TEXT):
        return self.add(9, BAKED_ATTRS.index(name), s(value), kind)

    def bytes(self):
        return bytes(self.out)


def baked_seeds():
    row = (
        Baked()
        .open("li")
        .attr_slot("class", "card")
        .attr_slot("data-id", "7")
        .open("span")
        .attr("class", "name")
        .child_slot('Earl <Grey> & "tea"')
        .close()
        .open("span")
        .attr("class", "price")
        .child_slot("3.50")
        .close(2)
    )

    page = (
        Baked(prefix=7)
        .doctype()
        .open("title")
        .child_slot("Products & <more>")
        .close()
        .open("ul")
        .child_slot("<li>trusted</li>", VALUE_HTML)
        .child_slot("", VALUE_OMIT)
        .close()
    )

    bools = (
        Baked()
        .open("input")
        .attr_slot("disabled", "", VALUE_TRUE)
        .attr_slot("value", "", VALUE_OMIT)
        .attr_slot("id", "<b>", VALUE_HTML)
        .attr("style", "", 2)
        .open("p")
        .text("after a void")
    )

    statics = (
        Baked(flags=2)
        .open("div")
        .attr("onclick", "a('x')")
        .attr("href", "&amp;", 1)
        .text("<not a tag>")
        .comment("-- c --")
        .html("<b>bold</b>")
        .open("script")
        .text("if (a < b) {}")
        .close()
        .open("style")
        .text("p > a {}")
        .close(2)
    )

    true_in_child = Baked().open("p").child_slot("", VALUE_TRUE).close()
    bad_utf8 = Baked().open("p").child_slot(b"ok \xed\xa0\x80 surrogate").close()
    bad_name = Baked().open("a").add(9, 0xF0, s("on click")).attr_slot("href", "/x").close()
    writer_stops = Baked(stop_at=1).open("p").child_slot("a").child_slot("b").child_slot("c")
    failing = Baked(flags=1, fail_at=4).open("ul").child_slot("x" * 50).close()

    return {
        "row": row.bytes(),
        "page": page.bytes(),
        "bool_attrs": bools.bytes(),
        "statics_every_step": statics.bytes(),
        "true_in_child_slot": true_in_child.bytes(),
        "invalid_utf8_value": bad_utf8.bytes(),
        "bad_attr_slot_name": bad_name.bytes(),
        "writer_stops": writer_stops.bytes(),
        "alloc_failure": failing.bytes(),
    }


# --------------------------------------------------------------------------
# fuzz_writer: flags, fail_at, prefix, spare, then operations
# --------------------------------------------------------------------------

WRITER_TAGS = c_table("fuzz_writer.c", "known_tags")
WRITER_ATTRS = c_table("fuzz_writer.c", "known_attrs")
WRITER_VALUES = c_table("fuzz_writer.c", "known_values")
WRITER_TEXTS = c_table("fuzz_writer.c", "known_texts")
(
    W_OPEN,
    W_ATTR,
    W_ATTR_HTML,
    W_ATTR_BARE,
    W_TEXT,
    W_HTML,
    W_COMMENT,
    W_DOCTYPE,
    W_CLOSE,
    W_FLUSH,
    W_SLOT,
) = range(11)


class WriterProgram:
    def __init__(self, flags=0, fail_at=0, prefix=0):
        self.out = bytearray([flags, fail_at, prefix, 0])

    def open(self, tag):
        self.out += bytes([W_OPEN, WRITER_TAGS.index(tag)])
        return self

    def close(self, n=1):
        self.out += bytes([W_CLOSE]) * n
        return self

    def text(self, t, op=W_TEXT):
        self.out += bytes([op, WRITER_TEXTS.index(t)])
        return self

    def attr(self, name, value):
        self.out += bytes([W_ATTR, WRITER_ATTRS.index(name), WRITER_VALUES.index(value)])
        return self

    def slot(self, tag, t):
        self.out += bytes([W_SLOT, WRITER_TAGS.index(tag), WRITER_TEXTS.index(t)])
        return self

    def bytes(self):
        return bytes(self.out)


def writer_seeds():
    W = WriterProgram
    return {
        "select_style": W()
        .open("select")
        .open("style")
        .text("</select>")
        .text("<img src=x>")
        .close(2)
        .bytes(),
        "svg_p_title": W()
        .open("svg")
        .open("p")
        .open("title")
        .open("style")
        .text("</title>")
        .close(4)
        .bytes(),
        "math_mi_mglyph": W()
        .open("math")
        .open("mi")
        .open("mglyph")
        .open("script")
        .text("<img src=x>")
        .close(4)
        .bytes(),
        "annotation_html": W()
        .open("math")
        .open("annotation-xml")
        .attr("encoding", "text/html")
        .open("script")
        .text("a < b")
        .close(3)
        .bytes(),
        "desc_td": W()
        .open("table")
        .open("tr")
        .open("td")
        .open("svg")
        .open("desc")
        .open("td")
        .close(6)
        .bytes(),
        "title_in_title": W().open("title").open("svg").open("title").close(3).bytes(),
        "seam_in_script": W().open("script").text("</scr").text("ipt>").close().bytes(),
        "noscript_style": W().open("noscript").open("style").text("</noscript>").close(2).bytes(),
        "font_color": W().open("svg").open("font").attr("color", "red").close(2).bytes(),
        "slot_in_svg": W().open("svg").slot("style", "<img src=x>").close().bytes(),
        "slot_in_select": W().open("select").slot("style", "a < b").close().bytes(),
        "alloc_failure": W(flags=1, fail_at=2)
        .open("div")
        .open("svg")
        .open("desc")
        .open("script")
        .text("a < b")
        .close(4)
        .bytes(),
    }


# fuzz_program: flags, fail_at, nparams, fail_op, then instructions (op, a, b);
# a b of 255 makes the instruction's target the next position plus a % 4.
P_STATIC, P_WRITE, P_IF, P_JUMP, P_LOOP, P_END_LOOP = range(6)
P_PARAM, P_ITEM, P_LOOP_INFO, P_CYCLE, P_APPLY = range(6, 11)


def program(*instrs, flags=0, fail_at=0, nparams=3, fail_op=255) -> bytes:
    return bytes([flags, fail_at, nparams, fail_op]) + b"".join(bytes(i) for i in instrs)


def program_seeds() -> dict:
    # <p>{param 1 items, each written}</p>: LOOP at 2 ends at 6, END_LOOP back to 3
    loop = [
        (P_STATIC, 0, 0),
        (P_PARAM, 1, 0),
        (P_LOOP, 6, 1),
        (P_ITEM, 0, 0),
        (P_WRITE, 0, 0),
        (P_END_LOOP, 3, 0),
        (P_STATIC, 1, 0),
    ]
    nested = [
        (P_PARAM, 2, 0),
        (P_LOOP, 10, 0),
        (P_ITEM, 0, 0),
        (P_LOOP, 9, 1),
        (P_ITEM, 0, 0),
        (P_LOOP_INFO, 1, 1),
        (P_APPLY, 2, 2),
        (P_WRITE, 1, 0),
        (P_END_LOOP, 4, 0),
        (P_END_LOOP, 2, 0),
    ]
    condition = [
        (P_PARAM, 0, 0),
        (P_IF, 0, 255),
        (P_STATIC, 2, 0),
        (P_PARAM, 0, 0),
        (P_APPLY, 1, 1),
        (P_WRITE, 0, 0),
    ]
    return {
        "loop": program(*loop),
        "nested_loops": program(*nested),
        "condition": program(*condition),
        "apply_fails": program(*nested, fail_op=2),
        "alloc_failure": program(*loop, flags=1, fail_at=3),
        "iterate_a_number": program((P_PARAM, 0, 0), (P_LOOP, 3, 0), (P_END_LOOP, 2, 0)),
    }


def main():
    for harness, seeds in [
        ("fuzz_escape", escape_seeds()),
        ("fuzz_escape_wide", escape_wide_seeds()),
        ("fuzz_utf8", utf8_seeds()),
        ("fuzz_serialize", serialize_seeds()),
        ("fuzz_baked", baked_seeds()),
        ("fuzz_writer", writer_seeds()),
        ("fuzz_program", program_seeds()),
    ]:
        d = HERE / "corpus" / harness
        # Keep regression inputs (regress_*), regenerate the rest.
        if d.exists():
            for f in d.iterdir():
                if not f.name.startswith("regress_"):
                    f.unlink()
        d.mkdir(parents=True, exist_ok=True)
        for name, data in seeds.items():
            (d / name).write_bytes(data)
        print(f"{harness}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
