# Runs a SQL script in ONE chdb (in-process ClickHouse) session; called by test/support/chdb.ts.
# stdin: the script; stdout: one JSON document {"ok": true, "results": [...]} or {"ok": false, ...}.
import json
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


def main():
    script = sys.stdin.read()
    results = []
    # A fresh temporary session per script: state lives exactly as long as this process.
    sess = chdb_session.Session()
    try:
        # Integers come unquoted so to_json_safe decides per value (chdb's default, made explicit).
        sess.query("SET output_format_json_quote_64bit_integers = 0")
        for index, (text, label) in enumerate(split_statements(script)):
            try:
                body = str(sess.query(text, "JSON")).strip()
            except Exception as err:  # chdb raises ChdbError carrying ClickHouse's message
                json.dump({"ok": False, "index": index, "statement": label,
                           "message": str(err).strip()}, sys.stdout)
                return
            rows = []
            if body:
                try:
                    rows = json.loads(body).get("data", [])
                except ValueError:
                    json.dump({"ok": False, "index": index, "statement": label,
                               "message": "result is not JSON (does the statement set its own FORMAT?): "
                               + body[:500]}, sys.stdout)
                    return
            results.append({"statement": label, "rows": to_json_safe(rows)})
    finally:
        sess.close()
    json.dump({"ok": True, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
