# Runs a SQL script in ONE chdb (in-process ClickHouse) session; called by test/support/chdb.ts.
# stdin: the script; stdout: one JSON document {"ok": true, "results": [...]} or {"ok": false, ...}.
# With --serve it stays up and answers one JSON line per request line (what chdb.ts uses).
import json
import os
import sys

import sqlparse
from chdb import session as chdb_session

from json_safe import to_json_safe

def split_statements(script):
    """Statements in order, each as (text to run, label without comments); empty ones dropped."""
    out = []
    for raw in sqlparse.split(script):
        label = sqlparse.format(raw, strip_comments=True).strip()
        if label.endswith(";"):
            label = label[:-1].rstrip()
        if not label:
            continue
        text = raw.strip()
        if text.endswith(";"):
            text = text[:-1]
        out.append((text, label))
    return out


def run_script(script):
    """Runs every statement of `script` in one fresh chdb session; returns the response document."""
    results = []
    # A fresh session per script: no state leaks between scripts, even in --serve mode.
    sess = chdb_session.Session()
    try:
        # Integers come unquoted so to_json_safe decides per value (chdb's default, made explicit).
        sess.query("SET output_format_json_quote_64bit_integers = 0")
        for index, (text, label) in enumerate(split_statements(script)):
            try:
                body = str(sess.query(text, "JSON")).strip()
            except Exception as err:  # chdb raises ChdbError carrying ClickHouse's message
                return {"ok": False, "index": index, "statement": label, "message": str(err).strip()}
            rows = []
            if body:
                try:
                    rows = json.loads(body).get("data", [])
                except ValueError:
                    return {"ok": False, "index": index, "statement": label,
                            "message": "result is not JSON (does the statement set its own FORMAT?): " + body[:500]}
            results.append({"statement": label, "rows": to_json_safe(rows)})
    finally:
        sess.close()
    return {"ok": True, "results": results}


def serve():
    """--serve: one JSON request per stdin line ({"id", "script"}), one JSON response per stdout line."""
    # Keep the protocol channel private: anything the engine itself prints to fd 1 goes to stderr instead.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            res = run_script(req["script"])
        except Exception as err:  # a helper bug must not kill the worker silently
            res = {"ok": False, "index": -1, "statement": "", "message": f"{type(err).__name__}: {err}"}
        res["id"] = req["id"]
        out.write(json.dumps(res) + "\n")
        out.flush()


def main():
    if "--serve" in sys.argv[1:]:
        serve()
    else:
        json.dump(run_script(sys.stdin.read()), sys.stdout)


if __name__ == "__main__":
    main()
