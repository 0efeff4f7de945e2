// The ClickHouse engine `pipec test --target clickhouse` runs on: chdb (ClickHouse in-process,
// `pip install chdb`), driven through a Python interpreter. One call runs a list of statements in
// one fresh, private session (a temporary directory, never a shared server), so a test cannot
// touch anybody's tables and two tests cannot see each other's rows.
import { spawn } from 'node:child_process';

export interface ChdbOp {
  sql: string;
  /** A query whose rows come back (FORMAT JSON); other statements return nothing. */
  query?: boolean;
  /**
   * Run instead when `sql` fails (an INSERT whose row ClickHouse cannot parse becomes a
   * dead-letter insert, as the Kafka engine's stream error mode does); `__PIPEC_ERROR__` in it is
   * replaced by the error text as a quoted SQL string.
   */
  fallback?: string;
}

export type ChdbResult =
  | { ok: true; rows: Record<string, unknown>[][] }
  | { ok: false; index: number; sql: string; message: string };

/** The interpreter: `--chdb-python`, else PIPEC_CHDB_PYTHON, else `python3`. */
export function chdbPython(flag: string | undefined, env: { get(name: string): string | undefined }): string {
  return flag ?? env.get('PIPEC_CHDB_PYTHON') ?? 'python3';
}

// Reads {"ops": [...]} on stdin, writes one JSON document on stdout. The engine's own prints go to
// stderr so they cannot corrupt the answer.
const DRIVER = String.raw`
import json, os, sys, tempfile
out = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
try:
    from chdb import session as chdb_session
except Exception as err:
    out.write(json.dumps({"ok": False, "index": -1, "sql": "", "message": "cannot import chdb: " + str(err)}))
    sys.exit(0)
req = json.load(sys.stdin)
def quoted(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
with tempfile.TemporaryDirectory(prefix="pipec-test-chdb-") as path:
    sess = chdb_session.Session(path)
    sess.query("SET output_format_json_quote_64bit_integers = 0")
    results = []
    answer = None
    for index, op in enumerate(req["ops"]):
        try:
            body = str(sess.query(op["sql"], "JSON" if op.get("query") else "CSV")).strip()
        except Exception as err:
            if op.get("fallback") is None:
                answer = {"ok": False, "index": index, "sql": op["sql"], "message": str(err).strip()}
                break
            try:
                sess.query(op["fallback"].replace("__PIPEC_ERROR__", quoted(str(err).strip())), "CSV")
            except Exception as err2:
                answer = {"ok": False, "index": index, "sql": op["fallback"], "message": str(err2).strip()}
                break
            body = ""
        if op.get("query"):
            results.append(json.loads(body)["data"] if body else [])
    sess.close()
    out.write(json.dumps(answer if answer else {"ok": True, "rows": results}, default=str))
`;

/** Runs `ops` in one fresh chdb session; rejects only when the interpreter cannot be started. */
export function runChdbOps(python: string, ops: ChdbOp[]): Promise<ChdbResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-c', DRIVER], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-2000)));
    child.on('error', (err) => reject(new Error(`cannot start ${python} for chdb: ${err.message} (set PIPEC_CHDB_PYTHON or --chdb-python)`)));
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(stdout) as ChdbResult);
      } catch {
        reject(new Error(`${python} running chdb exited with ${code}: ${stderr.trim() || stdout.slice(0, 500)}`));
      }
    });
    child.stdin.end(JSON.stringify({ ops }));
  });
}
