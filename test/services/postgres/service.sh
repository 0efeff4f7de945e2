# PostgreSQL 15 for tests: private cluster (own data dir + port on 127.0.0.1), wal_level=logical, trust auth.
# Sourced by test/services/services inside a subshell; defines svc_up/svc_down/svc_status/svc_logs.

PG_BIN="${PIPEC_PG_BIN:-/usr/lib/postgresql/15/bin}"
PG_USER=postgres   # initdb/postgres refuse to run as root; the Debian package's user owns the cluster
RUN_DIR="$RUN_ROOT/postgres"
PG_DATA="$RUN_DIR/data"
PG_LOG="$RUN_DIR/postgres.log"
PG_PORT_FILE="$RUN_DIR/port"

svc_logs() { echo "$PG_LOG"; }
as_pg() { runuser -u "$PG_USER" -- "$@"; }

pg_port() { cat "$PG_PORT_FILE" 2>/dev/null || true; }
pg_running() { [[ -f "$PG_DATA/postmaster.pid" ]] && as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; }
pg_ready() { [[ "$(as_pg "$PG_BIN/psql" -h 127.0.0.1 -p "$1" -U postgres -d postgres -XAtc 'select 1' 2>/dev/null)" == 1 ]]; }

pg_install() {
  if [[ ! -x "$PG_BIN/postgres" ]]; then
    timed "install postgresql-15 (apt)" apt_install postgresql-15
  fi
  id "$PG_USER" >/dev/null 2>&1 || useradd --system --home-dir "$RUN_DIR" --shell /usr/sbin/nologin "$PG_USER"
}

pg_init() {
  mkdir -p "$RUN_DIR"
  chown "$PG_USER" "$RUN_DIR"
  [[ -f "$PG_DATA/PG_VERSION" ]] && return 0
  rm -rf "$PG_DATA"
  as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync >"$RUN_DIR/initdb.log" 2>&1 \
    || { cat "$RUN_DIR/initdb.log" >&2; return 1; }
  # Test cluster: durability off for speed; logical decoding on for the CDC sources.
  cat >>"$PG_DATA/postgresql.conf" <<CONF

# --- pipec test services ---
listen_addresses = '127.0.0.1'
unix_socket_directories = '$RUN_DIR'
wal_level = logical
max_replication_slots = 20
max_wal_senders = 20
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
  # Loopback only, trust (also for replication connections).
  cat >"$PG_DATA/pg_hba.conf" <<HBA
local all all trust
local replication all trust
host all all 127.0.0.1/32 trust
host replication all 127.0.0.1/32 trust
HBA
}

svc_up() {
  timed "install check" pg_install || return 1
  if pg_running; then
    local port; port=$(pg_port)
    if [[ -n "$port" ]] && pg_ready "$port"; then
      log "already running on 127.0.0.1:$port"
      pg_write_env "$port"
      return 0
    fi
  fi
  timed "init (initdb when new)" pg_init || return 1
  local port; port=$(pick_port "${PIPEC_PG_PORT:-$(pg_port)}")
  [[ -n "${PIPEC_PG_PORT:-}" && "$port" != "$PIPEC_PG_PORT" ]] && { log "port $PIPEC_PG_PORT is taken"; return 1; }
  echo "$port" >"$PG_PORT_FILE"
  : >"$PG_LOG"; chown "$PG_USER" "$PG_LOG"
  # 8>&-: the server must not inherit the per-service lock fd, or it would hold the lock forever.
  timed "start" as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -o "-p $port" -w -t 60 start >/dev/null 8>&- || return 1
  wait_until 30 "" "postgres readiness (select 1)" pg_ready "$port" || return 1
  log "running on 127.0.0.1:$port (data $PG_DATA)"
  pg_write_env "$port"
}

pg_write_env() {
  write_env postgres \
    "PIPEC_PG_URL=postgres://postgres@127.0.0.1:$1/postgres" \
    "PIPEC_PG_HOST=127.0.0.1" \
    "PIPEC_PG_PORT=$1" \
    "PIPEC_PG_USER=postgres" \
    "PIPEC_PG_DATABASE=postgres"
}

svc_down() {
  if pg_running; then
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 stop >/dev/null && log "stopped"
  else
    log "not running"
  fi
  clear_env postgres
}

svc_status() {
  local port; port=$(pg_port)
  if pg_running && [[ -n "$port" ]] && pg_ready "$port"; then
    echo "postgres: up on 127.0.0.1:$port (data $PG_DATA, log $PG_LOG)"
  else
    echo "postgres: down"
    return 1
  fi
}
