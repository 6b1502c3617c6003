#!/usr/bin/env bash
# Builds castsim for people without a Swift toolchain, into dist/:
#
#   castsim-VERSION-linux-x86_64.tar.gz   castsim-VERSION/: the binary, README.md, the scenario
#                                         examples and their JSON Schema (scenarios/), the
#                                         licenses of what is linked in (THIRD-PARTY-NOTICES.txt)
#   castsim-VERSION-py3-none-manylinux_2_NN_x86_64.whl
#                                         the Python package (client, pytest plugin) with the
#                                         binary inside it, and `castsim` as a command
#   SHA256SUMS
#
# The binary is the release build's castsim with the Swift runtime and Foundation linked in,
# stripped: it needs only the C libraries every glibc Linux has (the script prints them,
# from ldd, and fails on any other). The wheel's manylinux tag is the newest glibc symbol
# version the binary uses. The version is CastsimVersion.swift's; the wheel refuses to be
# made when the Python package says another (python/castsim/_version.py).
#
# Why not `swift build --static-swift-stdlib`: that compiles every Swift module again
# (against the toolchain's static resource folder, which has no Testing module, so the
# tests cannot be built that way), some 8 CPU-minutes that CI has no room for. Instead the
# one release build that the tests, the end-to-end tests and the benchmarks use is linked
# a second time: SwiftPM's own link command for castsim, with -static-stdlib and the static
# Foundation archives. The end-to-end tests then run the very binary that ships.
#
# Prints each file's size and the binary's start-to-ready time (the best of 5 starts of
# `castsim run` on loopback, every port ephemeral, mDNS off).
#
#   scripts/release.sh              swift build -c release, then the artifacts
#   scripts/release.sh --no-build   the artifacts from the release build already there
#                                   (scripts/test.sh: `swift build -c release --build-tests`)
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(sed -n 's/^ *public static let current = "\(.*\)"$/\1/p' Sources/CastSimulator/CastsimVersion.swift)"
[ -n "${version}" ] || { echo "release: no version in Sources/CastSimulator/CastsimVersion.swift" >&2; exit 1; }
arch="$(uname -m)"
bin="$(swift build -c release --show-bin-path)"

if [ "${1:-}" != "--no-build" ]; then
    echo "[release] castsim ${version}: release build"
    swift build -c release --product castsim
fi
[ -x "${bin}/castsim" ] || { echo "release: no release build of castsim in ${bin}: run swift build -c release" >&2; exit 1; }

# SwiftPM's link command for castsim, as it runs it: the build's llbuild manifest
# (.build/release.yaml) holds it, arguments as a JSON list. (`swift build -v` would print
# it too, but -v changes every compile command, and so compiles everything again.)
link_args="$(python3 - "$(dirname "$(dirname "${bin}")")/release.yaml" "${bin}/castsim" <<'PY'
import json, shlex, sys
manifest, binary = sys.argv[1], sys.argv[2]
with open(manifest) as lines:
    for line in lines:
        line = line.strip()
        if line.startswith("args: [") and f'"-o","{binary}"' in line.replace(", ", ","):
            print(shlex.join(json.loads(line[len("args: "):])))
            break
    else:
        sys.exit(f"release: no link command for {binary} in {manifest}")
PY
)"
# The static archives of Foundation and what it needs (ICU, its C shims and collections),
# in one group so that their order does not matter; the linker takes only the members
# castsim uses. FoundationNetworking and FoundationXML (curl, libxml2) are left out.
static="$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/swift_static/linux"
archives=()
for archive in "${static}"/lib*.a; do
    case "$(basename "${archive}")" in
    libFoundationNetworking.a | libFoundationXML.a | lib_CFURLSessionInterface.a | lib_CFXMLInterface.a) ;;
    *) archives+=(-Xlinker "${archive}") ;;
    esac
done
linked="${bin}/castsim-static"
eval "set -- ${link_args}"
args=()
while [ $# -gt 0 ]; do
    if [ "$1" = -o ]; then args+=(-o "${linked}"); shift 2; else args+=("$1"); shift; fi
done
echo "[release] linking castsim with the Swift runtime and Foundation inside"
"${args[@]}" -static-stdlib -Xlinker --start-group "${archives[@]}" -Xlinker --end-group 2>&1 \
    | grep -v "the use of \`mktemp' is dangerous" || true
[ -x "${linked}" ] || { echo "release: the static link of castsim failed" >&2; exit 1; }

rm -rf dist
stage="dist/castsim-${version}"
mkdir -p "${stage}/scenarios"
cp "${linked}" "${stage}/castsim"
strip "${stage}/castsim"
cp README.md "${stage}/"
# The licenses of what is linked in (castsim's own: the repository's LICENSE, when it has one).
python3 scripts/third-party-notices.py "${bin}/castsim.product/Objects.LinkFileList" \
    "$(dirname "$(dirname "${bin}")")/checkouts" \
    "$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/share/swift/LICENSE.txt" > "${stage}/THIRD-PARTY-NOTICES.txt"
if [ -f LICENSE ]; then cp LICENSE "${stage}/"; fi
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
python3 scripts/make-wheel.py --binary "${stage}/castsim" --notices "${stage}/THIRD-PARTY-NOTICES.txt" \
    --version "${version}" --platform "${platform}" --out dist >/dev/null
(cd dist && sha256sum castsim-*.tar.gz castsim-*.whl > SHA256SUMS)

echo "[release] ${reported}; needs glibc ${glibc#GLIBC_} (${platform})"
echo "[release] shared libraries the binary loads:"
ldd "${stage}/castsim" | sed 's/^/    /'
unexpected="$(ldd "${stage}/castsim" | awk '{print $1}' | grep -vE '^(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1)$' || true)"
[ -z "${unexpected}" ] || { echo "release: the binary needs more than the C libraries every glibc Linux has: ${unexpected}" >&2; exit 1; }
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
