#!/usr/bin/env bash
# Installs what `make cross-check` needs: Debian's cross compilers for
# 64-bit ARM, 32-bit ARM (hard-float) and s390x, qemu-user to run their programs, and the target
# architectures' cmocka and utf8proc (multiarch, which also brings each
# architecture's C library into /lib/<triple>). Runs apt-get only when
# something is missing.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
packages=(qemu-user)
for arch in arm64 armhf s390x; do
  case "$arch" in
    arm64) triple=aarch64-linux-gnu ;;
    armhf) triple=arm-linux-gnueabihf ;;
    s390x) triple=s390x-linux-gnu ;;
  esac
  packages+=("gcc-$triple" "g++-$triple" "libcmocka-dev:$arch" "libutf8proc-dev:$arch"
             "libstdc++6:$arch")
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
# Debian's archive holds every architecture on one mirror; Ubuntu's keeps
# foreign ones elsewhere, and other hosts would need other cross compilers.
if [ "$(dpkg --print-architecture)" != amd64 ] || ! grep -qx 'ID=debian' /etc/os-release; then
  echo "install-cross-deps.sh: written for Debian on amd64; install by hand: ${missing[*]}" >&2
  exit 1
fi
echo "installing Debian packages: ${missing[*]}"
for arch in arm64 armhf s390x; do
  dpkg --print-foreign-architectures | grep -qx "$arch" || $SUDO dpkg --add-architecture "$arch"
done
bash "$(dirname "$0")/apt-update.sh"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
