#!/usr/bin/env bash
# Runs every test: the Swift unit and integration tests, the fuzz targets, the
# benchmarks' allocation thresholds, then the end-to-end tests that drive pychromecast
# and python-zeroconf (installed into a virtualenv by tests/e2e/run.sh), an avahi-daemon
# (installed by scripts/avahi-setup.sh; the discovery tests need root for their network
# namespaces) and headless chromium (the dashboard), and the Python package's own tests.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== swift build"
swift build --build-tests
echo "== swift test"
swift test --skip-build --skip "FairnessTests|ChurnTests"
# These measure latency while one sender misbehaves, and the process's descriptors and
# memory after connections come and go: alone, so that suites running in parallel
# neither take the cores they time nor allocate the memory they count.
echo "== swift test (fairness and churn, alone)"
swift test --skip-build --filter FairnessTests
swift test --skip-build --filter ChurnTests
echo "== fuzzing (45 s per target)"
scripts/fuzz.sh 45
echo "== benchmarks: allocations of the hot paths against Benchmarks/Thresholds"
scripts/bench.sh check-allocations
echo "== benchmarks: a 50-device fleet's start time and memory per idle device (figures, no threshold)"
scripts/bench.sh --filter 'runtime\.fleet-50-start'
# The end-to-end tests run castsim with the Avahi backend too (`--mdns avahi`): the
# castsim they use is built with the trait, after everything that uses the plain build.
echo "== castsim with the Avahi trait"
scripts/avahi-setup.sh
swift build --traits Avahi --product castsim
echo "== end-to-end (pychromecast, python-zeroconf, avahi-daemon, the device-auth verifier, the control API, the dashboard)"
CASTSIM_BIN="$(swift build --show-bin-path)/castsim" tests/e2e/run.sh
# tests/e2e/run.sh made the virtualenv and installed python/ into it.
echo "== the Python package: control API client and pytest plugin (python/)"
(cd python && CASTSIM_BIN="$(cd .. && swift build --show-bin-path)/castsim" ../.venv-e2e/bin/python -m pytest -q)
