#!/usr/bin/env bash
# Runs every test: the Swift unit and integration tests, then the end-to-end tests
# that drive pychromecast (installed into a virtualenv by tests/e2e/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== swift build"
swift build --build-tests
echo "== swift test"
swift test --skip-build --skip FairnessTests
# These measure other senders' latency while one misbehaves: alone, so that the
# other suites running in parallel do not take the cores they measure.
echo "== swift test (fairness, alone)"
swift test --skip-build --filter FairnessTests
echo "== fuzzing (45 s per target)"
scripts/fuzz.sh 45
echo "== end-to-end (pychromecast)"
CASTSIM_BIN="$(swift build --show-bin-path)/castsim" tests/e2e/run.sh
