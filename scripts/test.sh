#!/usr/bin/env bash
# Runs every test: the Swift unit and integration tests, the release artifacts as a user
# without Swift installs them, the end-to-end tests that drive pychromecast and
# python-zeroconf (installed into a virtualenv by scripts/e2e-setup.sh), an avahi-daemon
# (installed by scripts/avahi-setup.sh; the discovery tests need root for their network
# namespaces) and headless chromium (the dashboard), the Python package's own tests, the
# fuzz targets and the benchmarks' allocation thresholds. Prints the time each stage took
# at the end (scripts/stages.sh).
#
# On a 2-core machine the stages are arranged so that both cores stay busy:
# - everything is built once, in release: the Swift tests, the benchmarks, and castsim,
#   which scripts/release.sh links again with the Swift runtime inside; the end-to-end and
#   Python tests run that shipped binary. (A debug build for the tests beside a release
#   build for the artifacts and benchmarks would compile NIO, TLS and HTTP twice: some 9
#   CPU-minutes more than the 15 minutes hold.) Nothing may build any part again with
#   other flags: the benchmarks' allocations are read from these very executables, and
#   the test targets are compiled without optimization in this build (Package.swift).
#   Without debug info (`-debug-info-format none`): it took a quarter of the build's CPU
#   (24 CPU-minutes with it, 18 without; 16-17 once swift-crypto's second copy of BoringSSL
#   and swift-certificates were gone, CastCredentials says why; some 2.4 fewer again once
#   SwiftProtobuf was no longer built, 16:00 against 18:21 in two runs an hour apart), and
#   nothing here reads it: the shipped binary is stripped, and a crash's backtrace still names its
#   functions (from the symbol table), only not its lines.
# - the sanitizer build and the fuzzing run at the lowest CPU priority beside the Swift,
#   end-to-end, Python and release tests, which mostly wait on sockets and subprocesses:
#   they take only the CPU those leave idle;
# - the fuzz targets run two at a time, one per core.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/stages.sh

# Seconds per fuzz target (10: the run is CPU-bound, and every fuzzing second of the six
# targets, two at a time, is a core-second the 15 minutes lack); scripts/fuzz.sh's own
# default is longer.
FUZZ_SECONDS="${FUZZ_SECONDS:-10}"
# pytest-xdist workers for the end-to-end and Python package tests.
E2E_WORKERS="${E2E_WORKERS:-3}"

# The builds take about 6 GB (release, the sanitizer build, the artifacts); a full disk
# shows as a failed link or clone much later, so say up front how much there is.
echo "== disk: $(df -h --output=avail . | tail -1 | tr -d ' ') free where the builds go"

stage "Avahi and D-Bus for the discovery tests (scripts/avahi-setup.sh)" scripts/avahi-setup.sh
# A step lower in priority than the build beside it, which the CPU bounds (its 40 CPU-seconds
# were some 20 s of the build's wall clock); it has the whole build to finish in.
stage_start "Python virtualenv, chromium (scripts/e2e-setup.sh; nice 10)" nice -n 10 scripts/e2e-setup.sh
stage "swift build -c release --build-tests (no debug info)" swift build -c release --build-tests -debug-info-format none
# From here on, at the lowest priority, in its own scratch folder (no wait for the release
# build's lock): the build fuzzing needs, then the fuzzing. They take the CPU the tests
# leave idle; beside a test at normal priority they get about 1/70 of a core. Each fuzz
# target runs for a fixed time whatever CPU it gets, so the run ends with the tests
# rather than 35 s after them.
stage_start "sanitizer build and fuzzing (${FUZZ_SECONDS} s per target, two at a time; nice 19)" \
    nice -n 19 bash -c 'scripts/fuzz.sh build && scripts/fuzz.sh run "$1"' _ "${FUZZ_SECONDS}"
# Packaging castsim, and the core's allocation counts (exact run to run, so the tests beside
# them do not change them), from the benchmark executables this release build made
# (scripts/check-allocations.py: seconds; package-benchmark's plugin would compile the
# modules again without -enable-testing).
stage_start "release artifacts (scripts/release.sh --no-build)" scripts/release.sh --no-build
stage_start "the benchmarks' allocations (scripts/bench.sh check-allocations)" scripts/bench.sh check-allocations

# The Swift tests that keep real time, run after the end-to-end tests (below): a sender
# that streams RTP every 33 ms against an idle timeout of 1.5 s, and castsim-load's
# 2-second mirroring session whose every frame must be acknowledged. Beside the end-to-end
# tests they get as little as a tenth of a core (nice 10 against nice 0), and in a
# clean-clone run of this script both failed (the sender's packets came too late for the
# timeout; frames went unacknowledged by the end).
realtime_tests='StreamingRuntimeTests|CastsimLoadRunTests/streaming\(\)'

# The Swift tests, the Python package's and the end-to-end tests side by side: each leaves
# much of a core idle (they wait on sockets, subprocesses and real-time sessions), and one
# after another they were the longest chain of the run (1:26, then 0:55 of the tests that
# run alone, then 2:56). Every suite runs its castsim processes on random loopback
# addresses of their own (the castsim package's free_loopback_address; the Swift tests bind
# port 0), and release-test.sh hides the toolchain only in a mount namespace of its own.
# All but the end-to-end tests at nice 10. The Cast Streaming tests are not among them: they
# run after, beside the fuzzing alone. cast_sender encodes a video as it reads it, in real
# time, and beside the other suites it fell to a third of real time (336 video frames in
# 30 s) and its picture never turned blue: in one CI run at equal priority, in one at nice 10.
stage_start "swift test (nice 10)" nice -n 10 swift test -c release --skip-build --skip "FairnessTests|ChurnTests|${realtime_tests}"
stage_wait "release artifacts (scripts/release.sh --no-build)"
castsim="$(pwd)/$(ls -d dist/castsim-*/ | head -1)castsim"
stage_wait "Python virtualenv, chromium (scripts/e2e-setup.sh; nice 10)"
stage_start "release artifacts without Swift (scripts/release-test.sh; nice 10)" nice -n 10 scripts/release-test.sh --no-build
stage_start "the Python package: client and pytest plugin (python/; nice 10)" \
    nice -n 10 bash -c 'cd python && CASTSIM_BIN="$1" ../.venv-e2e/bin/python -m pytest -q -n "$2"' _ "${castsim}" "${E2E_WORKERS}"
stage "end-to-end, the release binary (pychromecast, zeroconf, avahi, catt, chromium)" \
    env CASTSIM_BIN="${castsim}" tests/e2e/run.sh -n "${E2E_WORKERS}" --durations=10 --ignore=tests/e2e/test_cast_streaming.py
stage_wait "swift test (nice 10)"
stage_wait "the Python package: client and pytest plugin (python/; nice 10)"
stage_wait "release artifacts without Swift (scripts/release-test.sh; nice 10)"
stage_wait "the benchmarks' allocations (scripts/bench.sh check-allocations)"
stage "end-to-end: Cast Streaming (cast_sender in real time)" \
    env CASTSIM_BIN="${castsim}" tests/e2e/run.sh -n "${E2E_WORKERS}" --durations=5 -k test_cast_streaming
stage "swift test: Cast Streaming in real time (alone)" swift test -c release --skip-build --filter "${realtime_tests}"
# These measure latency while one sender misbehaves, and the process's descriptors and
# memory after connections come and go: without other tests, so that suites running in
# parallel neither take the cores they time nor allocate the memory they count. (The
# fuzzing, at nice 19, takes what they leave.)
stage "swift test: FairnessTests (alone)" swift test -c release --skip-build --filter FairnessTests
stage "swift test: ChurnTests (alone)" swift test -c release --skip-build --filter ChurnTests
stage_wait "sanitizer build and fuzzing (${FUZZ_SECONDS} s per target, two at a time; nice 19)"
