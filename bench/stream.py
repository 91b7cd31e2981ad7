"""Streaming: what iter_render() costs beside render_bytes(), and how soon
and in how little memory a page built from a generator starts to stream.

    python bench/stream.py [--rows 1000000] [--json FILE]

1. A page of about 1 MB built from lists (the product table): medians of
   render_bytes(page) and of iterating iter_render(page) (64 KiB chunks),
   timed in turns in one process, and their ratio.
2. A table of --rows rows from a generator, in a fresh process each time
   (for a clean peak RSS): the time from the first next() to the first
   chunk, the time for the whole table, and how far the process's peak
   RSS (ru_maxrss) rose above its RSS just before streaming: an upper
   bound of what streaming added.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from markup import h, iter_render, render_bytes

ROUNDS = 31

_GENERATOR_TABLE = r"""
import os, resource, sys, time
from markup import h, iter_render

def rss_now():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

def rows(n):
    for i in range(n):
        yield h.Tr(h.Td(i), h.Td("Tea & <cake>"), h.Td(f"{i * 0.5:.2f}"))

n = int(sys.argv[1])
page = h.HtmlDocument(h.Head(h.Title("Rows")), h.Body(h.Table(rows(n))))
before = rss_now()
chunks = iter_render(page)
t0 = time.perf_counter()
first = next(chunks)
t1 = time.perf_counter()
size = len(first)
for chunk in chunks:
    size += len(chunk)
t2 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(t1 - t0, t2 - t0, size, max(peak - before, 0))
"""


def product_page(rows: int):
    return h.HtmlDocument(
        h.Head(h.Title("Products")),
        h.Body(
            h.Table(
                [
                    h.Tr(
                        {"class": "odd" if i % 2 else "even", "data-id": i},
                        h.Td(h.A({"href": f"/products/{i}"}, f"Product {i} & more")),
                        h.Td({"class": "num"}, f"{i * 1.25:.2f}"),
                        h.Td("In stock" if i % 3 else "Sold out"),
                    )
                    for i in range(rows)
                ]
            )
        ),
    )


def time_once(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def whole_page() -> dict:
    page = product_page(7000)
    size = len(render_bytes(page))

    def streamed():
        for _ in iter_render(page):
            pass

    fns = {"render_bytes": lambda: render_bytes(page), "iter_render": streamed}
    times = {name: [] for name in fns}
    for _ in range(3):  # warm-up
        for fn in fns.values():
            fn()
    for _ in range(ROUNDS):
        for name, fn in fns.items():
            times[name].append(time_once(fn))
    med = {name: statistics.median(t) for name, t in times.items()}
    return {
        "page_bytes": size,
        "render_bytes_ms": med["render_bytes"] * 1e3,
        "iter_render_ms": med["iter_render"] * 1e3,
        "ratio": med["iter_render"] / med["render_bytes"],
    }


def generator_table(rows: int, runs: int) -> dict:
    results = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", _GENERATOR_TABLE, str(rows)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        results.append([float(x) for x in out])
    first, total, size, rss = (statistics.median(col) for col in zip(*results))
    return {
        "rows": rows,
        "first_chunk_ms": first * 1e3,
        "total_s": total,
        "bytes": int(size),
        "peak_rss_rise_mb": rss / 2**20,
        "runs": runs,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5, help="processes for the generator table")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    page = whole_page()
    print(
        f"1. a {page['page_bytes'] / 1e6:.2f} MB page: "
        f"render_bytes {page['render_bytes_ms']:.2f} ms, "
        f"iter_render (64 KiB chunks) {page['iter_render_ms']:.2f} ms, "
        f"ratio {page['ratio']:.3f} (medians of {ROUNDS}, in turns)"
    )
    table = generator_table(args.rows, args.runs)
    print(
        f"2. {table['rows']:,} rows from a generator ({table['bytes'] / 1e6:.1f} MB): "
        f"first chunk after {table['first_chunk_ms']:.2f} ms, all in {table['total_s']:.2f} s, "
        f"peak RSS rose {table['peak_rss_rise_mb']:.1f} MB (medians of {table['runs']} processes)"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"page": page, "generator_table": table}, f, indent=2)


if __name__ == "__main__":
    main()
