#!/usr/bin/env bash
# Fetches the pinned jars of pom.xml into test/services/.cache/spark-jars (see ../maven-jars.sh).
# The Python side (pyspark, duckdb + its iceberg extension) is the `spark` venv:
# bash test/services/venv.sh spark.
exec bash "$(dirname "$0")/../maven-jars.sh" spark
