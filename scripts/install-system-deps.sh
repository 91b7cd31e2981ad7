#!/usr/bin/env bash
# Installs the Debian packages the build, tests and fuzzers need.
# Runs apt-get (after apt-get update) only when something is missing.
set -euo pipefail
# chromium: the browser whose HTML parser tests/python/test_browser.py reads
# markup's output with, headless (no display, no fonts, no sandbox helper:
# the recommends left out below are not needed).
packages=(build-essential pkg-config libcmocka-dev libutf8proc-dev clang libclang-rt-14-dev valgrind chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing Debian packages: ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
bash "$(dirname "$0")/apt-update.sh"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
