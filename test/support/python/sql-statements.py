# Splits SQL scripts into statements for the tests that put hostile names into generated SQL
# (test/unit/security/, test/fuzz/); called through test/support/venv.ts runPythonHelper.
# stdin: {"scripts": {"<name>": {"sql": "...", "clickhouse": bool, "statements": [...]?}}}
# stdout: {"ok": true, "scripts": {"<name>": {"statements": [{"head": "CREATE TABLE", "ast": "ok" | "<error>" | null}]}}}
# `head` is the statement's first two keywords with comments stripped; with "clickhouse" each
# statement is also parsed (never run) by chdb with EXPLAIN AST; "statements" (already split by
# the caller) replaces sqlparse's split.
import json
import sys

import sqlparse


def head_of(stmt):
    words = []
    for tok in stmt.flatten():
        if tok.is_whitespace or tok.ttype in sqlparse.tokens.Comment:
            continue
        words.append(tok.value.upper() if tok.is_keyword else tok.value)
        if len(words) == 2:
            break
    return " ".join(words)


def main():
    req = json.load(sys.stdin)
    sess = None
    out = {}
    for name, item in req["scripts"].items():
        stmts = []
        for raw in item.get("statements") or sqlparse.split(item["sql"]):
            text = sqlparse.format(raw, strip_comments=True).strip().rstrip(";").strip()
            if not text:
                continue
            entry = {"head": head_of(sqlparse.parse(raw)[0]), "ast": None}
            if item.get("clickhouse"):
                if sess is None:
                    from chdb import session as chdb_session
                    sess = chdb_session.Session()
                try:
                    sess.query("EXPLAIN AST " + raw.strip().rstrip(";"), "TSV")
                    entry["ast"] = "ok"
                except Exception as err:  # chdb raises ChdbError carrying ClickHouse's message
                    entry["ast"] = str(err).strip()[:500]
            stmts.append(entry)
        out[name] = {"statements": stmts}
    if sess is not None:
        sess.close()
    json.dump({"ok": True, "scripts": out}, sys.stdout)


main()
