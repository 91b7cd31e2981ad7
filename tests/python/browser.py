"""Headless Chromium as a second HTML parser for the hardening tests.

html5lib implements the HTML standard as it stood years ago; browsers have
moved since (template modes, the newer parsing of <select>), and a page is
read by a browser, not by html5lib. ``parse_all(htmls)`` hands a whole
batch of strings to one headless Chromium process (Debian's ``chromium``)
and returns, for each, every element the browser built, in the shape
``htmldom.elements`` gives for html5lib: ``(tag, [(name, value), ...])``,
tag lower-cased with an ``svg:`` / ``math:`` prefix in those namespaces,
template contents included. Each string is read two ways:

- ``document``: as a whole document by DOMParser (scripting off, so
  <noscript> holds markup);
- ``fragment``: inserted into a <div> of a live page by
  Range.createContextualFragment (scripting on, so <noscript> is raw text).

Nothing the strings hold may load or run against anything else: the page's
Content-Security-Policy forbids every load (images, frames, scripts from
a URL), and a fragment is never inserted into the page, so its scripts
never run. An inline handler may still run (a blocked image fires its
error event): ``alert`` is replaced to note which string's element ran
it, as ``handler_ran``, one more sign of an injection.
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import List, Tuple

CHROMIUM = shutil.which("chromium")
MISSING = "Debian's chromium is not installed (scripts/install-system-deps.sh installs it)"

# One process reads at most this many strings or characters: more are
# split across processes (a batch of 5,000 takes a few seconds).
BATCH_STRINGS = 5000
BATCH_CHARS = 8_000_000

_SCRIPT = r"""
"use strict";
const NS = {"http://www.w3.org/2000/svg": "svg:", "http://www.w3.org/1998/Math/MathML": "math:"};
const owner = new WeakMap();  // element -> index of the string it came from
const fired = new Set();
window.alert = () => {
  const el = window.event && window.event.currentTarget;
  fired.add(owner.has(el) ? owner.get(el) : -1);
};
function collect(node, index, out) {
  for (const el of node.children) {
    owner.set(el, index);
    out.push([(NS[el.namespaceURI] || "") + el.localName.toLowerCase(),
              Array.from(el.attributes, (a) => [a.name, a.value])]);
    if (el.content instanceof DocumentFragment) collect(el.content, index, out);
    collect(el, index, out);
  }
  return out;
}
function report(value) {
  const out = document.createElement("script");
  out.type = "application/json";
  out.id = "results";
  out.textContent = JSON.stringify(value).replace(/</g, "\\u003c");
  document.body.append(out);
}
try {
  const input = document.getElementById("inputs");
  const htmls = JSON.parse(input.textContent);
  input.remove();
  const range = document.createRange();
  range.selectNodeContents(document.getElementById("context"));
  const parser = new DOMParser();
  const parsed = htmls.map((html, i) => [
    collect(parser.parseFromString(html, "text/html"), i, []),
    collect(range.createContextualFragment(html), i, []),
  ]);
  // The error events of blocked images come as tasks: report after them.
  setTimeout(() => report({parsed, fired: [...fired]}), 100);
} catch (e) {
  report({error: String(e && e.stack || e)});
}
"""

_PAGE = (
    '<!doctype html><meta charset="utf-8">'
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
    "script-src 'unsafe-inline'\">"
    '<body><div id="context"></div>'
    '<script type="application/json" id="inputs">{inputs}</script>'
    "<script>{script}</script>"
)
_RESULTS = '<script type="application/json" id="results">'
# `make asan` preloads libasan into the tests: Chromium hangs with it.
_ENV = {name: value for name, value in os.environ.items() if name != "LD_PRELOAD"}

Element = Tuple[str, List[Tuple[str, str]]]


@dataclass
class Parsed:
    document: List[Element]
    fragment: List[Element]
    handler_ran: bool


def parse_all(htmls, timeout=None):
    """A Parsed for each string of `htmls`, in order."""
    htmls = list(htmls)
    out, batch, size = [], [], 0
    for html in htmls:
        if batch and (len(batch) == BATCH_STRINGS or size + len(html) > BATCH_CHARS):
            out += _run(batch, timeout)
            batch, size = [], 0
        batch.append(html)
        size += len(html)
    return out + (_run(batch, timeout) if batch else [])


def _run(htmls, timeout):
    if CHROMIUM is None:
        raise RuntimeError(MISSING)
    # json.dumps writes ASCII; with '<' escaped no string can end the script.
    inputs = json.dumps(htmls).replace("<", "\\u003c")
    timeout = timeout or 60 + len(htmls) / 50
    with tempfile.TemporaryDirectory(prefix="markup-browser-") as tmp:
        page = Path(tmp, "parse.html")
        page.write_text(_PAGE.format(inputs=inputs, script=_SCRIPT), encoding="ascii")
        command = [
            CHROMIUM,
            "--headless",
            "--no-sandbox",  # root in CI
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            f"--user-data-dir={tmp}/profile",
            "--virtual-time-budget=30000",  # waits for the timer, not for the clock
            "--dump-dom",
            page.as_uri(),
        ]
        proc = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its helper processes go with it
            env=_ENV,
        )
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise RuntimeError(
                f"chromium did not read {len(htmls)} strings in {timeout:.0f} s"
            ) from None
    dom = stdout.decode("utf-8", "replace")
    start = dom.find(_RESULTS)
    if start < 0:
        tail = stderr.decode("utf-8", "replace")[-2000:]
        raise RuntimeError(f"chromium exited {proc.returncode} with no results:\n{tail}")
    result = json.loads(dom[start + len(_RESULTS) : dom.index("</script>", start)])
    if "error" in result:
        raise RuntimeError(f"the parsing page failed: {result['error']}")
    if -1 in result["fired"]:
        raise RuntimeError("a handler ran on an element of none of the strings")
    fired = set(result["fired"])
    return [
        Parsed(_elements(document), _elements(fragment), i in fired)
        for i, (document, fragment) in enumerate(result["parsed"])
    ]


def _elements(parsed):
    return [(tag, [tuple(a) for a in attrs]) for tag, attrs in parsed]
