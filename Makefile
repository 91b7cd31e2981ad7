# markup: every command a developer or CI needs. `make bench` and `make test`
# set up everything on a fresh Debian machine (apt packages, .venv) first.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
CMAKE  := $(VENV)/bin/cmake
BUILD  := build
JOBS   ?= 2

.PHONY: all bench bench-quick bench-deps bench-c test setup system venv install cbuild ctest pytest jinja2-suite parser-state lint lint-deps layering format clean
.PHONY: fuzz fuzz-ci fuzz-build cross-check cross-pytest

all: test

## The main job: markup beside its peers, outputs checked, then timed.
## Stario (CPython >= 3.12) gets its own .venv-stario, made by compare.py.
bench: install bench-deps
	$(PY) bench/compare.py --json $(BUILD)/bench.json --plot $(BUILD)/bench.png --markdown $(BUILD)/bench.md
	$(PY) bench/stream.py --json $(BUILD)/bench-stream.json

## bench/compare.py on Debian's CPython 3.14 (PYVER=3.15 for the other),
## with the peers that publish a wheel for it; BENCH_ARGS pass through.
PYVER ?= 3.14
PYTHONS_CACHE = $(or $(MARKUP_PYTHONS_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/markup/pythons)
bench-debian: venv
	bash scripts/debian-python.sh $(PYVER) $(PYTHONS_CACHE)/$(PYVER) --bench
	$(CMAKE) -S . -B $(BUILD)/debian-$(PYVER) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMARKUP_BUILD_PYTHON=ON \
	  -DMARKUP_BUILD_TESTS=OFF -DMARKUP_WERROR=ON -DPython_EXECUTABLE=$(PYTHONS_CACHE)/$(PYVER)/python \
	  -DPython_INCLUDE_DIR=$(PYTHONS_CACHE)/$(PYVER)/root/usr/include/python$(PYVER) \
	  "-DCMAKE_C_FLAGS=-idirafter $(PYTHONS_CACHE)/$(PYVER)/root/usr/include"
	$(CMAKE) --build $(BUILD)/debian-$(PYVER) -j $(JOBS)
	PYTHONPATH=$(abspath $(BUILD))/debian-$(PYVER)/python:$(PYTHONS_CACHE)/$(PYVER)/site:$(PYTHONS_CACHE)/$(PYVER)/bench \
	  $(PYTHONS_CACHE)/$(PYVER)/python bench/compare.py --no-stario $(BENCH_ARGS)

## The same in under a minute (fewer rounds, scaling up to 1,000 rows).
bench-quick: install bench-deps
	$(PY) bench/compare.py --quick

bench-deps: $(VENV)/.bench-stamp

$(VENV)/.bench-stamp: bench/requirements.txt $(VENV)/.stamp
	$(PY) -m pip install -q -r bench/requirements.txt
	touch $@

## Every test: the C tests (ctest/cmocka), the Python tests (pytest), then
## Jinja2's own test suite run on markup.jinja.
test: ctest pytest jinja2-suite

system:
	bash scripts/install-system-deps.sh

$(VENV)/.stamp: requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

venv: system $(VENV)/.stamp

setup: venv

## Builds the extension (warnings as errors) and installs markup into
## .venv (scikit-build-core).
install: venv
	$(PY) -m pip install -q --no-build-isolation -Cbuild-dir=$(BUILD)/pip -Ccmake.define.MARKUP_WERROR=ON .

cbuild: venv
	$(CMAKE) -S . -B $(BUILD)/c -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMARKUP_BUILD_TESTS=ON -DMARKUP_WERROR=ON
	$(CMAKE) --build $(BUILD)/c -j $(JOBS)

ctest: cbuild
	$(VENV)/bin/ctest --test-dir $(BUILD)/c --output-on-failure

## The C library and its tests cross-built for 64-bit ARM (the portable
## kernels, no x86 SIMD), 32-bit ARM (32-bit size_t) and s390x
## (big-endian), each run under qemu-user. The fuzz harnesses replay their
## seeds there, and the corpora of the last `make fuzz-ci` when present.
CROSS_TARGETS := aarch64-linux-gnu arm-linux-gnueabihf s390x-linux-gnu
cross-check: venv
	bash scripts/install-cross-deps.sh
	set -e; for t in $(CROSS_TARGETS); do \
	  $(CMAKE) -S . -B $(BUILD)/cross-$$t -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/$$t.cmake \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMARKUP_BUILD_TESTS=ON -DMARKUP_WERROR=ON \
	    -DMARKUP_REPLAY_CORPORA=$(abspath $(BUILD))/fuzz-runs; \
	  $(CMAKE) --build $(BUILD)/cross-$$t -j $(JOBS); \
	  $(VENV)/bin/ctest --test-dir $(BUILD)/cross-$$t --output-on-failure; \
	done

## The C library and its tests cross-built for 64-bit Windows (mingw-w64,
## warnings as errors) and run under Wine. utf8proc and cmocka are built for
## it from Debian's source packages into ~/.cache/markup/windows-deps, once.
.PHONY: windows-check
windows-check: venv
	JOBS=$(JOBS) bash scripts/windows-check.sh $(CMAKE)

## The Python tests on s390x (big-endian): Debian's CPython 3.11 for it,
## unpacked by scripts/cross-python.sh and run under qemu-user, with the
## extension cross-built against it (about 7 minutes). The mypy checks of
## the stubs, which no CPU changes, skip there (no mypy) and run on the
## host. 64-bit ARM runs the suite from its wheel (make wheel-test);
## CROSS_PY_TARGETS=aarch64-linux-gnu builds it from source the same way.
CROSS_PY_TARGETS ?= s390x-linux-gnu
cross-pytest: venv
	bash scripts/install-cross-deps.sh
	bash scripts/cross-pytest.sh $(CMAKE) $(JOBS) $(CROSS_PY_TARGETS)

## The C escaper benchmark: its own Release build, then the table.
## BENCH_ARGS="--quick" or "--json FILE" are passed through.
bench-c: venv
	$(CMAKE) -S . -B $(BUILD)/bench -DCMAKE_BUILD_TYPE=Release -DMARKUP_BUILD_BENCH=ON -DMARKUP_BUILD_TESTS=OFF
	$(CMAKE) --build $(BUILD)/bench -j $(JOBS) --target bench_escape
	$(BUILD)/bench/bench/bench_escape $(BENCH_ARGS)

pytest: install
	$(PY) -m pytest -q

jinja2-suite: install
	bash scripts/jinja2-suite.sh $(abspath $(PY)) $(abspath $(BUILD))/jinja2-suite

## Lint: no two C files of a library calling each other (layering);
## clang-format (check mode) over every C source; ruff (lint and format
## check) over the Python code; then clang-tidy over libmarkup/ and
## pymarkup/ (the static analyzer and the bugprone checks that .clang-tidy
## keeps; any finding fails; about 2 minutes at JOBS=2), from the compile
## commands of a Debug configure in $(BUILD)/tidy, whose asserts the
## analyzer reads. `make format` rewrites the formatting.
C_SOURCES = $(shell git ls-files '*.c' '*.h' '*.cpp' 2>/dev/null || find include libmarkup pymarkup tests fuzz bench examples -name '*.[ch]')
TIDY_SOURCES = $(wildcard libmarkup/*.c pymarkup/*.c)
lint-deps: $(VENV)/.lint-stamp
$(VENV)/.lint-stamp: requirements-lint.txt $(VENV)/.stamp
	$(PY) -m pip install -q -r requirements-lint.txt
	touch $@

lint: lint-deps layering
	$(VENV)/bin/clang-format --dry-run --Werror $(C_SOURCES)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(CMAKE) -S . -B $(BUILD)/tidy -DCMAKE_BUILD_TYPE=Debug -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
	  -DMARKUP_BUILD_PYTHON=ON -DMARKUP_BUILD_TESTS=ON -DPython_EXECUTABLE=$(abspath $(PY)) >/dev/null
	printf '%s\n' $(TIDY_SOURCES) | xargs -P $(JOBS) -n 1 \
	  $(VENV)/bin/clang-tidy -p $(BUILD)/tidy --quiet --warnings-as-errors='*'

## The layers of libmarkup/ and of pymarkup/ (pymarkup/state.h): the
## library and the extension built, then their objects read with nm; a
## pair of files that call each other fails, named with the calls.
layering: venv
	$(CMAKE) -S . -B $(BUILD)/layering -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMARKUP_BUILD_TESTS=OFF \
	  -DMARKUP_BUILD_PYTHON=ON -DMARKUP_WERROR=ON -DPython_EXECUTABLE=$(abspath $(PY))
	$(CMAKE) --build $(BUILD)/layering -j $(JOBS) --target _core
	$(PY) scripts/check-layering.py $(BUILD)/layering

format: lint-deps
	$(VENV)/bin/clang-format -i $(C_SOURCES)
	$(VENV)/bin/ruff format .

## The parser-state differential tests with 20x the trees `make test` draws
## (about 4 minutes): random trees rendered and read back by html5lib; then
## 10x the trees read by Chromium as well (about 1.5 minutes).
parser-state: install
	MARKUP_PARSER_STATE_EXAMPLES=6000 $(PY) -m pytest -q -p no:cacheprovider tests/python/test_parser_state.py
	MARKUP_BROWSER_EXAMPLES=5000 $(PY) -m pytest -q -p no:cacheprovider tests/python/test_browser.py

## The documentation site (MkDocs, strict: a broken link or anchor fails) into build/site.
.PHONY: docs
docs: $(VENV)/.docs-stamp
	$(VENV)/bin/mkdocs build --strict -d $(BUILD)/site

$(VENV)/.docs-stamp: requirements-docs.txt $(VENV)/.stamp
	$(PY) -m pip install -q -r requirements-docs.txt
	touch $@

## ASan+UBSan build of the library, the C tests and the extension: ctest
## there, then pytest against that very build (libasan preloaded).
.PHONY: asan
asan: venv
	$(CMAKE) -S . -B $(BUILD)/asan-py -DCMAKE_BUILD_TYPE=Debug -DMARKUP_SANITIZER=address,undefined -DMARKUP_BUILD_PYTHON=ON -DMARKUP_BUILD_TESTS=ON -DPython_EXECUTABLE=$(abspath $(PY))
	$(CMAKE) --build $(BUILD)/asan-py -j $(JOBS)
	$(VENV)/bin/ctest --test-dir $(BUILD)/asan-py --output-on-failure
	LD_PRELOAD=$$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 PYTHONPATH=$(BUILD)/asan-py/python $(PY) -m pytest -q -p no:cacheprovider

# Every fuzz harness: fuzz/fuzz_<name>.c (the rule fuzz/CMakeLists.txt states).
FUZZ_HARNESSES = $(sort $(basename $(notdir $(wildcard fuzz/fuzz_*.c))))

## The C tests and the C example under valgrind (memcheck): any memory
## error or leak fails.
valgrind: cbuild
	@set -e; for t in $(BUILD)/c/tests/test_* $(BUILD)/c/tests/example_*; do \
	  [ -x "$$t" ] && [ ! -d "$$t" ] || continue; \
	  echo "valgrind $$(basename $$t)"; \
	  valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	    "$$t" >/dev/null; \
	done; \
	for h in $(FUZZ_HARNESSES); do \
	  echo "valgrind replay_$$h (seeds)"; \
	  valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	    $(BUILD)/c/tests/replay_$$h fuzz/corpus/$$h >/dev/null; \
	done; echo "valgrind: every C test clean"
.PHONY: valgrind

## libFuzzer harnesses (clang, ASan+UBSan) in their own build: `fuzz` runs
## each for 60 s, `fuzz-ci` for 20 s; any crash, leak or timeout fails.
fuzz: fuzz-build
	bash fuzz/run.sh -t 60 -d $(BUILD)/fuzz/fuzz

fuzz-ci: fuzz-build
	bash fuzz/run.sh -t 20 -d $(BUILD)/fuzz/fuzz

fuzz-build: venv
	CC=clang $(CMAKE) -S . -B $(BUILD)/fuzz -DMARKUP_BUILD_FUZZERS=ON -DMARKUP_BUILD_TESTS=OFF
	$(CMAKE) --build $(BUILD)/fuzz -j $(JOBS)

## Platforms: the whole pytest suite on every wheel (x86_64 CPython
## 3.9-3.15, aarch64 3.11 and 3.13-3.15 under qemu-user, one line per
## wheel; about 40 minutes); and the installed C library found by
## pkg-config and by find_package(markup).
.PHONY: pythons bench-debian install-check
pythons: wheels
	MARKUP_WHEEL_SUITE=all bash scripts/wheel-test.sh

install-check: venv
	bash scripts/install-check.sh $(CMAKE)

## Release artifacts in dist/: a manylinux wheel per CPython, x86_64 for
## 3.9-3.15 (pyenv's 3.9-3.13, Debian's 3.14 and 3.15) and aarch64 for
## 3.11 and 3.13-3.15 (cross-compiled against Debian's arm64 CPythons),
## utf8proc linked in, checked by auditwheel and twine (wheels); each
## installed where the system's utf8proc is hidden and a page rendered
## (aarch64 under qemu-user), and the whole suite run against the wheels
## WHEEL_SUITE names, two at a time (wheel-test; `make pythons` runs it on
## all); the sdist, from the files git tracks or would track, and its
## install with and without utf8proc (sdist, sdist-check).
.PHONY: dist-deps wheels wheel-test old-glibc-check sdist sdist-check
dist-deps: $(VENV)/.dist-stamp

$(VENV)/.dist-stamp: requirements-dist.txt $(VENV)/.stamp
	$(PY) -m pip install -q -r requirements-dist.txt
	touch $@

wheels: venv dist-deps
	bash scripts/wheels.sh $(PY)

# The newest pyenv CPython and the two Debian ones (which no other run
# tests) on x86_64, and one on aarch64 (libmarkup's portable kernels under
# the Python API, with the settings of scripts/emulated-suite.sh): about 8
# minutes. 3.9 runs whole in old-glibc-check, 3.11 in `make test`.
WHEEL_SUITE ?= 3.13-x86_64 3.14-x86_64 3.15-x86_64 3.11-aarch64
wheel-test: wheels
	MARKUP_WHEEL_SUITE="$(WHEEL_SUITE)" bash scripts/wheel-test.sh

## The cp39 wheel on Debian 11 (glibc 2.31), older than this machine: the
## page check and the whole suite in a debootstrap chroot.
old-glibc-check: wheels
	bash scripts/old-glibc-check.sh

# Copied first: scikit-build-core walks the whole source folder, build/ and
# .venv included, which takes minutes in a working checkout.
sdist: venv dist-deps
	rm -rf $(BUILD)/sdist-tree dist/markup_html-*.tar.gz
	mkdir -p $(BUILD)/sdist-tree
	git ls-files -z --cached --others --exclude-standard | \
	  tar --null --no-recursion --ignore-failed-read -T - -cf - | tar -xf - -C $(BUILD)/sdist-tree
	$(PY) -m build --sdist --no-isolation --outdir dist $(BUILD)/sdist-tree

sdist-check: sdist
	bash scripts/sdist-check.sh $(PY)

clean:
	rm -rf $(BUILD)
