#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/castsim-fuzz/ (one executable, with AddressSanitizer,
# in their own scratch path) and runs each from its seed corpus for a bounded time.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]        build, then run (default: 60 s each, every target)
#   scripts/fuzz.sh build [TARGET...]            build only
#   scripts/fuzz.sh run [SECONDS] [TARGET...]    run what was built
#
# Targets run FUZZ_JOBS at a time (default: one per core), each with its output kept
# apart and printed when it ends, then a line with its coverage at the start and at the
# end (libFuzzer's `cov:`, the code edges reached) and the inputs it ran.
#
# Exits non-zero when a target crashes, trips a sanitizer, runs out of memory or takes
# over 10 s on one input; the input that did it is kept in .build-fuzz/artifacts/TARGET/
# (replay it with `.build-fuzz/debug/TARGET FILE`: each target's name is a link to the
# executable, which runs the target it is started as). New inputs the fuzzer finds go to a
# temporary corpus; the committed seeds (scripts/fuzz-seeds.py writes them) stay as
# they are.
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(FuzzFrames FuzzMessage FuzzJSON FuzzDevice FuzzDNS FuzzRecording)
scratch=.build-fuzz
# SwiftPM hands swiftc `-sanitize=fuzzer -sanitize=address` as two options, and swiftc
# passes only the last one to the compiler (the linker gets both): every Swift module,
# the fuzz targets' own included, was built with AddressSanitizer but no coverage, and
# libFuzzer ran blind ("no interesting inputs were found"). A last option naming both
# gives Swift code coverage and ASan; C targets (clang) and the link already get both.
build=(swift build --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address --scratch-path "$scratch")
# SwiftPM keeps the sanitizers in a Set and writes them into every compile command in the
# Set's order, which Swift's per-process hash seed makes random: a second `swift build` here
# (the run's --show-bin-path, a build after an edit) saw changed commands and compiled the
# whole closure again. A fixed seed keeps the order.
export SWIFT_DETERMINISTIC_HASHING=1

# Builds castsim-fuzz, then links each target's name to it. (Every target is in the one
# executable: six products were six links and six builds to plan, some 15 CPU-seconds.)
build_targets() {
    local bin target
    for target in "$@"; do
        if [[ " ${all_targets[*]} " != *" ${target} "* ]]; then
            echo "[fuzz] no target ${target}: the targets are ${all_targets[*]}"
            return 1
        fi
    done
    echo "[fuzz] building castsim-fuzz (targets: $*)"
    "${build[@]}" --product castsim-fuzz
    bin="$("${build[@]}" --show-bin-path)"
    for target in "$@"; do
        ln -sfn castsim-fuzz "${bin}/${target}"
    done
}

# TARGET SECONDS WORK BIN: one fuzzer, its output in WORK/TARGET.log, its status in WORK/TARGET.status.
run_target() {
    local target=$1 seconds=$2 work=$3 bin=$4
    mkdir -p "${work}/${target}" "${scratch}/artifacts/${target}"
    local extra=() asan_options="${ASAN_OPTIONS:-}"
    # FuzzDNS keeps one responder across inputs (it must be announced to answer). Swift
    # stores enum case tags in a pointer's spare bits (DNSRecord's nsec and other cases),
    # so LeakSanitizer's scan at exit does not see those pointers and reports the arrays
    # they hold as leaked. Leak checking means nothing for that state; the rest stays.
    # -detect_leaks=0 stops libFuzzer's check after each input; LeakSanitizer's own
    # check at exit is ASAN_OPTIONS' (a CI run failed on it with 72 bytes in that state).
    if [ "${target}" = FuzzDNS ]; then extra=(-detect_leaks=0); asan_options="detect_leaks=0${asan_options:+:${asan_options}}"; fi
    local status=0
    ASAN_OPTIONS="${asan_options}" "${bin}/${target}" -max_total_time="${seconds}" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 "${extra[@]}" \
        -artifact_prefix="${scratch}/artifacts/${target}/" "${work}/${target}" "Fuzz/Corpus/${target}" \
        > "${work}/${target}.log" 2>&1 || status=$?
    echo "${status}" > "${work}/${target}.status"
}

report_target() { # TARGET WORK: its output (less the progress lines), its coverage; non-zero if it failed
    local target=$1 work=$2 log status inited done runs
    log="${work}/${target}.log"
    status="$(cat "${work}/${target}.status")"
    echo "[fuzz] ${target}:"
    grep -vE '^#[0-9]+\s+(NEW|REDUCE|pulse)|^"|^\s+NEW_FUNC' "${log}" || true
    inited="$(grep -oE 'INITED cov: [0-9]+' "${log}" | grep -oE '[0-9]+$' || echo '?')"
    done="$(grep -oE 'DONE +cov: [0-9]+' "${log}" | grep -oE '[0-9]+$' || echo '?')"
    runs="$(grep -oE 'number_of_executed_units: [0-9]+' "${log}" | grep -oE '[0-9]+$' || echo '?')"
    if [ "${status}" != 0 ]; then
        echo "[fuzz] ${target} FAILED (exit ${status}); the input is in ${scratch}/artifacts/${target}/"
        return 1
    fi
    echo "[fuzz] ${target}: coverage ${inited} -> ${done} edges, ${runs} inputs"
}

run_targets() {
    local seconds=$1; shift
    local targets=("$@") jobs="${FUZZ_JOBS:-$(nproc)}" work failed=0 target bin
    bin="$("${build[@]}" --show-bin-path)"
    work="$(mktemp -d)"
    trap 'rm -rf "${work}"' RETURN
    for target in "${targets[@]}"; do
        # A target without seeds starts blind (libFuzzer even exits on a missing folder).
        if [ -z "$(ls -A "Fuzz/Corpus/${target}" 2>/dev/null)" ]; then
            echo "[fuzz] ${target} has no seeds in Fuzz/Corpus/${target}/ (scripts/fuzz-seeds.py writes the generated ones)"
            return 1
        fi
        echo "[fuzz] ${target} for ${seconds} s from $(ls "Fuzz/Corpus/${target}" | wc -l) seeds"
    done
    # FUZZ_JOBS at a time: start one whenever one ends.
    local running=0 next=0 done_count=0 reported=()
    while [ "${done_count}" -lt "${#targets[@]}" ]; do
        while [ "${running}" -lt "${jobs}" ] && [ "${next}" -lt "${#targets[@]}" ]; do
            run_target "${targets[$next]}" "${seconds}" "${work}" "${bin}" &
            next=$((next + 1)); running=$((running + 1))
        done
        wait -n || true
        running=$((running - 1))
        # Report every target that has ended, in the order they were listed.
        for target in "${targets[@]}"; do
            if [ -f "${work}/${target}.status" ] && [[ " ${reported[*]} " != *" ${target} "* ]]; then
                reported+=("${target}")
                done_count=$((done_count + 1))
                report_target "${target}" "${work}" || failed=1
            fi
        done
    done
    wait
    if [ "${failed}" != 0 ]; then
        echo "[fuzz] a target failed"
        return 1
    fi
    echo "[fuzz] every target ran ${seconds} s without a failure"
}

case "${1:-}" in
build)
    shift
    [ $# -gt 0 ] || set -- "${all_targets[@]}"
    build_targets "$@"
    ;;
run)
    shift
    seconds="${1:-60}"
    shift || true
    [ $# -gt 0 ] || set -- "${all_targets[@]}"
    run_targets "${seconds}" "$@"
    ;;
*)
    seconds="${1:-60}"
    shift || true
    [ $# -gt 0 ] || set -- "${all_targets[@]}"
    build_targets "$@"
    run_targets "${seconds}" "$@"
    ;;
esac
