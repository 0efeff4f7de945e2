"""Asks pyiceberg (an independent Iceberg implementation) about tables pipec wrote.

Reads one JSON request on stdin, prints one JSON answer:
  {"op": "transforms", "items": [{"transform": "bucket[16]", "type": "long", "value": 34}]}
      -> pyiceberg's result of each transform (checks our bucket/truncate/time transforms)
  {"op": "scan", "metadata": "<metadata.json location>", "filter": "customer_id == 7"}
      -> rows of a filtered scan; pyiceberg prunes files by our partition values and metrics,
         so wrong partition values or bounds lose rows here.
  {"op": "lineage", "metadata": "<metadata.json location>", "column": "orders"}
      -> row lineage of a format v3 table as pyiceberg reads it: next-row-id, every snapshot's
         first-row-id / added-rows, the current manifest list and manifests read with the v3
         Avro schemas (first_row_id, referenced_data_file, ...), each live data file's `column`
         (as "values") and stored _row_id / _last_updated_sequence_number by position (pyarrow), each
         deletion vector's positions (pyiceberg's Puffin reader, pyroaring), and the scan.
         pyiceberg reads but does not derive row ids: the test derives them from this.
  {"op": "dv", "puffin": "<base64>"} -> each deletion vector of a Puffin file, decoded by pyiceberg
  {"op": "roaring", "positions": [..]} -> pyroaring's portable serialization (run containers
         where they are smaller) of a 32-bit bitmap, base64
"""
import json
import sys
from datetime import datetime, timezone

from pyiceberg.table import StaticTable
from pyiceberg.transforms import parse_transform
from pyiceberg.types import LongType, IntegerType, StringType, TimestampType, DateType, DecimalType
from decimal import Decimal

TYPES = {"long": LongType(), "int": IntegerType(), "string": StringType(), "timestamp": TimestampType(), "date": DateType()}


def source_type(name):
    if name.startswith("decimal"):
        p, s = name[len("decimal("):-1].split(",")
        return DecimalType(int(p), int(s))
    return TYPES[name]


def to_python(type_name, value):
    if type_name == "timestamp":
        return int(value) * 1000  # epoch ms -> micros, pyiceberg's internal representation
    if type_name.startswith("decimal"):
        return Decimal(value)
    return value


def transforms(req):
    out = []
    for item in req["items"]:
        t = parse_transform(item["transform"])
        st = source_type(item["type"])
        fn = t.transform(st)
        out.append(fn(to_python(item["type"], item["value"])))
    return {"results": out}


def scan(req):
    table = StaticTable.from_metadata(req["metadata"])
    rows = table.scan(row_filter=req.get("filter") or "True").to_arrow().to_pylist()
    return {"rows": json.loads(json.dumps(rows, default=str))}


def records(io, path, schema):
    from pyiceberg.avro.file import AvroFile

    names = [f.name for f in schema.fields]
    with AvroFile(io.new_input(path), schema, read_types={}) as reader:
        return [{n: rec[i] for i, n in enumerate(names)} for rec in reader]


def lineage(req):
    import pyarrow.parquet as pq
    from pyiceberg.manifest import MANIFEST_ENTRY_SCHEMAS, MANIFEST_LIST_FILE_SCHEMAS
    from pyiceberg.table.puffin import PuffinFile
    from pyiceberg.table.deletion_vector import deletion_vectors_from_puffin_file

    table = StaticTable.from_metadata(req["metadata"])
    md = table.metadata
    io = table.io
    snap = table.current_snapshot()
    manifests = []
    files = {}
    vectors = []
    entry_fields = [f.name for f in MANIFEST_ENTRY_SCHEMAS[3].fields]
    for m in records(io, snap.manifest_list, MANIFEST_LIST_FILE_SCHEMAS[3]):
        entries = []
        for e in records(io, m["manifest_path"], MANIFEST_ENTRY_SCHEMAS[3]):
            df = e["data_file"]
            df_names = [f.name for f in MANIFEST_ENTRY_SCHEMAS[3].find_field("data_file").field_type.fields]
            d = {n: df[i] for i, n in enumerate(df_names)}
            entries.append({
                "status": int(e["status"]), "sequence_number": e["sequence_number"],
                "content": int(d["content"]), "file_path": d["file_path"], "file_format": str(d["file_format"]),
                "record_count": d["record_count"], "first_row_id": d["first_row_id"],
                "referenced_data_file": d["referenced_data_file"], "content_offset": d["content_offset"],
                "content_size_in_bytes": d["content_size_in_bytes"],
            })
            live = int(e["status"]) != 2
            if live and int(d["content"]) == 0:
                t = pq.read_table(d["file_path"].replace("file://", ""))
                files[d["file_path"]] = {
                    key: (t.column(c).to_pylist() if c in t.column_names else None)
                    for key, c in [("values", req["column"]), ("_row_id", "_row_id"), ("_last_updated_sequence_number", "_last_updated_sequence_number")]
                }
            if live and int(d["content"]) == 1 and str(d["file_format"]).upper().endswith("PUFFIN"):
                with io.new_input(d["file_path"]).open() as f:
                    for dv in deletion_vectors_from_puffin_file(PuffinFile(f.read())):
                        vectors.append({"file": d["file_path"], "referenced_data_file": dv.referenced_data_file,
                                        "positions": sorted(int(x) for x in dv.to_vector().to_pylist())})
        manifests.append({
            "path": m["manifest_path"], "content": int(m["content"]), "first_row_id": m["first_row_id"],
            "sequence_number": m["sequence_number"],
            "added_rows_count": m["added_rows_count"], "existing_rows_count": m["existing_rows_count"], "entries": entries,
        })
    return {
        "format_version": md.format_version,
        "next_row_id": md.next_row_id,
        "snapshots": [{"snapshot_id": s.snapshot_id, "sequence_number": s.sequence_number, "first_row_id": s.first_row_id,
                       "added_rows": s.added_rows, "operation": str(s.summary.operation.value) if s.summary else None}
                      for s in md.snapshots],
        "current_snapshot_id": snap.snapshot_id,
        "manifests": manifests,
        "files": files,
        "vectors": vectors,
        "scan": sorted(table.scan().to_arrow().column(req["column"]).to_pylist()),
    }


def dv(req):
    import base64
    from pyiceberg.table.puffin import PuffinFile
    from pyiceberg.table.deletion_vector import deletion_vectors_from_puffin_file

    vectors = deletion_vectors_from_puffin_file(PuffinFile(base64.b64decode(req["puffin"])))
    return {"vectors": [{"referenced_data_file": v.referenced_data_file, "positions": [int(x) for x in v.to_vector().to_pylist()]} for v in vectors]}


def roaring(req):
    import base64
    from pyroaring import BitMap

    bm = BitMap(req["positions"])
    bm.run_optimize()
    return {"bytes": base64.b64encode(bm.serialize()).decode()}


def main():
    req = json.loads(sys.stdin.read())
    try:
        result = {"transforms": transforms, "scan": scan, "lineage": lineage, "dv": dv, "roaring": roaring}[req["op"]](req)
        print(json.dumps({"ok": True, **result}, default=str))
    except Exception as e:  # the answer carries the error for the test to show
        import traceback
        print(json.dumps({"ok": False, "message": str(e), "trace": traceback.format_exc()}))


if __name__ == "__main__":
    main()
