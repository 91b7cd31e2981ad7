"""Stario beside Jinja2 (and markup, where it is built) on a CPython >= 3.12.

Stario 5 needs CPython 3.12 or newer, the project's .venv is 3.11; so
compare.py creates .venv-stario and runs this script there as a subprocess.
It checks and times the same pages with the same harness (compare.py's
functions) and prints the results as JSON on stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

# What compare.py installs into .venv-stario (markup is built from the tree).
REQUIREMENTS = (
    "stario==5.1.1",
    "jinja2==3.1.6",
    "markupsafe==3.0.4",
    "scikit-build-core>=0.10",
    "cmake>=3.18",
    "ninja",
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, required=True)
    parser.add_argument("--batch-seconds", type=float, required=True)
    parser.add_argument("--page-seconds", type=float, required=True)
    parser.add_argument("--min-rounds", type=int, required=True)
    parser.add_argument("--clock", choices=("cpu", "wall"), required=True)
    parser.add_argument("--pages", required=True, help="comma-separated page keys")
    args = parser.parse_args()

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import compare
    import pages
    from contenders import load, version

    found, skipped = load(("markup_lib", "stario_lib"))
    found += [c for c in load(("templates",))[0] if c.library == "jinja2"]
    if not any(c.library == "stario" for c in found):
        compare.fail("Stario did not import: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))

    wanted = args.pages.split(",")
    page_list = [p for p in pages.all_pages() if p.key in wanted]
    settings = compare.Settings(
        args.rounds, args.batch_seconds, args.page_seconds, args.min_rounds, args.clock
    )

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    results = compare.run_pages(page_list, found, settings, log=log)
    libraries = sorted({c.library for c in found} | {"markupsafe"})
    print(
        json.dumps(
            {
                "python": f"{platform.python_implementation()} {platform.python_version()}",
                "venv": Path(sys.prefix).name,
                "versions": {name: version(name) for name in libraries},
                "skipped_contenders": skipped,
                "pages": results,
            }
        )
    )


if __name__ == "__main__":
    main()
