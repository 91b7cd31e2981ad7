#!/usr/bin/env bash
# Runs each libFuzzer harness for a fixed time with the HTML dictionary, on
# a fresh copy of its seed corpus in a scratch directory (the committed
# seeds are never written to). Exits non-zero if any harness finds a crash,
# a leak, a timeout or an out-of-memory; the reproducer is left in the
# scratch directory and its path printed.
#
#   fuzz/run.sh [-t SECONDS] [-d HARNESS_DIR] [-w WORK_DIR] [HARNESS...]
#
# Defaults: 60 s, harnesses from build/fuzz/fuzz, scratch in build/fuzz-runs,
# every harness. Extra libFuzzer flags can go in FUZZ_FLAGS.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
seconds=60
bindir="$root/build/fuzz/fuzz"
workdir="$root/build/fuzz-runs"

while getopts "t:d:w:" opt; do
  case "$opt" in
    t) seconds="$OPTARG" ;;
    d) bindir="$OPTARG" ;;
    w) workdir="$OPTARG" ;;
    *) echo "usage: $0 [-t SECONDS] [-d HARNESS_DIR] [-w WORK_DIR] [HARNESS...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  # Every harness: fuzz/fuzz_<name>.c (the rule fuzz/CMakeLists.txt states).
  for source in "$here"/fuzz_*.c; do harnesses+=("$(basename "$source" .c)"); done
fi

failed=()
for name in "${harnesses[@]}"; do
  exe="$bindir/$name"
  if [ ! -x "$exe" ]; then
    echo "run.sh: $exe not found (build with -DMARKUP_BUILD_FUZZERS=ON, or: make fuzz)" >&2
    exit 2
  fi
  work="$workdir/$name"
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts"
  if [ -d "$here/corpus/$name" ]; then
    cp -R "$here/corpus/$name/." "$work/corpus/"
  fi
  # The escaper works in 16 KiB pieces: its inputs may be long enough to
  # cross two piece boundaries (libFuzzer lengthens inputs gradually).
  max_len=4096
  [ "$name" = fuzz_escape ] && max_len=40000
  log="$work/fuzz.log"
  echo "== $name: ${seconds}s (log: $log)"
  status=0
  # shellcheck disable=SC2086  # FUZZ_FLAGS is a list of flags
  "$exe" "$work/corpus" \
    -dict="$here/html.dict" \
    -max_total_time="$seconds" \
    -max_len="$max_len" \
    -timeout=20 \
    -rss_limit_mb=2048 \
    -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" \
    ${FUZZ_FLAGS:-} >"$log" 2>&1 || status=$?
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
  artifacts="$(find "$work/artifacts" -type f | head -n 5)"
  if [ "$status" -ne 0 ] || [ -n "$artifacts" ]; then
    echo "   FAILED (exit $status)"
    grep -E "ERROR|invariant violated|runtime error|SUMMARY|Test unit written" "$log" | head -n 20 | sed 's/^/   /' || true
    [ -z "$artifacts" ] || echo "$artifacts" | sed 's/^/   reproducer: /'
    failed+=("$name")
  else
    echo "   ok: ${execs:-?} executions, ${rate:-?} exec/s, corpus $(find "$work/corpus" -type f | wc -l) files"
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzzing found problems in: ${failed[*]}" >&2
  exit 1
fi
