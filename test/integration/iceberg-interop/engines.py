"""Reads pipec-written Iceberg tables with Apache Spark (one session for the whole matrix,
default vectorised Parquet reader) and DuckDB (iceberg extension installed from PyPI, never
downloaded), for the interop suite (interop.test.ts). Input: a JSON job on stdin; output: one
JSON document on stdout with, per table and engine, the rows as canonical text, the ids each
filter returns, the metadata tables Spark read (or the error), and the results of the Spark
writes the job asks for. It computes nothing to compare: the test does that.

Canonical cell text (the same from both engines): NULL → None, binary → upper-case hex,
timestamps → 'YYYY-MM-DD HH:MM:SS.ffffff' (UTC), everything else CAST to a string.
"""
import json
import os
import sys
import traceback

job = json.load(sys.stdin)
out = {"spark": {}, "duckdb": {}, "spark_writes": [], "errors": []}


def q(name):
    return "`" + name.replace("`", "``") + "`"


def spark_cell(col):
    c, t = q(col["name"]), col["type"]
    if t == "binary":
        return f"hex({c})"
    if t in ("timestamp", "timestamptz"):
        return f"date_format({c}, 'yyyy-MM-dd HH:mm:ss.SSSSSS')"
    return f"CAST({c} AS STRING)"


def duck_cell(col):
    c, t = '"' + col["name"] + '"', col["type"]
    if t == "binary":
        return f"hex({c})"
    if t in ("timestamp", "timestamptz"):
        return f"strftime({c}::TIMESTAMP, '%Y-%m-%d %H:%M:%S.%f')" if t == "timestamp" else f"strftime(timezone('UTC', {c}), '%Y-%m-%d %H:%M:%S.%f')"
    return f"CAST({c} AS VARCHAR)"


METADATA_TABLES = [
    "snapshots", "history", "files", "data_files", "delete_files", "manifests", "all_manifests",
    "entries", "all_entries", "partitions", "all_data_files", "all_files", "refs", "metadata_log_entries",
]


def err(e):
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:400]


def run_spark():
    from pyspark.sql import SparkSession

    b = (
        SparkSession.builder.master("local[2]")
        .appName("pipec-iceberg-interop")
        .config("spark.jars", ",".join(job["jars"]))
        .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "1g")
    )
    for c in job["catalogs"]:
        p = f"spark.sql.catalog.{c['spark']}"
        b = b.config(p, "org.apache.iceberg.spark.SparkCatalog")
        if c["type"] == "filesystem":
            b = b.config(p + ".type", "hadoop").config(p + ".warehouse", c["warehouse"])
        else:
            b = (
                b.config(p + ".catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog")
                .config(p + ".uri", c["jdbc"])
                .config(p + ".warehouse", c["warehouse"])
                .config(p + ".jdbc.schema-version", "V1")
            )
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for w in job.get("spark_writes", []):
            try:
                spark.sql(w).collect()
                out["spark_writes"].append({"sql": w, "ok": True})
            except Exception as e:  # noqa: BLE001
                out["spark_writes"].append({"sql": w, "ok": False, "error": err(e)})
        for t in job["tables"]:
            name = t["spark"]
            res = {"rows": None, "filters": {}, "metadata": {}}
            cells = ", ".join(f"{spark_cell(c)} AS {q(c['name'])}" for c in t["columns"])
            try:
                res["rows"] = [r.asDict() for r in spark.sql(f"SELECT {cells} FROM {name}").collect()]
            except Exception as e:  # noqa: BLE001
                res["rows_error"] = err(e)
            for f in t["filters"]:
                try:
                    ids = [r[0] for r in spark.sql(f"SELECT CAST(id AS STRING) FROM {name} WHERE {f['spark']}").collect()]
                    res["filters"][f["name"]] = sorted(ids)
                except Exception as e:  # noqa: BLE001
                    res["filters"][f["name"]] = {"error": err(e)}
            for m in METADATA_TABLES if t.get("metadata_tables", True) else []:
                try:
                    res["metadata"][m] = len(spark.sql(f"SELECT * FROM {name}.{m}").collect())
                except Exception as e:  # noqa: BLE001
                    res["metadata"][m] = {"error": err(e)}
            out["spark"][t["id"]] = res
            print(f"engines: spark read {t['id']}", file=sys.stderr, flush=True)
    finally:
        spark.stop()


def run_duckdb():
    import duckdb

    con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "true", "allow_community_extensions": "false"})
    # The PyPI extension packages: load from the files they ship, never from the network.
    import duckdb_extension_avro
    import duckdb_extension_iceberg

    for mod in (duckdb_extension_avro, duckdb_extension_iceberg):
        root = os.path.dirname(mod.__file__)
        path = next(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".duckdb_extension"))
        con.execute(f"LOAD '{path}'")
    con.execute("SET TimeZone = 'UTC'")
    for t in job["tables"]:
        res = {"rows": None, "filters": {}}
        scan = f"iceberg_scan('{t['metadata']}')"
        cells = ", ".join(f"{duck_cell(c)} AS \"{c['name']}\"" for c in t["columns"])
        try:
            cur = con.execute(f"SELECT {cells} FROM {scan}")
            names = [d[0] for d in cur.description]
            res["rows"] = [dict(zip(names, r)) for r in cur.fetchall()]
        except Exception as e:  # noqa: BLE001
            res["rows_error"] = err(e)
        for f in t["filters"]:
            try:
                ids = [r[0] for r in con.execute(f"SELECT CAST(id AS VARCHAR) FROM {scan} WHERE {f['duckdb']}").fetchall()]
                res["filters"][f["name"]] = sorted(ids)
            except Exception as e:  # noqa: BLE001
                res["filters"][f["name"]] = {"error": err(e)}
        out["duckdb"][t["id"]] = res


for engine in job.get("engines", ["spark", "duckdb"]):
    try:
        (run_spark if engine == "spark" else run_duckdb)()
    except Exception:  # noqa: BLE001
        out["errors"].append(f"{engine}: {traceback.format_exc()[-2000:]}")

sys.stdout.write(json.dumps(out))
