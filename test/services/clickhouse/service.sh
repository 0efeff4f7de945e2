# Debian's clickhouse-server (18.16) for tests of the runtime's HTTP sink: private config, data dir and ports on
# 127.0.0.1, run as the package's `clickhouse` user. Sourced by test/services/services; defines svc_* functions.

CH_SRC="$SERVICES_DIR/clickhouse"
CH_BIN="${PIPEC_CLICKHOUSE_BIN:-/usr/sbin/clickhouse-server}"
CH_USER=clickhouse
RUN_DIR="$RUN_ROOT/clickhouse"
CH_PID="$RUN_DIR/clickhouse.pid"
CH_PORTS="$RUN_DIR/ports"   # "HTTP TCP INTERSERVER"
CH_LOG="$RUN_DIR/clickhouse-server.log"

svc_logs() { echo "$RUN_DIR/clickhouse-server.err.log $RUN_DIR/stdout.log $CH_LOG"; }

ch_install() {
  [[ -x "$CH_BIN" ]] && return 0
  apt_install clickhouse-server
  [[ -x "$CH_BIN" ]]
}

ch_ready() {
  port_free "$1" && return 1
  [[ "$(curl -sS --max-time 5 "http://127.0.0.1:$1/?query=SELECT%20toUInt8(1)" 2>/dev/null)" == 1 ]]
}

ch_config() {
  local http="$1" tcp="$2" inter="$3"
  sed -e "s|@RUN_DIR@|$RUN_DIR|g" -e "s|@HTTP_PORT@|$http|g" -e "s|@TCP_PORT@|$tcp|g" -e "s|@INTERSERVER_PORT@|$inter|g" \
    "$CH_SRC/config.xml.in" >"$RUN_DIR/etc/config.xml"
  cp "$CH_SRC/users.xml" "$RUN_DIR/etc/users.xml"
}

svc_up() {
  timed "install check (apt clickhouse-server)" ch_install || return 1
  id "$CH_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$CH_USER"
  mkdir -p "$RUN_DIR/etc" "$RUN_DIR/data" "$RUN_DIR/tmp" "$RUN_DIR/user_files" "$RUN_DIR/format_schemas"
  local pid; pid=$(read_pid "$CH_PID")
  local ports; ports=$(cat "$CH_PORTS" 2>/dev/null || true)
  local http="${ports%% *}"
  if pid_is "$pid" "$RUN_DIR/etc/config.xml" && [[ -n "$ports" ]] && ch_ready "$http"; then
    log "already running on 127.0.0.1:$http"
    ch_write_env $ports
    return 0
  fi
  pid_is "$pid" "$RUN_DIR/etc/config.xml" && { log "stale server $pid not answering; stopping it"; svc_down; }

  read -r _ old_tcp old_inter <<<"$ports"
  http=$(pick_port "${PIPEC_CLICKHOUSE_HTTP_PORT:-$http}")
  [[ -n "${PIPEC_CLICKHOUSE_HTTP_PORT:-}" && "$http" != "$PIPEC_CLICKHOUSE_HTTP_PORT" ]] && { log "port $PIPEC_CLICKHOUSE_HTTP_PORT is taken"; return 1; }
  local tcp inter
  tcp=$(pick_port "${old_tcp:-}"); [[ "$tcp" == "$http" ]] && tcp=$(pick_port "")
  inter=$(pick_port "${old_inter:-}"); [[ "$inter" == "$http" || "$inter" == "$tcp" ]] && inter=$(pick_port "")
  echo "$http $tcp $inter" >"$CH_PORTS"
  ch_config "$http" "$tcp" "$inter"
  chown -R "$CH_USER" "$RUN_DIR"

  echo "===== start $(date -u +%FT%TZ) =====" >>"$RUN_DIR/stdout.log"
  # setpriv execs (no wrapper process), so $! is the server itself; 8>&- keeps the lock fd out of it.
  setsid setpriv --reuid="$CH_USER" --regid="$CH_USER" --init-groups "$CH_BIN" --config-file="$RUN_DIR/etc/config.xml" \
    >>"$RUN_DIR/stdout.log" 2>&1 </dev/null 8>&- &
  pid=$!
  echo "$pid" >"$CH_PID"
  timed "start + readiness (SELECT 1 over HTTP)" wait_until 90 "$pid" "clickhouse readiness" ch_ready "$http" || return 1
  log "running on 127.0.0.1:$http (http), :$tcp (native); pid $pid, data $RUN_DIR/data"
  ch_write_env "$http" "$tcp" "$inter"
}

ch_write_env() {
  write_env clickhouse \
    "PIPEC_CLICKHOUSE_URL=http://127.0.0.1:$1" \
    "PIPEC_CLICKHOUSE_HTTP_PORT=$1" \
    "PIPEC_CLICKHOUSE_TCP_PORT=$2" \
    "PIPEC_CLICKHOUSE_USER=default" \
    "PIPEC_CLICKHOUSE_VERSION=$(curl -sS --max-time 5 "http://127.0.0.1:$1/?query=SELECT%20version()" 2>/dev/null)"
}

svc_down() {
  local pid; pid=$(read_pid "$CH_PID")
  if pid_is "$pid" "$RUN_DIR/etc/config.xml"; then
    kill "$pid"
    local i
    for i in $(seq 1 60); do pid_is "$pid" "$RUN_DIR/etc/config.xml" || break; sleep 0.5; done
    pid_is "$pid" "$RUN_DIR/etc/config.xml" && { log "server $pid ignored SIGTERM for 30s; killing"; kill -9 "$pid"; }
    log "stopped"
  else
    log "not running"
  fi
  rm -f "$CH_PID"
  clear_env clickhouse
}

svc_status() {
  local pid; pid=$(read_pid "$CH_PID")
  local ports; ports=$(cat "$CH_PORTS" 2>/dev/null || true)
  if pid_is "$pid" "$RUN_DIR/etc/config.xml" && [[ -n "$ports" ]] && ch_ready "${ports%% *}"; then
    echo "clickhouse: up on 127.0.0.1:${ports%% *} (pid $pid, logs $RUN_DIR)"
  else
    echo "clickhouse: down"
    return 1
  fi
}
