// Runs Flink SQL on real Apache Flink (PyFlink's local mini-cluster, in the `flink` venv built from
// test/services/requirements-flink.txt) and returns each sink's rows. One call = one JVM and one
// job: give every case its own source and sink tables and run them all together (a JVM start costs
// tens of seconds on a shared machine; a small case costs milliseconds once Flink is up).
// Sinks are filesystem/json tables; `flinkSink` writes the DDL so the folder is known here.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ensureVenv, repoRoot, venvPythonOf } from './venv.ts';

/** A row as Flink's json format wrote it; every number is its JSON text (exact for BIGINT/DECIMAL). */
export type FlinkRow = Record<string, unknown>;

export interface FlinkJob {
  /** CREATE TABLE / CREATE VIEW statements, run in order. */
  ddl: string[];
  /** INSERT statements: all run in ONE StatementSet (one job). */
  inserts: string[];
  /** Sink name → the folder its filesystem table writes to (read back after the job). */
  sinks: Record<string, string>;
  /** Flink options over the runner's defaults (parallelism 1, UTC, auto-watermark-interval 0). */
  config?: Record<string, string>;
  /** Connector jar files for `pipeline.jars` (from flinkJars). */
  jars?: string[];
  /**
   * Put Hadoop's client jars on the Flink process's class path (HADOOP_CLASSPATH, which PyFlink's
   * gateway adds): Iceberg's Flink catalog needs them there, not as pipeline jars.
   */
  hadoop?: boolean;
}

/** The class path of Hadoop's shaded client, as test/services/flink/pom.xml fetches it. */
export function hadoopClasspath(): string {
  return flinkJars(['hadoop-client-api', 'hadoop-client-runtime', 'commons-logging']).join(path.delimiter);
}

/** The jars test/services/flink/build.sh installs from Maven Central. */
export const flinkJarDir = path.join(repoRoot, 'test', 'services', '.cache', 'flink-jars');

/**
 * The installed jar files whose names start with the given artifact ids (e.g.
 * 'flink-sql-connector-kafka'); installs them first if needed. Throws naming a missing one.
 */
export function flinkJars(artifacts: string[]): string[] {
  const built = spawnSync('bash', [path.join(repoRoot, 'test', 'services', 'flink', 'build.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (built.status !== 0) throw new Error(`test/services/flink/build.sh failed (exit ${String(built.status)})`);
  const files = readdirSync(flinkJarDir);
  return artifacts.map((a) => {
    const f = files.find((n) => n.startsWith(`${a}-`) && /^\d/.test(n.slice(a.length + 1)) && n.endsWith('.jar'));
    if (!f) throw new Error(`no ${a} jar in ${flinkJarDir}`);
    return path.join(flinkJarDir, f);
  });
}

export interface FlinkResult {
  sinks: Record<string, FlinkRow[]>;
  seconds: number;
}

/** `CREATE TABLE name (columns) WITH (filesystem, json)` writing to `folder`, for FlinkJob.sinks. */
export function flinkSink(name: string, columns: string, folder: string): string {
  return `CREATE TABLE ${name} (${columns}) WITH ('connector' = 'filesystem', 'path' = '${folder}', 'format' = 'json', 'json.encode.decimal-as-plain-number' = 'true')`;
}

/** A filesystem/json source reading `file`; `columns` includes the WATERMARK clause. */
export function flinkFileSource(name: string, columns: string, file: string): string {
  return `CREATE TABLE ${name} (${columns}) WITH ('connector' = 'filesystem', 'path' = '${file}', 'format' = 'json')`;
}

export async function runFlink(job: FlinkJob, opts: { timeoutMs?: number } = {}): Promise<FlinkResult> {
  await ensureVenv('flink');
  const script = path.join(repoRoot, 'test', 'support', 'python', 'flink-run.py');
  const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve, reject) => {
    const env = job.hadoop ? { ...process.env, HADOOP_CLASSPATH: hadoopClasspath() } : process.env;
    const child = spawn(venvPythonOf('flink'), [script], { stdio: ['pipe', 'pipe', 'pipe'], cwd: repoRoot, env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 600_000);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (exit) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), code: exit });
    });
    child.stdin.end(JSON.stringify(job));
  });
  // Flink may print its own lines; the answer is the last line that is a JSON object.
  const last = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .pop();
  let doc: { ok: boolean; message?: string; statement?: string; sinks?: Record<string, FlinkRow[]>; seconds?: number } | undefined;
  try {
    doc = last === undefined ? undefined : JSON.parse(last);
  } catch {
    doc = undefined;
  }
  if (doc === undefined) throw new Error(`flink-run.py exited with ${String(code)} without an answer:\n${stderr.slice(-4000)}${stdout.slice(-2000)}`);
  if (!doc.ok) throw new Error(`Flink failed${doc.statement ? ` on: ${doc.statement}` : ''}\n${doc.message ?? ''}`);
  return { sinks: doc.sinks ?? {}, seconds: doc.seconds ?? 0 };
}
