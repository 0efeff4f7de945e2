// The Flink engine `pipec test --target flink` runs on: PyFlink's local mini-cluster (PyPI
// `apache-flink` 2.x), driven through a Python interpreter. Starting Flink costs tens of seconds,
// so ONE call runs every case of a `pipec test` invocation in ONE job: each case's tables and
// views live in a database of their own (`default_catalog.<case id>`), each case is planned on
// its own first (a case Flink cannot plan is an error of that case, not of the others), and the
// INSERTs of every plannable case go into one statement set.
import { spawn } from 'node:child_process';

export interface FlinkEngineCase {
  /** A database name, unique within the job. */
  id: string;
  /** CREATE TEMPORARY TABLE / VIEW statements, run in the case's database. */
  ddl: string[];
  inserts: string[];
}

export interface FlinkEngineSink {
  /** The folder the sink's filesystem table writes part files into. */
  folder: string;
}

export type FlinkEngineResult =
  | { ok: true; caseErrors: Record<string, string>; sinks: Record<string, Record<string, unknown>[]>; seconds: number }
  | { ok: false; missing: boolean; message: string };

/** The interpreter: `--flink-python`, else PIPEC_FLINK_PYTHON, else `python3`. */
export function flinkPython(flag: string | undefined, env: { get(name: string): string | undefined }): string {
  return flag ?? env.get('PIPEC_FLINK_PYTHON') ?? 'python3';
}

/**
 * Options every test job runs with: parallelism 1 (one reader per source file, in the test's row
 * order), UTC, a watermark per record (interval 0, as the runtime's), no checkpoints (the file
 * sinks commit at the end of input) and no idle timeout (real time must not change a result).
 */
export const FLINK_TEST_CONFIG: Record<string, string> = {
  'parallelism.default': '1',
  'table.exec.resource.default-parallelism': '1',
  'pipeline.auto-watermark-interval': '0',
  'table.local-time-zone': 'UTC',
  'pipeline.name': 'pipec-test',
  // A shared machine can be slow to answer the mini-cluster's own RPCs.
  'pekko.ask.timeout': '10 min',
  'heartbeat.timeout': '600000',
};

// Reads {"config", "cases", "sinks"} on stdin and writes one JSON document on stdout. Flink's own
// prints go to stderr. Each sink's part files are read back in the order Flink wrote them (the
// part counter), every JSON number as its text (exact for BIGINT and DECIMAL), so a changelog
// folds in its order.
const DRIVER = String.raw`
import json, os, re, sys, time
out = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
def answer(doc):
    out.write(json.dumps(doc))
    out.flush()
try:
    from pyflink.table import EnvironmentSettings, TableEnvironment
except Exception as err:
    answer({"ok": False, "missing": True, "message": "cannot import pyflink: " + str(err)})
    sys.exit(0)
def short(err):
    text = str(err).strip()
    # Flink's own reason is the last "Caused by" of the Java trace; keep it and the first line.
    lines = [l.strip() for l in text.split("\n") if l.strip() and not l.strip().startswith("at ") and not l.strip().startswith("...")]
    causes = [l for l in lines if l.startswith("Caused by:")]
    picked = lines[:1] + causes[-2:] if causes else lines[:4]
    return "\n".join(picked)[:2000]
def part_order(name):
    m = re.search(r"-(\d+)$", name)
    return (int(m.group(1)) if m else -1, name)
def read_sink(folder):
    lines = []
    if not os.path.isdir(folder):
        return lines
    names = []
    for root, _dirs, files in os.walk(folder):
        for name in files:
            if not name.startswith(".") and not name.startswith("_"):
                names.append((part_order(name), os.path.join(root, name)))
    for _order, path in sorted(names):
        with open(path, encoding="utf-8") as f:
            lines.extend(json.loads(l, parse_int=str, parse_float=str) for l in f if l.strip())
    return lines
started = time.time()
req = json.load(sys.stdin)
try:
    # No Java, or a broken install: the engine is missing, not a case failing.
    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
except Exception as err:
    answer({"ok": False, "missing": True, "message": "cannot start Flink: " + short(err)})
    sys.exit(0)
try:
    conf = env.get_config()
    for key, value in req["config"].items():
        conf.set(key, value)
    errors = {}
    job = env.create_statement_set()
    inserts = 0
    for case in req["cases"]:
        try:
            env.execute_sql("CREATE DATABASE IF NOT EXISTS " + "\u0060" + case["id"] + "\u0060")
            env.use_database(case["id"])
            for stmt in case["ddl"]:
                env.execute_sql(stmt)
            probe = env.create_statement_set()
            for stmt in case["inserts"]:
                probe.add_insert_sql(stmt)
            probe.explain()
            for stmt in case["inserts"]:
                job.add_insert_sql(stmt)
            inserts += len(case["inserts"])
        except Exception as err:
            errors[case["id"]] = short(err)
    if inserts:
        job.execute().wait()
except Exception as err:
    answer({"ok": False, "missing": False, "message": short(err)})
    sys.exit(0)
answer({"ok": True, "caseErrors": errors, "sinks": {k: read_sink(v["folder"]) for k, v in req["sinks"].items()}, "seconds": round(time.time() - started, 1)})
`;

/** Runs every case in one Flink job; rejects only when the interpreter cannot be started. */
export function runFlinkJob(python: string, cases: FlinkEngineCase[], sinks: Record<string, FlinkEngineSink>): Promise<FlinkEngineResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-c', DRIVER], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-4000)));
    child.on('error', (err) => reject(new Error(`cannot start ${python} for Flink: ${err.message} (set PIPEC_FLINK_PYTHON or --flink-python)`)));
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(stdout) as FlinkEngineResult);
      } catch {
        resolve({ ok: false, missing: false, message: `${python} running Flink exited with ${code}: ${stderr.trim().split('\n').slice(-8).join('\n') || stdout.slice(0, 500)}` });
      }
    });
    child.stdin.end(JSON.stringify({ config: FLINK_TEST_CONFIG, cases, sinks }));
  });
}
