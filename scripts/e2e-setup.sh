#!/usr/bin/env bash
# Idempotently create the virtualenv used by the end-to-end tests (tests/e2e).
#
#   scripts/e2e-setup.sh            # create/update <repo>/.venv-e2e
#
# The venv lives at <repo root>/.venv-e2e (gitignored). pychromecast is pinned
# exactly because the tests rely on its wire behaviour (connect sequence,
# heartbeat timeouts); it pulls in zeroconf, protobuf and casttube.
set -euo pipefail

PYCHROMECAST_VERSION="14.0.10"
# Checks the example scenarios against scenarios/scenario.schema.json.
JSONSCHEMA_VERSION="4.26.0"
# The strict device-auth verifier (tests/e2e/device_auth_verifier.py).
CRYPTOGRAPHY_VERSION="48.0.0"
# Fuzzes the control API from its OpenAPI document (tests/e2e/test_control_api.py).
SCHEMATHESIS_VERSION="4.32.5"
# Drives Debian's headless chromium for the dashboard test (tests/e2e/test_dashboard.py).
SELENIUM_VERSION="4.38.0"
# A second sender that finds speaker groups by name (tests/e2e/test_groups.py).
CATT_VERSION="0.13.3"

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "${script_dir}/.." && pwd)"
venv="${repo_root}/.venv-e2e"
python="${PYTHON:-python3}"

log() { echo "[e2e-setup] $*"; }

if ! command -v "${python}" >/dev/null 2>&1; then
    log "error: ${python} not found; install python3 first" >&2
    exit 1
fi

# 1. Create the venv if missing (or broken: no python inside it).
if [ ! -x "${venv}/bin/python" ]; then
    log "creating virtualenv at ${venv} with $(${python} --version 2>&1)"
    rm -rf "${venv}"
    if ! "${python}" -m venv "${venv}"; then
        # Debian splits venv/ensurepip into python3-venv; install it if we can.
        rm -rf "${venv}"
        if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
            log "python3 -m venv failed; installing python3-venv via apt-get"
            export DEBIAN_FRONTEND=noninteractive
            apt-get update -q
            apt-get install -y -q python3-venv
            "${python}" -m venv "${venv}"
        else
            log "error: '${python} -m venv' failed; install python3-venv (needs root)" >&2
            exit 1
        fi
    fi
else
    log "virtualenv already exists at ${venv}"
fi

vpy="${venv}/bin/python"

# Keep git from seeing the venv even where .gitignore does not list it
# (Python >= 3.13 writes this file itself).
if [ ! -f "${venv}/.gitignore" ]; then
    echo '*' > "${venv}/.gitignore"
fi

# 2. Install the pinned packages unless they are already there.
installed_version() {
    "${vpy}" - "$1" <<'EOF' 2>/dev/null || true
import sys
from importlib import metadata
try:
    print(metadata.version(sys.argv[1]))
except metadata.PackageNotFoundError:
    pass
EOF
}

have_pcc="$(installed_version pychromecast)"
have_pytest="$(installed_version pytest)"
have_jsonschema="$(installed_version jsonschema)"
have_cryptography="$(installed_version cryptography)"
if [ "${have_pcc}" = "${PYCHROMECAST_VERSION}" ] && [ -n "${have_pytest}" ] && [ "${have_jsonschema}" = "${JSONSCHEMA_VERSION}" ] \
    && [ "${have_cryptography}" = "${CRYPTOGRAPHY_VERSION}" ]; then
    log "pychromecast ${have_pcc}, pytest ${have_pytest}, jsonschema ${have_jsonschema}, cryptography ${have_cryptography} already installed; skipping pip"
else
    log "installing pychromecast==${PYCHROMECAST_VERSION}, jsonschema==${JSONSCHEMA_VERSION}, cryptography==${CRYPTOGRAPHY_VERSION} and pytest" \
        "(found pychromecast='${have_pcc:-none}', pytest='${have_pytest:-none}', jsonschema='${have_jsonschema:-none}', cryptography='${have_cryptography:-none}')"
    "${vpy}" -m pip install --disable-pip-version-check -q \
        "pychromecast==${PYCHROMECAST_VERSION}" "jsonschema==${JSONSCHEMA_VERSION}" "cryptography==${CRYPTOGRAPHY_VERSION}" pytest
    log "installed pychromecast $(installed_version pychromecast), pytest $(installed_version pytest)"
fi

# 3. The control API's tests: schemathesis, selenium, and the project's own Python
#    package (python/: client and pytest plugin), installed from the work tree.
have_schemathesis="$(installed_version schemathesis)"
have_selenium="$(installed_version selenium)"
if [ "${have_schemathesis}" != "${SCHEMATHESIS_VERSION}" ] || [ "${have_selenium}" != "${SELENIUM_VERSION}" ]; then
    log "installing schemathesis==${SCHEMATHESIS_VERSION} and selenium==${SELENIUM_VERSION}"
    "${vpy}" -m pip install --disable-pip-version-check -q \
        "schemathesis==${SCHEMATHESIS_VERSION}" "selenium==${SELENIUM_VERSION}"
fi
if [ "$(installed_version catt)" != "${CATT_VERSION}" ]; then
    log "installing catt==${CATT_VERSION}"
    "${vpy}" -m pip install --disable-pip-version-check -q "catt==${CATT_VERSION}"
fi
log "installing the castsim Python package from ${repo_root}/python"
"${vpy}" -m pip install --disable-pip-version-check -q --force-reinstall --no-deps "${repo_root}/python"
rm -rf "${repo_root}/python/build" "${repo_root}/python/castsim.egg-info"

# 4. Debian's headless chromium and its driver for the dashboard test.
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        log "installing chromium and chromium-driver via apt-get"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q
        apt-get install -y -q chromium chromium-driver
    else
        log "error: chromium and chromium-driver are missing; install them (Debian: apt-get install chromium chromium-driver)" >&2
        exit 1
    fi
fi

log "ready: ${vpy}"
