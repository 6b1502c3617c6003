#!/usr/bin/env bash
# The in-process benchmarks on ordo-one's package-benchmark, in two targets:
# castsim-core-benchmarks (Benchmarks/CastsimCoreBenchmarks: the device, the scenario session
# and the wire format, no runtime) and castsim-benchmarks (Benchmarks/CastsimBenchmarks: the
# runtime on its NIO loop, recording, memory, start-up, a fleet).
#
#   scripts/bench.sh [ARGS...]        run every benchmark and print its figures (ARGS go to
#                                     `swift package benchmark`, e.g. --filter 'core\..*')
#   scripts/bench.sh check            run the hot paths of both targets and compare their
#                                     allocations and wall clock with Benchmarks/Thresholds;
#                                     non-zero on a regression
#   scripts/bench.sh check-allocations
#                                     the hot paths of both targets, allocations alone: exact
#                                     run to run, so safe on a busy machine (what
#                                     scripts/test.sh, and so CI, runs). Run after `swift build
#                                     -c release --build-tests`: it runs the benchmark
#                                     executables that build made (scripts/check-allocations.py)
#                                     and builds nothing (a second `swift build` there relinked
#                                     and recompiled parts for 90 s)
#   scripts/bench.sh update           run the hot paths of both targets and rewrite the
#                                     thresholds (commit them with the change that moved
#                                     them, and say why)
#   scripts/bench.sh build            only build the benchmarks (release, as the plugin
#                                     builds them for run, check and update)
#
# The hot paths are the benchmarks named core.*, scenario.*, wire.* and runtime.embedded-*.
# Allowed deviations are in Benchmarks/Support (Tolerance): +25 % allocations, +200 % wall
# clock. Built in release into the default build folder.
set -euo pipefail
cd "$(dirname "$0")/.."

hot='^(core|scenario|wire|runtime\.embedded-).*'
thresholds=Benchmarks/Thresholds
all=(--target castsim-core-benchmarks --target castsim-benchmarks)
select=(--filter "$hot" --path "$thresholds" --no-progress)

case "${1:-run}" in
build)
    swift build -c release --product castsim-core-benchmarks
    swift build -c release --product castsim-benchmarks
    ;;
check)
    swift package benchmark thresholds check "${all[@]}" "${select[@]}" --metric mallocCountTotal --metric wallClock
    ;;
check-allocations)
    python3 scripts/check-allocations.py "$(swift build -c release --show-bin-path)" "$hot"
    ;;
update)
    swift package --allow-writing-to-package-directory benchmark thresholds update "${all[@]}" "${select[@]}" \
        --metric mallocCountTotal --metric wallClock
    ;;
*)
    [[ "${1:-}" == run ]] && shift
    swift package benchmark "${all[@]}" --no-progress "$@"
    ;;
esac
