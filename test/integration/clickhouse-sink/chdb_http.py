# A ClickHouse HTTP endpoint over one chdb (modern, in-process ClickHouse) session with a data
# directory, for the ClickHouse sink tests: the sink's real HTTP transport (@clickhouse/client)
# runs its queries and INSERTs with settings (insert_deduplication_token) against ClickHouse
# 26.x, from the test process or from a child process that gets killed. The data directory
# outlives the process, so a later server on the same directory sees the same tables.
#
# Only what the client sends: POST with the SQL in the body, or an INSERT in the `query` URL
# parameter and its JSONEachRow rows in the body (run as one INSERT with inline data); URL
# parameters other than the client's own are query settings, applied to INSERTs. Errors come
# back like ClickHouse's: HTTP 500, "Code: N. DB::Exception: ...".
#
# Test controls (not ClickHouse): POST /control {"lose_insert_responses": n} makes the next n
# INSERTs run and then answer a retryable error (a response lost after the server stored the
# rows); GET /stats → {"inserts": executed INSERTs}.
# Usage: python chdb_http.py DATA_DIR [PORT] — prints "PORT <n>" once it listens on 127.0.0.1
# (PORT: the one an earlier server on the same data used, so a restarted server keeps its URL).
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlparse

from chdb import session as chdb_session

CLIENT_PARAMS = {"query", "query_id", "database", "session_id", "role", "default_format", "enable_http_compression"}
INSERT = re.compile(r"^\s*(INSERT\s+INTO\s+.+?)\s+FORMAT\s+(\w+)\s*$", re.I | re.S)

lock = threading.Lock()
state = {"lose": 0, "inserts": 0}
sess = None


def quote(v):
    return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, code, body, headers=None):
        data = body.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            return self.rfile.read(n)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = []
            while True:
                size = int(self.rfile.readline().strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    break
                out.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(out)
        return b""

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/ping":
            return self.reply(200, "Ok.\n")
        if url.path == "/stats":
            return self.reply(200, json.dumps({"inserts": state["inserts"]}))
        return self.run(dict(parse_qsl(url.query)), b"")

    def do_POST(self):
        url = urlparse(self.path)
        body = self.body()
        if url.path == "/control":
            with lock:
                state["lose"] = int(json.loads(body).get("lose_insert_responses", 0))
            return self.reply(200, "ok\n")
        self.run(dict(parse_qsl(url.query)), body)

    def run(self, params, body):
        query = params.get("query")
        # Bytes throughout: a String column's JSON value may hold raw bytes (BYTES), not UTF-8.
        sql = query.encode("utf-8") + b"\n" + body if query else body
        settings = {k: v for k, v in params.items() if k not in CLIENT_PARAMS and not k.startswith("param_")}
        lose = False
        m = INSERT.match(query or "")
        if m:
            head, fmt = m.group(1), m.group(2)
            clause = " SETTINGS " + ", ".join(f"{k} = {quote(v)}" for k, v in settings.items()) if settings else ""
            sql = f"{head}{clause} FORMAT {fmt}\n".encode("utf-8") + body
        try:
            with lock:
                out = str(sess.query(sql, "TabSeparated"))
                if m:
                    state["inserts"] += 1
                    if state["lose"] > 0:
                        state["lose"] -= 1
                        lose = True
        except Exception as err:  # chdb raises with ClickHouse's "Code: N. DB::Exception: ..." text
            text = str(err).strip()
            code = re.search(r"Code: (\d+)", text)
            return self.reply(500, text + "\n", {"X-ClickHouse-Exception-Code": code.group(1) if code else "1000"})
        if lose:
            return self.reply(500, "Code: 209. DB::Exception: Timeout exceeded while reading from socket (test: response lost). (SOCKET_TIMEOUT)\n", {"X-ClickHouse-Exception-Code": "209"})
        self.reply(200, out, {"X-ClickHouse-Summary": '{"read_rows":"0","written_rows":"0"}'})


def main():
    global sess
    sess = chdb_session.Session(sys.argv[1])
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2]) if len(sys.argv) > 2 else 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    # Ends when the parent closes stdin (or dies): the session is closed, the data dir kept.
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    server.shutdown()
    sess.close()


if __name__ == "__main__":
    main()
