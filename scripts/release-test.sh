#!/usr/bin/env bash
# Tests what scripts/release.sh writes as a user without Swift meets it: in a private mount
# namespace (needs root: unshare -m) where the Swift toolchain's folder is a fresh empty
# tmpfs and PATH holds no build folder,
#   1. the wheel installs into a fresh virtualenv with no package index at all (the file only);
#   2. with pytest and pychromecast added, a sender project's suite (tests/release/
#      test_installed_wheel.py) runs against the castsim its plugin finds: the wheel's binary;
#   3. the tarball's binary, started by hand, is played on by pychromecast, paused and run
#      to the item's end through the control API (tests/release/by_hand.py).
#
#   scripts/release-test.sh            build the artifacts (scripts/release.sh), then test them
#   scripts/release-test.sh --no-build test the ones in dist/
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

if [ "${1:-}" != --no-build ]; then scripts/release.sh; fi
wheel="$(ls dist/castsim-*.whl)"
# What a user downloads is what SHA256SUMS says, and the wheel stays under its 40 MB goal.
(cd dist && sha256sum --check --quiet SHA256SUMS) || { echo "release-test: dist/SHA256SUMS does not match the files" >&2; exit 1; }
[ "$(stat -c %s "${wheel}")" -lt 40000000 ] || { echo "release-test: ${wheel} is over 40 MB" >&2; exit 1; }
tarball="$(ls dist/castsim-*-linux-*.tar.gz)"
swift_bin="$(command -v swift || true)"
[ -n "${swift_bin}" ] || { echo "release-test: no swift on PATH: nothing to hide" >&2; exit 1; }
# The toolchain's root: .../usr/bin/swift -> ... (hidden whole: the runtime libraries are in it).
toolchain="$(dirname "$(dirname "$(dirname "$(readlink -f "${swift_bin}")")")")"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

unshare -m env -i HOME="${work}" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PIP_FIND_LINKS="${PIP_FIND_LINKS:-}" PIP_DISABLE_PIP_VERSION_CHECK=1 \
    bash -euo pipefail -c '
    toolchain=$1 wheel=$2 tarball=$3 repo=$4 work=$5
    mount -t tmpfs none "${toolchain}"
    if command -v swift >/dev/null || [ -n "$(ls -A "${toolchain}")" ]; then
        echo "release-test: the toolchain in ${toolchain} is still visible" >&2; exit 1
    fi
    echo "[release-test] ${toolchain} hidden; PATH=${PATH}"

    python3 -m venv "${work}/venv"
    py="${work}/venv/bin/python"
    echo "[release-test] 1. the wheel alone, no package index"
    "${py}" -m pip install -q --no-index "${wheel}"
    echo "[release-test] 2. a sender suite against the wheel'"'"'s castsim"
    "${py}" -m pip install -q pytest pychromecast
    # Outside the checkout, as a user runs it: castsim then keeps a developer PKI of its own
    # in the state directory (made on first use), not the repository'"'"'s certs/.
    cp -r "${repo}/tests/release" "${work}/suite"
    (cd "${work}/suite" && PATH="${work}/venv/bin:${PATH}" "${py}" -m pytest -q -p no:cacheprovider test_installed_wheel.py)
    [ -f "${work}/.local/state/castsim/certs/root.crt" ] \
        || { echo "release-test: the wheel'"'"'s castsim made no developer PKI in ~/.local/state/castsim/certs" >&2; exit 1; }

    echo "[release-test] 3. the tarball'"'"'s binary, started by hand"
    mkdir "${work}/tar" && tar -C "${work}/tar" -xzf "${tarball}"
    binary="$(ls "${work}"/tar/castsim-*/castsim)"
    for file in README.md scenarios/scenario.schema.json scenarios/plain-movie.json; do
        [ -f "$(dirname "${binary}")/${file}" ] || { echo "release-test: the tarball has no ${file}" >&2; exit 1; }
    done
    # The licenses of what is linked in travel with the binary, in the tarball and the wheel.
    for notices in "$(dirname "${binary}")/THIRD-PARTY-NOTICES.txt" "${work}"/venv/lib/python3*/site-packages/castsim-*.dist-info/licenses/THIRD-PARTY-NOTICES.txt; do
        grep -q "^swift-nio-ssl (" "${notices}" && grep -q "^The Swift toolchain" "${notices}" \
            || { echo "release-test: ${notices} does not list the linked-in code" >&2; exit 1; }
    done
    host="127.$((RANDOM % 200 + 20)).$((RANDOM % 250)).$((RANDOM % 250 + 2))"
    (cd "${work}" && exec env XDG_STATE_HOME="${work}/state" "${binary}" run --host "${host}" --mdns off \
        --control-port 0 --manual-clock > "${work}/ready" 2> "${work}/stderr" < /dev/null) &
    castsim=$!
    for _ in $(seq 100); do grep -q "^castsim ready" "${work}/ready" && break; sleep 0.1; done
    control="$(sed -n "s/^castsim ready .*control=\([^ ]*\).*/\1/p" "${work}/ready")"
    if [ -z "${control}" ]; then echo "release-test: no ready line; stderr:" >&2; cat "${work}/stderr" >&2; kill "${castsim}"; exit 1; fi
    status=0
    (cd "${work}/suite" && "${py}" by_hand.py "${host}" "http://${control}") || status=$?
    [ -f "${work}/state/castsim/certs/root.crt" ] \
        || { echo "release-test: the tarball'"'"'s castsim made no developer PKI in \$XDG_STATE_HOME/castsim/certs" >&2; status=1; }
    kill -TERM "${castsim}" && wait "${castsim}" || true
    exit "${status}"
' _ "${toolchain}" "${repo}/${wheel}" "${repo}/${tarball}" "${repo}" "${work}"
echo "[release-test] the wheel and the tarball work without a Swift toolchain"
