# A long-lived chdb session for tests that need ClickHouse's background work (Kafka engine consumers,
# merges): unlike chdb-run.py, which opens a fresh session per script, this one keeps ONE session open
# for the life of the process, so Kafka consumers started by a materialized view keep consuming.
# Called by test/support/chdb-live.ts. argv[1]: the session's data directory.
# stdin: one JSON request per line ({"id", "sql"}: one statement); stdout: one JSON response per line.
import json
import os
import sys

import chdb

from json_safe import to_json_safe


def main():
    # Keep the protocol channel private: anything the engine prints to fd 1 goes to stderr instead.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    conn = chdb.connect(sys.argv[1])
    cur = conn.cursor()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            cur.execute(req["sql"])
            names = [d[0] for d in (cur.description or [])]
            rows = [dict(zip(names, r)) for r in cur.fetchall()] if names else []
            res = {"ok": True, "rows": to_json_safe(rows)}
        except Exception as err:  # chdb raises with ClickHouse's message; the caller decides what it means
            res = {"ok": False, "message": str(err).strip()}
        res["id"] = req["id"]
        out.write(json.dumps(res) + "\n")
        out.flush()
    conn.close()


if __name__ == "__main__":
    main()
