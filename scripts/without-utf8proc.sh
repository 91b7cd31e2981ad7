#!/usr/bin/env bash
# Runs a command on this machine as if utf8proc were not installed: in a
# private mount namespace, each directory holding a file of Debian's
# utf8proc packages (the library, its links, the header, the pkg-config
# file) is covered by an overlay in which those files are
# deleted. Nothing changes outside the command.
#
#   scripts/without-utf8proc.sh COMMAND [ARG...]
#
# Needs root (or CAP_SYS_ADMIN) for unshare and mount.
set -euo pipefail

if [ "${MARKUP_WITHOUT_UTF8PROC:-}" != 1 ]; then
  exec unshare --mount --propagation private env MARKUP_WITHOUT_UTF8PROC=1 bash "$(realpath "$0")" "$@"
fi

# Every installed package of utf8proc, for every architecture (libutf8proc2,
# libutf8proc3, ..., -dev; the arm64 copies that `make cross-check`
# installs would be found by the aarch64 wheels' tests under qemu).
mapfile -t packages < <(dpkg-query -W -f='${db:Status-Status} ${Package}:${Architecture}\n' \
  'libutf8proc*' 2>/dev/null | awk '$1 == "installed" {print $2}')
mapfile -t files < <(dpkg -L "${packages[@]}" 2>/dev/null |
  grep -v '^/usr/share/' | sort -u | while read -r f; do
    if [ -L "$f" ] || [ -f "$f" ]; then echo "$f"; fi
  done)
if [ ${#files[@]} -eq 0 ]; then
  echo "without-utf8proc.sh: dpkg lists no utf8proc files; nothing to hide" >&2
  exit 1
fi

mapfile -t dirs < <(printf '%s\n' "${files[@]}" | xargs -n1 dirname | sort -u)
scratch=$(mktemp -d)
cleanup() {
  for dir in "${dirs[@]}"; do umount "$dir" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT
n=0
for dir in "${dirs[@]}"; do
  n=$((n + 1))
  mkdir -p "$scratch/$n/upper" "$scratch/$n/work"
  for f in "${files[@]}"; do
    # A character device 0:0 in the upper layer is overlayfs' whiteout.
    [ "$(dirname "$f")" = "$dir" ] && mknod "$scratch/$n/upper/$(basename "$f")" c 0 0
  done
  mount -t overlay overlay \
    -o "lowerdir=$dir,upperdir=$scratch/$n/upper,workdir=$scratch/$n/work" "$dir"
done
for f in "${files[@]}"; do
  if [ -e "$f" ] || [ -L "$f" ]; then
    echo "without-utf8proc.sh: $f is still visible" >&2
    exit 1
  fi
done
"$@"
