#!/usr/bin/env bash
# Fetches the pinned jars of pom.xml from Maven Central into test/services/.cache/spark-jars
# (Maven's local repository: test/services/.cache/m2). Idempotent: does nothing when the jars
# of this pom are there. The Python side (pyspark, duckdb + its iceberg extension) is the
# `spark` venv: bash test/services/venv.sh spark.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$here/../.cache"
out="$cache/spark-jars"
stamp="$out/.built-$(sha256sum "$here/pom.xml" | cut -c1-16)"
[ -f "$stamp" ] && exit 0
command -v mvn >/dev/null || { apt-get update -qq && apt-get install -y -qq maven >/dev/null; }
start=$(date +%s)
rm -rf "$out"
mkdir -p "$out"
for attempt in 1 2 3; do
  if mvn -q -B -f "$here/pom.xml" -Dmaven.repo.local="$cache/m2" dependency:copy-dependencies -DoutputDirectory="$out"; then
    touch "$stamp"
    echo "spark jars: installed in $(( $(date +%s) - start ))s"
    exit 0
  fi
  echo "spark jars: maven attempt $attempt failed" >&2
  sleep $((attempt * 5))
done
exit 1
