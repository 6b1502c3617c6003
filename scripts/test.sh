#!/usr/bin/env bash
# Runs every test: the Swift unit and integration tests, the fuzz targets, the
# benchmarks' allocation thresholds, then the end-to-end tests that drive pychromecast
# and python-zeroconf (installed into a virtualenv by scripts/e2e-setup.sh), an
# avahi-daemon (installed by scripts/avahi-setup.sh; the discovery tests need root for
# their network namespaces) and headless chromium (the dashboard), and the Python
# package's own tests. Prints the time each stage took at the end (scripts/stages.sh).
#
# On a 2-core machine the stages are arranged so that both cores stay busy:
# - everything is built once in debug with the Avahi trait, so the end-to-end tests'
#   castsim (`--mdns avahi`) is the binary the unit tests ran against; the trait only
#   adds the Avahi backend (the plain configuration is compiled by the release build);
# - the release build (the core's benchmarks) and the sanitizer build (fuzzing) run at the
#   lowest CPU priority beside the end-to-end and Python tests, which mostly wait on sockets
#   and subprocesses: they take only the CPU those leave idle. The release build is the
#   core benchmark target alone (no TLS, HTTP or sockets: 4 CPU-minutes, not 11.5); the
#   runtime's benchmarks and their thresholds are `scripts/bench.sh check`, by hand;
# - the fuzz targets run two at a time, one per core.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/stages.sh

# Seconds per fuzz target; scripts/fuzz.sh's own default is longer.
FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
# pytest-xdist workers for the end-to-end and Python package tests.
E2E_WORKERS="${E2E_WORKERS:-3}"

stage "Avahi headers and daemon (scripts/avahi-setup.sh)" scripts/avahi-setup.sh
stage_start "Python virtualenv, chromium (scripts/e2e-setup.sh)" scripts/e2e-setup.sh
stage "swift build --build-tests --traits Avahi" swift build --build-tests --traits Avahi
bin="$(swift build --traits Avahi --show-bin-path)"

stage "swift test" swift test --skip-build --traits Avahi --skip "FairnessTests|ChurnTests"
# These measure latency while one sender misbehaves, and the process's descriptors and
# memory after connections come and go: alone, so that suites running in parallel
# neither take the cores they time nor allocate the memory they count.
stage "swift test: FairnessTests (alone)" swift test --skip-build --traits Avahi --filter FairnessTests
stage "swift test: ChurnTests (alone)" swift test --skip-build --traits Avahi --filter ChurnTests

# Beside the end-to-end tests, at the lowest priority: the two builds the benchmarks and
# fuzzing need (different folders, so they do not wait for each other's lock).
stage_start "release build of the benchmarks (nice 19)" nice -n 19 scripts/bench.sh build
stage_start "sanitizer build of the fuzz targets (nice 19)" nice -n 19 scripts/fuzz.sh build

stage_wait "Python virtualenv, chromium (scripts/e2e-setup.sh)"
stage "end-to-end (pychromecast, python-zeroconf, avahi-daemon, catt, the control API, the dashboard)" \
    env CASTSIM_BIN="${bin}/castsim" tests/e2e/run.sh -n "${E2E_WORKERS}" --durations=10
stage "the Python package: control API client and pytest plugin (python/)" \
    bash -c 'cd python && CASTSIM_BIN="$1/castsim" ../.venv-e2e/bin/python -m pytest -q -n "$2"' _ "${bin}" "${E2E_WORKERS}"

stage_wait "sanitizer build of the fuzz targets (nice 19)"
stage "fuzzing (${FUZZ_SECONDS} s per target, two at a time)" scripts/fuzz.sh run "${FUZZ_SECONDS}"
stage_wait "release build of the benchmarks (nice 19)"
stage "benchmarks: allocations of the core's hot paths against Benchmarks/Thresholds" scripts/bench.sh check-allocations
