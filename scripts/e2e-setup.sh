#!/usr/bin/env bash
# Idempotently create the virtualenv used by the end-to-end tests (tests/e2e).
#
#   scripts/e2e-setup.sh            # create/update <repo>/.venv-e2e
#
# The venv lives at <repo root>/.venv-e2e (gitignored). pychromecast is pinned
# exactly because the tests rely on its wire behaviour (connect sequence,
# heartbeat timeouts); it pulls in zeroconf, protobuf and casttube.
set -euo pipefail

# Every package the tests use, pinned, as name==version.
pinned=(
    "pychromecast==14.0.10"
    # The test runner, and running the tests on both cores (tests/e2e/run.sh, scripts/test.sh).
    "pytest==9.2.0"
    "pytest-xdist==3.8.0"
    # Checks the example scenarios against scenarios/scenario.schema.json.
    "jsonschema==4.26.0"
    # The strict device-auth verifier (tests/e2e/device_auth_verifier.py).
    "cryptography==48.0.0"
    # Fuzzes the control API from its OpenAPI document (tests/e2e/test_control_api.py).
    "schemathesis==4.32.5"
    # Drives Debian's headless chromium for the dashboard test (tests/e2e/test_dashboard.py).
    "selenium==4.38.0"
    # A second sender that finds speaker groups by name (tests/e2e/test_groups.py).
    "catt==0.13.3"
)

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

missing=()
for requirement in "${pinned[@]}"; do
    [ "$(installed_version "${requirement%%==*}")" = "${requirement##*==}" ] || missing+=("${requirement}")
done
if [ ${#missing[@]} -eq 0 ]; then
    log "${pinned[*]} already installed; skipping pip"
else
    log "installing ${missing[*]}"
    "${vpy}" -m pip install --disable-pip-version-check -q "${missing[@]}"
fi
# The project's own Python package (python/: client, pytest plugin, castv2), from the work tree.
log "installing the castsim Python package from ${repo_root}/python"
"${vpy}" -m pip install --disable-pip-version-check -q --force-reinstall --no-deps "${repo_root}/python"
rm -rf "${repo_root}/python/build" "${repo_root}/python/castsim.egg-info"

# 3. Debian's packages: headless chromium and its driver (the dashboard test), and FFmpeg
#    (the mirroring tests make their videos with it; castsim decodes pictures with its
#    libavcodec).
debian=()
command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || debian+=(chromium chromium-driver)
command -v ffmpeg >/dev/null 2>&1 || debian+=(ffmpeg)
if [ ${#debian[@]} -gt 0 ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        log "installing ${debian[*]} via apt-get"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q
        apt-get install -y -q "${debian[@]}"
    else
        log "error: ${debian[*]} missing; install them (Debian: apt-get install ${debian[*]})" >&2
        exit 1
    fi
fi

# 4. Open Screen's sender in a virtualenv of its own (it bundles FFmpeg and libvpx; the
#    tests run it as a separate process, as it allows one runtime a process).
cast_sender_venv="${repo_root}/.venv-cast-sender"
cast_sender_pin="cast_sender==1.2.0"  # import name cast_sender; a manylinux wheel for CPython 3.11
if [ ! -x "${cast_sender_venv}/bin/python" ]; then
    log "creating virtualenv at ${cast_sender_venv}"
    rm -rf "${cast_sender_venv}"
    "${python}" -m venv "${cast_sender_venv}"
else
    log "virtualenv already exists at ${cast_sender_venv}"
fi
[ -f "${cast_sender_venv}/.gitignore" ] || echo '*' > "${cast_sender_venv}/.gitignore"
if [ "$(vpy="${cast_sender_venv}/bin/python"; installed_version cast_sender)" = "${cast_sender_pin##*==}" ]; then
    log "${cast_sender_pin} already installed; skipping pip"
else
    log "installing ${cast_sender_pin}"
    "${cast_sender_venv}/bin/python" -m pip install --disable-pip-version-check -q "${cast_sender_pin}"
fi

log "ready: ${vpy}"
