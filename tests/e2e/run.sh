#!/usr/bin/env bash
# Run the castsim end-to-end tests against the already-built binary.
#
#   tests/e2e/run.sh [extra pytest args...]     e.g. -k volume, -x
#
# CASTSIM_BIN overrides the binary (default .build/debug/castsim); this script
# does not build it. Exits with pytest's status (124 if the overall timeout hit).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
"${repo_root}/scripts/e2e-setup.sh"

cd "${repo_root}"
echo "[e2e] running pytest with ${repo_root}/.venv-e2e/bin/python"
# scripts/test.sh runs it on pytest-xdist workers (-n N): every test can run beside any
# other (tests/e2e/README.md). The timeout is a safety net against a hang:
# SIGINT lets pytest run fixture teardown (stopping castsim), then SIGKILL.
exec timeout --signal=INT --kill-after=30 "${E2E_TIMEOUT:-600}" \
    "${repo_root}/.venv-e2e/bin/python" -m pytest -v tests/e2e "$@"
