#!/usr/bin/env bash
# Builds one of the project's Python venvs for test services at test/services/.cache/venv[-<name>].
#   venv.sh            the main venv (chdb, pyiceberg, ...) from requirements.txt
#   venv.sh <name>     a separate venv from requirements-<name>.txt (e.g. flink, spark): tools whose own pins
#                      (numpy, pandas, pyarrow) clash with the main venv's get a venv of their own.
# Each requirements file names the modules that prove its venv works on a `# imports: a b c` line.
# Idempotent: reinstalls only when the requirements file changed; safe to run concurrently (flock per venv).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="$here/.cache"
name="${1:-main}"
if [[ "$name" == main ]]; then
  venv="$cache/venv"; req="$here/requirements.txt"
else
  [[ "$name" =~ ^[a-z0-9-]+$ ]] || { echo "[venv] bad venv name: $name" >&2; exit 2; }
  venv="$cache/venv-$name"; req="$here/requirements-$name.txt"
fi
[[ -f "$req" ]] || { echo "[venv] no requirements file $req" >&2; exit 2; }
stamp="$venv/.requirements.sha256"
mkdir -p "$cache"

exec 9>"$cache/venv-$name.lock"
flock 9

imports="$(sed -n 's/^# imports: *//p' "$req" | head -1)"
[[ -n "$imports" ]] || { echo "[venv] $req has no '# imports:' line" >&2; exit 2; }
check="import ${imports// /, }"

start=$(date +%s)
want="$(sha256sum "$req" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]] \
  && "$venv/bin/python" -c "$check" 2>/dev/null; then
  echo "[venv] $name up to date ($venv)"
  exit 0
fi

# A half-built or outdated venv is rebuilt from scratch so pins are exact (no leftovers).
py="${PIPEC_PYTHON:-python3}"
echo "[venv] building $venv with $("$py" --version 2>&1)"
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req"
"$venv/bin/python" -c "$check"
echo "$want" >"$stamp"
echo "[venv] $name installed in $(( $(date +%s) - start ))s"
