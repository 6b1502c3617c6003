# Sourced by scripts/test.sh: runs its stages, in the foreground or beside each other,
# and prints how long each took when the script ends, however it ends (a failed stage
# stops the run; the table then says which one failed and what had run so far).
#
#   stage NAME COMMAND...         run now; a failure ends the run
#   stage_start NAME COMMAND...   start in the background, output kept in a file
#   stage_wait NAME               wait for it, print its output; a failure ends the run
#
# Background stages keep their output apart so that two stages' lines never interleave;
# it is printed whole when the stage is waited for (or when the run ends early).

_stages_dir="$(mktemp -d)"
_stages_t0=$SECONDS
_stages_names=()

_stage_index() {
    local i
    for i in "${!_stages_names[@]}"; do
        [ "${_stages_names[$i]}" = "$1" ] && { echo "$i"; return; }
    done
    return 1
}

_children_cpu() { # VAR: CPU seconds (user + system) of this shell's finished children so far, into VAR
    # `times` in this very shell (a $(...) would ask a subshell about its own children).
    local file="${_stages_dir}/times.${BASHPID}"
    times > "${file}"
    printf -v "$1" '%s' "$(tail -1 "${file}" | awk '{ total = 0; for (i = 1; i <= 2; i++) { split($i, t, "m"); sub("s", "", t[2]); total += t[1] * 60 + t[2] }; printf "%d", total }')"
    rm -f "${file}"
}

_stage_run() { # INDEX COMMAND...: the stage itself, its times and status kept in files
    local index=$1; shift
    local cpu_before cpu_after
    _children_cpu cpu_before
    echo $((SECONDS - _stages_t0)) > "${_stages_dir}/${index}.start"
    # Not `"$@" || rc=$?`: inside an || list bash ignores set -e, also in the functions
    # a stage calls; the subshell keeps it on.
    local rc=0
    set +e
    (set -e; "$@")
    rc=$?
    set -e
    echo $((SECONDS - _stages_t0)) > "${_stages_dir}/${index}.end"
    _children_cpu cpu_after
    echo $((cpu_after - cpu_before)) > "${_stages_dir}/${index}.cpu"
    echo "${rc}" > "${_stages_dir}/${index}.rc"
    return "${rc}"
}

stage() {
    local name=$1; shift
    _stages_names+=("${name}")
    local index=$((${#_stages_names[@]} - 1))
    echo "== ${name}"
    # In a subshell, as a background stage is: `times` counts a shell's reaped children,
    # and in this shell those include every background stage that ended meanwhile (the
    # end-to-end stage was charged the fuzzing's CPU minutes).
    (_stage_run "${index}" "$@")
}

stage_start() {
    local name=$1; shift
    _stages_names+=("${name}")
    local index=$((${#_stages_names[@]} - 1))
    echo "== ${name} (started in the background)"
    (_stage_run "${index}" "$@") > "${_stages_dir}/${index}.log" 2>&1 &
    echo $! > "${_stages_dir}/${index}.pid"
}

stage_wait() {
    local name=$1 index
    index="$(_stage_index "${name}")"
    wait "$(cat "${_stages_dir}/${index}.pid")" || true
    echo "== ${name} (output of the background stage)"
    cat "${_stages_dir}/${index}.log"
    rm -f "${_stages_dir}/${index}.log"
    local rc
    rc="$(cat "${_stages_dir}/${index}.rc" 2>/dev/null || echo 1)"
    return "${rc}"
}

_stages_kill_tree() { # PID: it and everything it started, children first
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do _stages_kill_tree "${child}"; done
    kill "$1" 2>/dev/null || true
}

_mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

_stages_report() {
    local status=$? i now=$((SECONDS - _stages_t0)) failed="" unfinished=""
    # A background stage still running when the run ends: stop it, show what it printed.
    for i in "${!_stages_names[@]}"; do
        if [ -f "${_stages_dir}/${i}.pid" ] && [ ! -f "${_stages_dir}/${i}.rc" ]; then
            _stages_kill_tree "$(cat "${_stages_dir}/${i}.pid")"
        fi
        if [ -f "${_stages_dir}/${i}.log" ]; then
            echo "== ${_stages_names[$i]} (output of the background stage, not waited for)"
            cat "${_stages_dir}/${i}.log"
        fi
    done
    echo
    echo "== stage times (start is from the beginning of the run; stages that overlap ran beside each other;"
    echo "   cpu is the processor time the stage's processes used, which another load on the machine does not change)"
    printf '  %-70s %7s %7s %7s  %s\n' stage start took cpu result
    for i in "${!_stages_names[@]}"; do
        local start end rc result took cpu
        start="$(cat "${_stages_dir}/${i}.start" 2>/dev/null || echo "${now}")"
        cpu="$(cat "${_stages_dir}/${i}.cpu" 2>/dev/null || echo "")"
        end="$(cat "${_stages_dir}/${i}.end" 2>/dev/null || echo "${now}")"
        rc="$(cat "${_stages_dir}/${i}.rc" 2>/dev/null || echo "")"
        took=$((end - start))
        case "${rc}" in
        0) result=ok ;;
        "") result="did not finish"; unfinished="${unfinished:-${_stages_names[$i]}}" ;;
        *) result="FAILED (exit ${rc})"; failed="${failed:-${_stages_names[$i]}}" ;;
        esac
        printf '  %-70s %7s %7s %7s  %s\n' "${_stages_names[$i]:0:70}" "+$(_mmss "${start}")" "$(_mmss "${took}")" \
            "${cpu:+$(_mmss "${cpu}")}" "${result}"
    done
    printf '  %-70s %7s %7s\n' "total" "" "$(_mmss "${now}")"
    if [ "${status}" -ne 0 ]; then
        echo "== FAILED: ${failed:-${unfinished:-the script itself (exit ${status})}}"
    fi
    rm -rf "${_stages_dir}"
    exit "${status}"
}
trap _stages_report EXIT
