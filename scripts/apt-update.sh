#!/usr/bin/env bash
# apt-get update for the install scripts. A Debian mirror that is being
# synced can serve one index (say bookworm-security's armhf list) with the
# wrong size for a while; apt-get then fails the whole update although
# every other index is fresh. Tried three times, 20 s apart; if an index
# still fails, that is said and the caller's apt-get install goes on with
# the indexes that were read: it fails by itself if a package it needs
# is not in them.
set -uo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
for attempt in 1 2 3; do
  $SUDO apt-get update -qq && exit 0
  [ "$attempt" -lt 3 ] && sleep 20
done
echo "apt-update.sh: apt-get update failed for some index three times (above); installing" \
  "from the indexes it read" >&2
exit 0
