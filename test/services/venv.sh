#!/usr/bin/env bash
# Builds the project's Python venv for test services (chdb, pyiceberg, ...) at test/services/.cache/venv.
# Idempotent: reinstalls only when requirements.txt changed; safe to run concurrently (flock).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="$here/.cache"
venv="$cache/venv"
req="$here/requirements.txt"
stamp="$venv/.requirements.sha256"
mkdir -p "$cache"

exec 9>"$cache/venv.lock"
flock 9

start=$(date +%s)
want="$(sha256sum "$req" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]] \
  && "$venv/bin/python" -c 'import chdb, pyiceberg, sqlparse' 2>/dev/null; then
  echo "[venv] up to date ($venv)"
  exit 0
fi

# A half-built or outdated venv is rebuilt from scratch so pins are exact (no leftovers).
py="${PIPEC_PYTHON:-python3}"
echo "[venv] building $venv with $("$py" --version 2>&1)"
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req"
"$venv/bin/python" -c 'import chdb, pyiceberg, pyarrow, sqlalchemy, sqlparse'
echo "$want" >"$stamp"
echo "[venv] installed in $(( $(date +%s) - start ))s"
