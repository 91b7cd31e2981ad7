#!/usr/bin/env python3
"""Fails when two source files of one library call each other.

The files of libmarkup/ and of pymarkup/ stand in layers: each calls only
the files below it (pymarkup/state.h describes the order). A pair of files
that call each other both ways is one concern split in two, or two tangled
into one; neither can then be read, tested or moved without the other.

This reads the object files a CMake build left (libmarkup's objects, from
which its static library is made, and those of the extension markup._core)
with `nm`: the functions each object defines and the symbols it needs from
elsewhere. Data (a type's spec, pm_module_def) does not count: reading
another file's table is not calling it.

    python3 scripts/check-layering.py [BUILD_DIR]

BUILD_DIR is a CMake build directory (default: the most recently built one
under build/ that holds the extension's objects). Exit status 0 when no
two objects of one library call each other, 1 otherwise (each pair named
with the functions it calls both ways), 2 when there is nothing to check.
Python 3.9 and the standard library only.
"""

import subprocess
import sys
from pathlib import Path

# The object files of each library, relative to the build directory: CMake
# puts a target's objects in CMakeFiles/<target>.dir/. libmarkup's static
# library is made of its object library's objects.
LIBRARIES = {
    "libmarkup": "libmarkup/CMakeFiles/markup_objects.dir",
    "pymarkup": "pymarkup/CMakeFiles/_core.dir",
}

# nm's letters for a defined function: text (T), weak (W) and indirect (i).
FUNCTION_TYPES = {"T", "W", "i"}


def symbols(obj):
    """(functions defined, symbols needed) by one object file."""
    out = subprocess.run(
        ["nm", "-P", "--no-sort", str(obj)],
        check=True,
        stdout=subprocess.PIPE,
        universal_newlines=True,
    ).stdout
    defined, needed = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind == "U":
            needed.add(name)
        elif kind in FUNCTION_TYPES:
            defined.add(name)
    return defined, needed


def source_name(obj):
    """The source file an object was compiled from: "element.c.o" -> "element.c"."""
    return obj.name[: -len(".o")] if obj.name.endswith(".o") else obj.name


def mutual_calls(objects):
    """[(a, b, a's calls into b, b's calls into a)] for each pair that calls both ways."""
    table = {source_name(obj): symbols(obj) for obj in objects}
    names = sorted(table)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            a_calls_b = table[a][1] & table[b][0]
            b_calls_a = table[b][1] & table[a][0]
            if a_calls_b and b_calls_a:
                pairs.append((a, b, sorted(a_calls_b), sorted(b_calls_a)))
    return pairs


def default_build_dir():
    """The most recently built directory under build/ with the extension's objects."""
    root = Path(__file__).resolve().parent.parent / "build"
    found = [p for p in root.glob("*") if (p / LIBRARIES["pymarkup"]).is_dir()]
    if not found:
        return None
    return max(found, key=lambda p: max(o.stat().st_mtime for o in objects_of(p, "pymarkup")))


def objects_of(build_dir, library):
    return sorted((build_dir / LIBRARIES[library]).rglob("*.o"))


def main(argv):
    build_dir = Path(argv[1]) if len(argv) > 1 else default_build_dir()
    if build_dir is None:
        print("check-layering: no build under build/ holds markup._core's objects", file=sys.stderr)
        return 2
    failures = 0
    checked = 0
    for library in LIBRARIES:
        objects = objects_of(build_dir, library)
        if not objects:
            print(f"check-layering: no objects of {library} in {build_dir}", file=sys.stderr)
            continue
        checked += 1
        for a, b, a_calls_b, b_calls_a in mutual_calls(objects):
            failures += 1
            print(f"{library}: {a} and {b} call each other")
            print(f"  {a} -> {b}: {', '.join(a_calls_b)}")
            print(f"  {b} -> {a}: {', '.join(b_calls_a)}")
    if checked == 0:
        return 2
    if failures:
        print(f"check-layering: {failures} pair(s) of files call each other ({build_dir})")
        return 1
    print(f"check-layering: no two files of a library call each other ({build_dir})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
