# Runs Flink SQL on a local PyFlink mini-cluster (streaming mode, parallelism 1); called by
# test/support/flink.ts. One request = ONE job: every INSERT goes into one StatementSet, so many
# cases share one JVM start and one job (starting Flink costs tens of seconds, a case milliseconds).
# stdin: {"config": {key: value}, "jars": [file], "ddl": [CREATE ...], "inserts": [INSERT ...], "sinks": {name: folder}}
#   Each sink is a filesystem/json table whose 'path' is its folder; after the job, its part files
#   are read back. stdout: one JSON document {"ok": true, "sinks": {name: [row, ...]}, "seconds": s}
#   or {"ok": false, "message": ...}. Every JSON number of a row comes back as its text, so
#   BIGINT and DECIMAL values reach JavaScript exactly.
import json
import os
import sys
import time
import traceback

# Flink's defaults that make a run deterministic and comparable: parallelism 1, UTC, and a
# watermark emitted per record (interval 0; see docs/language-decisions.md, "Window boundaries").
DEFAULTS = {
    "parallelism.default": "1",
    "table.exec.resource.default-parallelism": "1",
    "pipeline.auto-watermark-interval": "0",
    "table.local-time-zone": "UTC",
    # A shared CI machine can be slow to answer: the mini-cluster's internal RPC (job submission
    # included) and heartbeats must not time out under load (their 10 s / 50 s defaults did).
    "pekko.ask.timeout": "10 min",
    "heartbeat.timeout": "600000",
}


def read_sink(folder):
    rows = []
    if not os.path.isdir(folder):
        return rows
    for root, _dirs, files in os.walk(folder):
        for name in sorted(files):
            # In-progress and checksum files start with a dot; committed part files do not.
            if name.startswith(".") or name.startswith("_"):
                continue
            with open(os.path.join(root, name), encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        rows.append(json.loads(line, parse_int=str, parse_float=str))
    return rows


def main():
    req = json.load(sys.stdin)
    started = time.time()
    # Imported here so a broken install is reported as a message, not a trace on import.
    from pyflink.table import EnvironmentSettings, TableEnvironment

    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    conf = env.get_config()
    for key, value in {**DEFAULTS, **req.get("config", {})}.items():
        conf.set(key, str(value))
    if req.get("jars"):
        # Connector jars (test/services/flink/build.sh): on the job's class path and shipped with it.
        conf.set("pipeline.jars", ";".join("file://" + j for j in req["jars"]))
    for i, stmt in enumerate(req.get("ddl", [])):
        try:
            env.execute_sql(stmt)
        except Exception as err:  # Py4JJavaError: keep Flink's own message
            return {"ok": False, "index": i, "statement": stmt, "message": str(err).strip()[:4000]}
    inserts = req.get("inserts", [])
    if inserts:
        stmts = env.create_statement_set()
        for stmt in inserts:
            stmts.add_insert_sql(stmt)
        try:
            stmts.execute().wait()
        except Exception as err:
            return {"ok": False, "message": str(err).strip()[:8000]}
    sinks = {name: read_sink(folder) for name, folder in req.get("sinks", {}).items()}
    return {"ok": True, "sinks": sinks, "seconds": round(time.time() - started, 1)}


if __name__ == "__main__":
    try:
        out = main()
    except Exception:
        out = {"ok": False, "message": traceback.format_exc()[-8000:]}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
