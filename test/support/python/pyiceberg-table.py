# Reads (or, for tests that need a fixture, writes) an Iceberg table with pyiceberg; called by test/support/pyiceberg.ts.
# stdin: one JSON request (see pyiceberg.ts); stdout: {"ok": true, ...} or {"ok": false, "message": ...}.
import json
import sys
import traceback

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.io.pyarrow import schema_to_pyarrow
from pyiceberg.partitioning import UNPARTITIONED_PARTITION_SPEC, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import StaticTable
from pyiceberg.table.sorting import UNSORTED_SORT_ORDER, SortOrder

from json_safe import to_json_safe


def spec_json(model):
    """A pyiceberg model in the Iceberg spec's own JSON form (kebab-case keys)."""
    return json.loads(model.model_dump_json(by_alias=True))


def open_catalog(cfg):
    props = dict(cfg.get("properties") or {})
    props["uri"] = cfg["uri"]
    if cfg.get("warehouse"):
        props["warehouse"] = cfg["warehouse"]
    return SqlCatalog(cfg.get("name") or "pipec", **props)


def load(req):
    if "metadata" in req:
        return StaticTable.from_metadata(req["metadata"])
    return open_catalog(req["catalog"]).load_table(req["table"])


def read(req):
    table = load(req)
    meta = table.metadata
    snapshot_id = req.get("snapshotId")
    scan = table.scan(snapshot_id=int(snapshot_id)) if snapshot_id is not None else table.scan()
    rows = scan.to_arrow().to_pylist() if table.current_snapshot() is not None else []
    return {
        "formatVersion": meta.format_version,
        "location": meta.location,
        "metadataLocation": table.metadata_location,
        "properties": dict(meta.properties),
        "schema": spec_json(table.schema()),
        "partitionSpec": spec_json(table.spec()),
        "sortOrder": spec_json(table.sort_order()),
        "currentSnapshotId": meta.current_snapshot_id,
        "snapshots": [spec_json(s) for s in table.snapshots()],
        "rows": rows,
    }


def arrow_rows(rows, arrow_schema):
    """Builds each column by inference, then casts: lets requests give timestamps/decimals as strings."""
    columns = []
    for field in arrow_schema:
        values = [row.get(field.name) for row in rows]
        try:
            arr = pa.array(values, type=field.type)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arr = pa.array(values).cast(field.type)
        columns.append(arr)
    return pa.Table.from_arrays(columns, schema=arrow_schema)


def write(req):
    catalog = open_catalog(req["catalog"])
    ident = req["table"]
    namespace = ident.rsplit(".", 1)[0]
    catalog.create_namespace_if_not_exists(namespace)
    schema = Schema.model_validate(req["schema"])
    spec = PartitionSpec.model_validate(req["partitionSpec"]) if req.get("partitionSpec") else UNPARTITIONED_PARTITION_SPEC
    order = SortOrder.model_validate(req["sortOrder"]) if req.get("sortOrder") else UNSORTED_SORT_ORDER
    if catalog.table_exists(ident):
        table = catalog.load_table(ident)
    else:
        table = catalog.create_table(ident, schema=schema, partition_spec=spec, sort_order=order,
                                     properties=req.get("properties") or {})
    for batch in req.get("appends") or []:
        table.append(arrow_rows(batch, schema_to_pyarrow(table.schema())))
    table = catalog.load_table(ident)
    return {"metadataLocation": table.metadata_location}


def main():
    req = json.load(sys.stdin)
    try:
        op = req.get("op", "read")
        result = read(req) if op == "read" else write(req) if op == "write" else None
        if result is None:
            raise ValueError(f"unknown op {op!r}")
    except Exception as err:
        json.dump({"ok": False, "message": f"{type(err).__name__}: {err}",
                   "trace": traceback.format_exc(limit=8)}, sys.stdout)
        return
    json.dump({"ok": True, **to_json_safe(result)}, sys.stdout)


if __name__ == "__main__":
    main()
