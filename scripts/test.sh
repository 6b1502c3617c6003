#!/usr/bin/env bash
# Runs every test: the Swift unit and integration tests, then the end-to-end tests
# that drive pychromecast (installed into a virtualenv by tests/e2e/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== swift build"
swift build --build-tests
echo "== swift test"
swift test --skip-build
echo "== end-to-end (pychromecast)"
CASTSIM_BIN="$(swift build --show-bin-path)/castsim" tests/e2e/run.sh
