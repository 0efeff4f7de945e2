#!/usr/bin/env bash
# Fetches the pinned jars of pom.xml from Maven Central into test/services/.cache/flink-jars
# (Maven's local repository: test/services/.cache/m2). Idempotent: does nothing when the jars
# of this pom are there. The Python side (PyFlink 2.3) is the `flink` venv:
# bash test/services/venv.sh flink. Tests find the jars with flinkJars() (test/support/flink.ts).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$here/../.cache"
out="$cache/flink-jars"
stamp="$out/.built-$(sha256sum "$here/pom.xml" | cut -c1-16)"
[ -f "$stamp" ] && exit 0
command -v mvn >/dev/null || { apt-get update -qq && apt-get install -y -qq maven >/dev/null; }
start=$(date +%s)
rm -rf "$out"
mkdir -p "$out"
for attempt in 1 2 3; do
  if mvn -q -B -f "$here/pom.xml" -Dmaven.repo.local="$cache/m2" dependency:copy-dependencies -DoutputDirectory="$out"; then
    touch "$stamp"
    echo "flink jars: installed in $(( $(date +%s) - start ))s"
    exit 0
  fi
  echo "flink jars: maven attempt $attempt failed" >&2
  sleep $((attempt * 5))
done
exit 1
