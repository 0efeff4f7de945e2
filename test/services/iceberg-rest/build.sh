#!/usr/bin/env bash
# Fetches the pinned Iceberg REST catalog jars from Maven Central into the cache and compiles
# the launcher. Idempotent: a second run with the jars and classes present does nothing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$here/../.cache/iceberg-rest"
mkdir -p "$cache"
stamp="$cache/.built-$(sha256sum "$here/pom.xml" "$here/PipecRestCatalog.java" | sha256sum | cut -c1-16)"
[ -f "$stamp" ] && exit 0
start=$(date +%s)
mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies -DoutputDirectory="$cache/lib"
mkdir -p "$cache/classes"
javac -d "$cache/classes" -cp "$cache/lib/*" "$here/PipecRestCatalog.java"
touch "$stamp"
echo "iceberg-rest: installed in $(( $(date +%s) - start ))s"
