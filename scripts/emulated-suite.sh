# Sourced by the scripts that run the pytest suite under qemu-user
# (cross-pytest.sh, wheel-test.sh for the aarch64 wheels): what no CPU
# changes is left to the native runs, to keep these in CI's time (under
# qemu the whole suite took about half an hour). The parser-state and
# browser differentials (the writer's rules) run a tenth of their trees,
# and the reference-count and leak loops (Python object handling, over half
# the native time) do not run; time limits are 20 times longer.
# shellcheck shell=bash disable=SC2034
emulated_env=(MARKUP_TEST_TIME_SCALE=20 MARKUP_PARSER_STATE_EXAMPLES=30 MARKUP_BROWSER_EXAMPLES=50)
emulated_pytest_args=(--ignore=tests/python/test_refcount.py --ignore=tests/python/test_leaks.py)
