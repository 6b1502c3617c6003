#!/usr/bin/env bash
# Installs what the Avahi backend's tests need (Debian): avahi-daemon and avahi-utils to
# run and browse, dbus for the daemon's private bus, libavahi-client3, which castsim opens
# for `--mdns avahi` (nothing of Avahi is needed to build it). Does nothing when they are
# all there.
set -euo pipefail
packages=(avahi-daemon avahi-utils dbus libavahi-client3)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "${package}" 2>/dev/null | grep -q "install ok installed" || missing+=("${package}")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "[avahi-setup] ${packages[*]} already installed"
    exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "[avahi-setup] error: missing ${missing[*]}; install them with apt-get (needs root)" >&2
    exit 1
fi
echo "[avahi-setup] installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
    || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
# The package's own daemon is not wanted: the tests start theirs inside network namespaces.
pkill -x avahi-daemon 2>/dev/null || true
