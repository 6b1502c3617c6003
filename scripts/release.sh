#!/usr/bin/env bash
# Builds castsim for people without a Swift toolchain, into dist/:
#
#   castsim-VERSION-linux-x86_64.tar.gz   castsim-VERSION/: the binary, README.md, the scenario
#                                         examples and their JSON Schema (scenarios/)
#   castsim-VERSION-py3-none-manylinux_2_NN_x86_64.whl
#                                         the Python package (client, pytest plugin) with the
#                                         binary inside it, and `castsim` as a command
#   SHA256SUMS
#
# The binary is a release build with the Swift runtime and Foundation linked in
# (--static-swift-stdlib), stripped: it needs only the C libraries every glibc Linux has
# (the script prints them, from ldd). The wheel's manylinux tag is the newest glibc symbol
# version the binary uses. The version is CastsimVersion.swift's; the wheel refuses to be
# made when the Python package says another (python/castsim/_version.py).
#
# Prints each file's size and the binary's start-to-ready time (the best of 5 starts of
# `castsim run` on loopback, every port ephemeral, mDNS off).
#
#   scripts/release.sh
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(sed -n 's/^ *public static let current = "\(.*\)"$/\1/p' Sources/CastSimulator/CastsimVersion.swift)"
[ -n "${version}" ] || { echo "release: no version in Sources/CastSimulator/CastsimVersion.swift" >&2; exit 1; }
arch="$(uname -m)"

echo "[release] castsim ${version}: release build (static Swift runtime)"
swift build -c release --product castsim --static-swift-stdlib
built="$(swift build -c release --show-bin-path)/castsim"

rm -rf dist
stage="dist/castsim-${version}"
mkdir -p "${stage}/scenarios"
cp "${built}" "${stage}/castsim"
strip "${stage}/castsim"
cp README.md "${stage}/"
cp scenarios/*.json scenarios/README.md "${stage}/scenarios/"

reported="$("${stage}/castsim" --version)"
case "${reported}" in
"castsim ${version} "*) ;;
*) echo "release: the binary says \"${reported}\", not castsim ${version}" >&2; exit 1 ;;
esac

# manylinux_2_NN: the newest GLIBC_2.NN the binary asks the dynamic linker for.
glibc="$(objdump -T "${stage}/castsim" | grep -oE 'GLIBC_2\.[0-9]+' | sort -t. -k2 -n | tail -1)"
platform="manylinux_2_${glibc#GLIBC_2.}_${arch}"

tar -C dist -czf "dist/castsim-${version}-linux-${arch}.tar.gz" "castsim-${version}"
python3 scripts/make-wheel.py --binary "${stage}/castsim" --version "${version}" --platform "${platform}" --out dist >/dev/null
(cd dist && sha256sum castsim-*.tar.gz castsim-*.whl > SHA256SUMS)

echo "[release] ${reported}; needs glibc ${glibc#GLIBC_} (${platform})"
echo "[release] shared libraries the binary loads:"
ldd "${stage}/castsim" | sed 's/^/    /'
echo "[release] sizes:"
for file in "${stage}/castsim" dist/castsim-*.tar.gz dist/castsim-*.whl; do
    awk -v name="${file}" -v bytes="$(stat -c %s "${file}")" 'BEGIN { printf "    %-60s %6.1f MB\n", name, bytes / 1e6 }'
done
python3 - "${stage}/castsim" <<'PY'
import subprocess, sys, time
best = None
for _ in range(5):
    started = time.monotonic()
    process = subprocess.Popen([sys.argv[1], "run", "--host", "127.0.0.1", "--port", "0", "--http-port", "off",
                                "--https-port", "off", "--control-port", "0", "--mdns", "off"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in process.stdout:
        if line.startswith("castsim ready"):
            took = time.monotonic() - started
            best = took if best is None else min(best, took)
            break
    process.terminate()
    process.wait()
if best is None:
    sys.exit("release: the binary printed no ready line")
print(f"[release] start to ready line: {best * 1000:.0f} ms (best of 5)")
PY
echo "[release] dist/:"
ls -1 dist | sed 's/^/    /'
