#!/usr/bin/env bash
# The in-process benchmarks (Benchmarks/CastsimBenchmarks, ordo-one's package-benchmark).
#
#   scripts/bench.sh [ARGS...]        run every benchmark and print its figures (ARGS go to
#                                     `swift package benchmark`, e.g. --filter 'core\..*')
#   scripts/bench.sh check            run the hot paths and compare their allocations and wall
#                                     clock with Benchmarks/Thresholds; non-zero on a regression
#   scripts/bench.sh check-allocations
#                                     the same for allocations alone: exact run to run, so safe
#                                     on a busy machine (what scripts/test.sh, and so CI, runs)
#   scripts/bench.sh update           run the hot paths and rewrite the thresholds (commit them
#                                     with the change that moved them, and say why)
#   scripts/bench.sh build            only build what the others run (release): the benchmarks
#                                     and package-benchmark's BenchmarkTool, as its plugin does,
#                                     so that a later run finds them built (scripts/test.sh builds
#                                     them beside other tests)
#
# The hot paths are the benchmarks named core.*, scenario.*, wire.* and runtime.embedded-*.
# Allowed deviations are in the benchmarks' configuration (Tolerance): +25 % allocations,
# +200 % wall clock. Built in release into the default build folder.
set -euo pipefail
cd "$(dirname "$0")/.."

hot='^(core|scenario|wire|runtime\.embedded-).*'
thresholds=Benchmarks/Thresholds
select=(--target castsim-benchmarks --filter "$hot" --path "$thresholds" --no-progress)

case "${1:-run}" in
build)
    swift build -c release --product castsim-benchmarks
    swift build -c release --product BenchmarkTool
    ;;
check)
    swift package benchmark thresholds check "${select[@]}" --metric mallocCountTotal --metric wallClock
    ;;
check-allocations)
    swift package benchmark thresholds check "${select[@]}" --metric mallocCountTotal
    ;;
update)
    swift package --allow-writing-to-package-directory benchmark thresholds update "${select[@]}" \
        --metric mallocCountTotal --metric wallClock
    ;;
*)
    [[ "${1:-}" == run ]] && shift
    swift package benchmark --target castsim-benchmarks --no-progress "$@"
    ;;
esac
