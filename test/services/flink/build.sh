#!/usr/bin/env bash
# Fetches the pinned jars of pom.xml into test/services/.cache/flink-jars (see ../maven-jars.sh).
# The Python side (PyFlink 2.3) is the `flink` venv: bash test/services/venv.sh flink. Tests find
# the jars with flinkJars() (test/support/flink.ts).
exec bash "$(dirname "$0")/../maven-jars.sh" flink
