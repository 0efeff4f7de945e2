"""Reads pipec-written Iceberg tables with Apache Spark (default vectorised Parquet reader) and
DuckDB (iceberg extension installed from PyPI, never downloaded), for the interop suite
(harness.ts). A long-lived process: each stdin line is a JSON job, each answer one stdout line
`@@ {json}`, so one Spark session (one JVM start, the dominant cost) serves every read phase of
a test file. It computes nothing to compare: the test does that.

Spark cost is per query (each is a job), so a table is read in one query: its rows and every
filter as branches of one UNION ALL (each branch is its own Iceberg scan with its own pushed
filter, so partition and metric pruning still happen per filter), and its metadata tables in
another. Only when such a query fails are its parts run one by one, to name the failing one.

Canonical cell text (the same from every engine): NULL → None, binary → upper-case hex,
timestamps → 'YYYY-MM-DD HH:MM:SS.ffffff' (UTC), everything else CAST to a string.
"""
import json
import os
import sys
import time
import traceback

spark = None
duck = None


def log(msg):
    print(f"engines: {time.strftime('%H:%M:%S')} {msg}", file=sys.stderr, flush=True)


def q(name):
    return "`" + name.replace("`", "``") + "`"


def sql_str(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


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
    if t == "timestamp":
        return f"strftime({c}::TIMESTAMP, '%Y-%m-%d %H:%M:%S.%f')"
    if t == "timestamptz":
        return f"strftime(timezone('UTC', {c}), '%Y-%m-%d %H:%M:%S.%f')"
    return f"CAST({c} AS VARCHAR)"


METADATA_TABLES = [
    "snapshots", "history", "files", "data_files", "delete_files", "manifests", "all_manifests",
    "entries", "all_entries", "partitions", "all_data_files", "all_files", "refs", "metadata_log_entries",
]


def err(e):
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:400]


def start_spark(job):
    global spark
    if spark is not None:
        return spark
    from pyspark.sql import SparkSession

    t0 = time.time()
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
        # A short-lived JVM on a shared machine: the C1 compiler only and one GC thread cut the
        # CPU spent warming up (most of a session's time), at no cost for tables this small.
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        # Tiny tables, many distinct plans: compiling generated code for each costs more than it saves.
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.adaptive.enabled", "false")
        # The metadata tables' digest hashes every column, maps included.
        .config("spark.sql.legacy.allowHashOnMapType", "true")
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
                # Uncached, so release_catalogs reaches the JdbcCatalog itself.
                .config(p + ".cache-enabled", "false")
            )
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    log(f"spark session started in {time.time() - t0:.1f}s")
    return spark


def spark_table(s, t):
    """Rows and filter ids of one table in one query; per-part queries only if it fails."""
    name = t["spark"]
    cols = t["columns"]
    row_sql = f"SELECT '' AS f, to_json(array({', '.join(spark_cell(c) for c in cols)})) AS v FROM {name}"
    only = set(t.get("spark_filters", [f["name"] for f in t["filters"]]))
    filt_sql = {f["name"]: f"SELECT {sql_str(f['name'])} AS f, CAST(id AS STRING) AS v FROM {name} WHERE {f['spark']}" for f in t["filters"] if f["name"] in only}
    res = {"rows": None, "filters": {}}

    def fill(got):
        res["rows"] = [dict(zip([c["name"] for c in cols], json.loads(v))) for f, v in got if f == ""]
        for fname in filt_sql:
            res["filters"][fname] = sorted(v for f, v in got if f == fname)

    try:
        fill([(r[0], r[1]) for r in s.sql(" UNION ALL ".join([row_sql, *filt_sql.values()])).collect()])
        return res
    except Exception:  # noqa: BLE001 — name the part that fails
        pass
    try:
        res["rows"] = [dict(zip([c["name"] for c in cols], json.loads(r[1]))) for r in s.sql(row_sql).collect()]
    except Exception as e:  # noqa: BLE001
        res["rows_error"] = err(e)
    for fname, sql in filt_sql.items():
        try:
            res["filters"][fname] = sorted(r[1] for r in s.sql(sql).collect())
        except Exception as e:  # noqa: BLE001
            res["filters"][fname] = {"error": err(e)}
    return res


def spark_metadata(s, name):
    """Every metadata table read whole (a hash over all its columns), in one query."""
    part = lambda m: f"SELECT {sql_str(m)} AS m, count(*) AS n, sum(hash(*)) AS h FROM {name}.{m}"  # noqa: E731
    try:
        return {r[0]: r[1] for r in s.sql(" UNION ALL ".join(part(m) for m in METADATA_TABLES)).collect()}
    except Exception:  # noqa: BLE001
        pass
    out = {}
    for m in METADATA_TABLES:
        try:
            out[m] = len(s.sql(f"SELECT * FROM {name}.{m}").collect())
        except Exception as e:  # noqa: BLE001
            out[m] = {"error": err(e)}
    return out


def release_catalogs(job):
    """Closes the SQL catalogs' JDBC connections after a job: an idle sqlite-jdbc connection
    of Spark's keeps the catalog file locked ("database is locked" for the next pipec run).
    The next job's first use opens the catalog afresh."""
    manager = spark._jsparkSession.sessionState().catalogManager()
    for c in job["catalogs"]:
        if c["type"] == "sql" and manager.isCatalogRegistered(c["spark"]):
            manager.catalog(c["spark"]).icebergCatalog().close()
    manager.reset()


def run_spark(job, out):
    s = start_spark(job)
    for w in job.get("spark_sql", []):
        try:
            rows = [[None if x is None else str(x) for x in r] for r in s.sql(w).collect()]
            out["spark_sql"].append({"sql": w, "ok": True, "rows": rows})
        except Exception as e:  # noqa: BLE001
            out["spark_sql"].append({"sql": w, "ok": False, "error": err(e)})
    for t in job["tables"]:
        t0 = time.time()
        res = spark_table(s, t)
        if t.get("metadata_tables"):
            res["metadata"] = spark_metadata(s, t["spark"])
        out["spark"][t["id"]] = res
        log(f"spark read {t['id']} in {time.time() - t0:.1f}s")
    release_catalogs(job)


def start_duckdb():
    global duck
    if duck is not None:
        return duck
    import duckdb
    import duckdb_extension_avro
    import duckdb_extension_iceberg

    duck = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "true", "allow_community_extensions": "false"})
    # The PyPI extension packages: load from the files they ship, never from the network.
    for mod in (duckdb_extension_avro, duckdb_extension_iceberg):
        root = os.path.dirname(mod.__file__)
        path = next(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".duckdb_extension"))
        duck.execute(f"LOAD '{path}'")
    duck.execute("SET TimeZone = 'UTC'")
    return duck


def run_duckdb(job, out):
    con = start_duckdb()
    t0 = time.time()
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
    log(f"duckdb read {len(job['tables'])} tables in {time.time() - t0:.1f}s")


def main():
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            job = json.loads(line)
            out = {"spark": {}, "duckdb": {}, "spark_sql": [], "errors": []}
            for engine in job.get("engines", ["spark", "duckdb"]):
                try:
                    (run_spark if engine == "spark" else run_duckdb)(job, out)
                except Exception:  # noqa: BLE001
                    out["errors"].append(f"{engine}: {traceback.format_exc()[-2000:]}")
            sys.stdout.write("@@ " + json.dumps(out) + "\n")
            sys.stdout.flush()
    finally:
        if spark is not None:
            spark.stop()


main()
