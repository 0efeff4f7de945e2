# Shared shell helpers for test/services/*/service.sh: paths, port picking, env fragments, timing, log tails.
# Sourced (not executed) by test/services/services.

SERVICES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SERVICES_DIR/../.." && pwd)"
CACHE_DIR="$SERVICES_DIR/.cache"
STATE_DIR="$SERVICES_DIR/.state"
ENV_FILE="$STATE_DIR/env"
# Data and logs live under /tmp (readable by the unprivileged users the servers run as, unlike a clone under /root),
# one tree per clone so two checkouts never share a server.
RUN_ROOT="${PIPEC_SERVICES_RUN_DIR:-/tmp/pipec-services-$(printf '%s' "$REPO_ROOT" | sha256sum | cut -c1-10)}"
mkdir -p "$CACHE_DIR" "$STATE_DIR" "$RUN_ROOT"
chmod 755 "$RUN_ROOT"

log() { printf '[%s] %s\n' "${SERVICE:-services}" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

now_ms() { date +%s%3N; }
# timed LABEL CMD...: runs CMD and prints how long it took (the task asks for install/start timings).
timed() {
  local label="$1"; shift
  local t0; t0=$(now_ms)
  "$@"
  local rc=$?
  log "$label took $(( ($(now_ms) - t0) ))ms"
  return $rc
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# pick_port PREFERRED: PREFERRED when nothing listens on it, else a kernel-chosen free port on 127.0.0.1.
pick_port() {
  if [[ -n "${1:-}" ]] && port_free "$1"; then echo "$1"; return; fi
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# write_env SERVICE KEY=VALUE...: replaces the service's fragment and rebuilds .state/env from all fragments.
write_env() {
  local svc="$1"; shift
  printf '%s\n' "$@" >"$STATE_DIR/$svc.env"
  rebuild_env
}
clear_env() { rm -f "$STATE_DIR/$1.env"; rebuild_env; }
rebuild_env() {
  local tmp="$ENV_FILE.tmp.$$"
  { echo "# Written by test/services/services; connection settings of the running test services."
    for f in "$STATE_DIR"/*.env; do [[ -e "$f" ]] && cat "$f"; done; } >"$tmp"
  mv "$tmp" "$ENV_FILE"
}

pid_alive() { [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null; }
# pid_is PID TEXT: PID is alive and its command line contains TEXT (a recorded pid may have been reused after a reboot,
# and we must never signal someone else's process).
pid_is() { pid_alive "$1" && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF -- "$2"; }
read_pid() { [[ -f "$1" ]] && cat "$1" || true; }

# log_tail FILE...: the last lines of each log, for failure reports.
log_tail() {
  local f
  for f in "$@"; do
    [[ -f "$f" ]] || continue
    echo "----- last 60 lines of $f -----" >&2
    tail -n 60 "$f" >&2
  done
}

# wait_until SECONDS PID DESCRIPTION CMD...: polls CMD until it succeeds; fails early when PID dies.
wait_until() {
  local limit="$1" pid="$2" what="$3"; shift 3
  local deadline=$(( $(date +%s) + limit ))
  while (( $(date +%s) < deadline )); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if [[ -n "$pid" ]] && ! pid_alive "$pid"; then log "$what: process $pid exited"; return 1; fi
    sleep 0.5
  done
  log "$what: not ready after ${limit}s"
  return 1
}

# apt_install PKG...: installs Debian packages once (apt-get update on first need only).
apt_install() {
  local missing=()
  local p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  (( ${#missing[@]} == 0 )) && return 0
  [[ $(id -u) == 0 ]] || die "need root to apt-get install ${missing[*]}"
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=3 update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=3 install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}
