"""Reads every table of an interop read phase with pyiceberg in one process (the main venv):
rows as the canonical text of engines.py, the ids of each filter (pyiceberg's own row_filter
expressions, which prune partitions and files by metrics before reading), and which `inspect`
metadata tables load. Input: JSON {tables: [{id, metadata, columns, filters: [{name, expr}],
inspect}]} on stdin; output: one JSON document {id: {rows, rows_error?, filters, inspect}}.
Computes nothing to compare: the test does that.
"""
import json
import sys

from pyiceberg.table import StaticTable

INSPECT = [
    "snapshots", "history", "files", "data_files", "delete_files", "manifests", "all_manifests",
    "entries", "partitions", "all_data_files", "all_files", "refs", "metadata_log_entries",
]


def err(e):
    text = str(e).strip().splitlines()
    return (type(e).__name__ + ": " + (text[0] if text else ""))[:400]


def cell(v, t):
    if v is None:
        return None
    if t == "binary":
        return v.hex().upper()
    if t in ("timestamp", "timestamptz"):
        return v.strftime("%Y-%m-%d %H:%M:%S.%f")
    if t == "boolean":
        return "true" if v else "false"
    return str(v)


def read(t):
    res = {"rows": None, "filters": {}, "inspect": {}}
    try:
        tbl = StaticTable.from_metadata(t["metadata"])
    except Exception as e:  # noqa: BLE001
        res["rows_error"] = err(e)
        return res
    cols = t["columns"]
    try:
        rows = tbl.scan().to_arrow().to_pylist()
        res["rows"] = [{c["name"]: cell(r[c["name"]], c["type"]) for c in cols} for r in rows]
    except Exception as e:  # noqa: BLE001
        res["rows_error"] = err(e)
    for f in t["filters"]:
        try:
            got = tbl.scan(row_filter=f["expr"], selected_fields=("id",)).to_arrow().column("id").to_pylist()
            res["filters"][f["name"]] = sorted(str(x) for x in got)
        except Exception as e:  # noqa: BLE001
            res["filters"][f["name"]] = {"error": err(e)}
    for m in INSPECT if t.get("inspect") else []:
        try:
            res["inspect"][m] = getattr(tbl.inspect, m)().num_rows
        except Exception as e:  # noqa: BLE001
            res["inspect"][m] = {"error": err(e)}
    return res


job = json.load(sys.stdin)
sys.stdout.write(json.dumps({t["id"]: read(t) for t in job["tables"]}))
