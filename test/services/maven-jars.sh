#!/usr/bin/env bash
# Fetches the pinned jars of test/services/<name>/pom.xml from Maven Central into
# test/services/.cache/<name>-jars (Maven's local repository: test/services/.cache/m2), for the
# JVM engines the tests drive (flink, spark). Idempotent: a stamp named by the pom's digest makes
# a second call free; a changed pom refetches. Maven itself comes from Debian when missing.
# Usage: bash test/services/maven-jars.sh <name>
set -euo pipefail
name="${1:?usage: maven-jars.sh <name>}"
services="$(cd "$(dirname "$0")" && pwd)"
pom="$services/$name/pom.xml"
[ -f "$pom" ] || { echo "maven-jars: no $pom" >&2; exit 2; }
cache="$services/.cache"
out="$cache/$name-jars"
stamp="$out/.built-$(sha256sum "$pom" | cut -c1-16)"
[ -f "$stamp" ] && exit 0
command -v mvn >/dev/null || { apt-get update -qq && apt-get install -y -qq maven >/dev/null; }
start=$(date +%s)
rm -rf "$out"
mkdir -p "$out"
# Maven Central occasionally drops a connection mid-download; three tries with a pause.
for attempt in 1 2 3; do
  if mvn -q -B -f "$pom" -Dmaven.repo.local="$cache/m2" dependency:copy-dependencies -DoutputDirectory="$out"; then
    touch "$stamp"
    echo "$name jars: installed in $(( $(date +%s) - start ))s"
    exit 0
  fi
  echo "$name jars: maven attempt $attempt failed" >&2
  sleep $((attempt * 5))
done
exit 1
