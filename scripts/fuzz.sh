#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (with AddressSanitizer, in their own scratch
# path) and runs each from its seed corpus for a bounded time.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     default: 60 s each, every target
#
# Exits non-zero when a target crashes, trips a sanitizer, runs out of memory or takes
# over 10 s on one input; the input that did it is kept in .build-fuzz/artifacts/TARGET/
# (replay it with `.build-fuzz/debug/TARGET FILE`). New inputs the fuzzer finds go to a
# temporary corpus; the committed seeds (scripts/fuzz-seeds.py writes them) stay as
# they are.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(FuzzFrames FuzzMessage FuzzJSON FuzzDevice FuzzDNS FuzzRecording); fi

scratch=.build-fuzz
# SwiftPM hands swiftc `-sanitize=fuzzer -sanitize=address` as two options, and swiftc
# passes only the last one to the compiler (the linker gets both): every Swift module,
# the fuzz targets' own included, was built with AddressSanitizer but no coverage, and
# libFuzzer ran blind ("no interesting inputs were found"). A last option naming both
# gives Swift code coverage and ASan; C targets (clang) and the link already get both.
build=(swift build --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address --scratch-path "$scratch")
for target in "${targets[@]}"; do
    echo "[fuzz] building ${target}"
    "${build[@]}" --product "${target}"
done
bin="$("${build[@]}" --show-bin-path)"

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
for target in "${targets[@]}"; do
    mkdir -p "${work}/${target}" "${scratch}/artifacts/${target}"
    echo "[fuzz] ${target} for ${seconds} s from $(ls Fuzz/Corpus/${target} | wc -l) seeds"
    extra=()
    asan_options="${ASAN_OPTIONS:-}"
    # FuzzDNS keeps one responder across inputs (it must be announced to answer). Swift
    # stores enum case tags in a pointer's spare bits (DNSRecord's nsec and other cases),
    # so LeakSanitizer's scan at exit does not see those pointers and reports the arrays
    # they hold as leaked. Leak checking means nothing for that state; the rest stays.
    # -detect_leaks=0 stops libFuzzer's check after each input; LeakSanitizer's own
    # check at exit is ASAN_OPTIONS' (a CI run failed on it with 72 bytes in that state).
    if [ "${target}" = FuzzDNS ]; then extra=(-detect_leaks=0); asan_options="detect_leaks=0${asan_options:+:${asan_options}}"; fi
    ASAN_OPTIONS="${asan_options}" "${bin}/${target}" -max_total_time="${seconds}" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 "${extra[@]}" \
        -artifact_prefix="${scratch}/artifacts/${target}/" "${work}/${target}" "Fuzz/Corpus/${target}" 2>&1 \
        | grep -vE '^#[0-9]+\s+(NEW|REDUCE|pulse)|^"' || { echo "[fuzz] ${target} FAILED"; exit 1; }
done
echo "[fuzz] every target ran ${seconds} s without a failure"
