"""Asks pyiceberg (an independent Iceberg implementation) about tables pipec wrote.

Reads one JSON request on stdin, prints one JSON answer:
  {"op": "transforms", "items": [{"transform": "bucket[16]", "type": "long", "value": 34}]}
      -> pyiceberg's result of each transform (checks our bucket/truncate/time transforms)
  {"op": "scan", "metadata": "<metadata.json location>", "filter": "customer_id == 7"}
      -> rows of a filtered scan; pyiceberg prunes files by our partition values and metrics,
         so wrong partition values or bounds lose rows here.
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


def main():
    req = json.loads(sys.stdin.read())
    try:
        result = {"transforms": transforms, "scan": scan}[req["op"]](req)
        print(json.dumps({"ok": True, **result}, default=str))
    except Exception as e:  # the answer carries the error for the test to show
        import traceback
        print(json.dumps({"ok": False, "message": str(e), "trace": traceback.format_exc()}))


if __name__ == "__main__":
    main()
