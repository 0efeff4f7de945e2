// `pipec test`'s driver: finds test files, compiles the spec each names (the ordinary compiler,
// with the project's profile), checks the file against the plan, runs each test on the runtime
// (run-case.ts) and compares every expected output. Returns results for the reporters; prints nothing.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { join, relative, resolve, sep } from 'node:path';
import { compileFile } from '../build/compile.ts';
import type { EnvResolver } from '../syntax/front-end.ts';
import { DiagnosticBag } from '../diagnostics/bag.ts';
import type { Diagnostic } from '../diagnostics/diagnostic.ts';
import { syntheticSpan } from '../diagnostics/span.ts';
import type { PlanDoc } from '../plan/ir.ts';
import { generateBody } from '../../targets/runtime/codegen/module.ts';
import { compareRows, type Row } from './compare.ts';
import { runCase } from './run-case.ts';
import { CLICKHOUSE_TARGET, runCaseOnClickHouse } from './clickhouse-case.ts';
import { FLINK_TARGET, prepareFlinkCase, sinkRows, type PreparedFlinkCase } from './flink-case.ts';
import { runFlinkJob, type FlinkEngineSink } from './flink-engine.ts';
import { DEAD_LETTERS, readTestFile, testCases, type TestCase } from './test-file.ts';

export const TEST_SUFFIX = '.pipe.test.yaml';

/** Where `pipec test` plays a test: the runtime (default), the ClickHouse target on chdb, the Flink target on PyFlink. */
export const TEST_TARGETS = ['runtime', CLICKHOUSE_TARGET, FLINK_TARGET] as const;
export type TestTarget = (typeof TEST_TARGETS)[number];

export interface TestOptions {
  targets: readonly TestTarget[];
  /** The Python with chdb, for the clickhouse target. */
  chdbPython: string;
  /** The Flink cases of the whole invocation, gathered here and run in one job by runFlinkBatch. */
  flink?: FlinkBatch;
}

const RUNTIME_ONLY: TestOptions = { targets: ['runtime'], chdbPython: 'python3' };

/** Every Flink case of one `pipec test` invocation: Flink starts once, for all of them. */
export interface FlinkBatch {
  python: string;
  /** A temporary folder for the cases' input files and sink folders (removed after the job). */
  dir: string;
  pending: { file: FileResult; plan: PlanDoc; specFile: string; c: TestCase; id: string; prepared: PreparedFlinkCase }[];
}

export interface OutputFailure {
  output: string;
  /** "sink 'revenue_ch' (rows from window_agg at specs/orders_revenue.pipe.sql:25)". */
  title: string;
  summary: string;
  table: string;
}

export interface CaseResult {
  name: string;
  target: TestTarget;
  /** Why the case did not run on its target (a coded note among the file's diagnostics), or null. */
  skipped: string | null;
  index: number;
  ok: boolean;
  ms: number;
  failures: OutputFailure[];
  /** The engine failed (not a scripted crash): what it said. */
  error: string | null;
  observed: Map<string, Row[]>;
  restarts: number;
}

export interface FileResult {
  file: string;
  /** Diagnostics of the test file or of its spec; a file with errors runs no test. */
  diagnostics: Diagnostic[];
  cases: CaseResult[];
}

/** Test files under the given paths (a file given by name is taken whatever it ends with). */
export function discoverTests(paths: string[], cwd: string): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(TEST_SUFFIX)) files.push(full);
    }
  };
  for (const p of paths) {
    const full = resolve(cwd, p);
    try {
      if (statSync(full).isDirectory()) walk(full);
      else files.push(full);
    } catch {
      missing.push(p);
    }
  }
  return { files: [...new Set(files.map((f) => relative(cwd, f).split(sep).join('/')))].sort(), missing };
}

/** "window_agg at specs/x.pipe.sql:25": the operator that produced a sink's rows, where the plan knows it. */
function producerOf(plan: PlanDoc, sinkName: string, specFile: string): string | null {
  const sink = plan.sinks.find((s) => s.name === sinkName);
  if (!sink) return null;
  const opId = sink.input ?? sink.lateFrom[0] ?? null;
  const op = opId ? plan.operators.find((o) => o.id === opId) : null;
  if (!op) return `declared at ${specFile}:${sink.span.start.line}`;
  const late = sink.input === null ? 'late rows of ' : 'rows from ';
  return `${late}${op.op} at ${specFile}:${op.span.start.line}`;
}

export async function runTestFile(file: string, cwd: string, env: EnvResolver, opts: TestOptions = RUNTIME_ONLY): Promise<FileResult & { plan: PlanDoc | null }> {
  const diags = new DiagnosticBag();
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8');
  } catch {
    diags.report('file-not-found', syntheticSpan(file), { path: file });
    return { file, diagnostics: diags.items, cases: [], plan: null };
  }
  const raw = readTestFile(file, text, diags);
  if (!raw) return { file, diagnostics: diags.items, cases: [], plan: null };
  const specFile = relative(cwd, raw.specPath).split(sep).join('/');
  // A test connects to nothing: a `${NAME}` the profile does not set is a placeholder, not an error
  // (CI runs tests without the secrets of any environment).
  const testEnv: EnvResolver = { get: (k) => env.get(k) ?? `pipec-test-${k}` };
  const compiled = await compileFile(specFile, { cwd, env: testEnv });
  if (!compiled.plan || compiled.diagnostics.hasErrors) return { file, diagnostics: [...diags.items, ...compiled.diagnostics.sorted()], cases: [], plan: null };
  const plan = compiled.plan;
  const cases = testCases(raw, plan, diags);
  if (!cases) return { file, diagnostics: diags.items, cases: [], plan };
  const results: CaseResult[] = [];
  if (opts.targets.includes('runtime')) {
    const r = runtimeBody(plan, diags);
    if (!r) return { file, diagnostics: diags.items, cases: [], plan };
    for (const c of cases) results.push(await runOne(plan, r, c, specFile));
  }
  if (opts.targets.includes(CLICKHOUSE_TARGET)) {
    for (const c of cases) {
      const r = await runOnClickHouse(plan, c, specFile, opts.chdbPython, diags);
      if (!r) break;
      results.push(r);
    }
  }
  const result = { file, diagnostics: diags.items, cases: results, plan };
  if (opts.targets.includes(FLINK_TARGET) && opts.flink) prepareOnFlink(opts.flink, result, plan, cases, specFile, diags);
  return result;
}

/** Skips (by code) or queues each case for the Flink batch. */
function prepareOnFlink(batch: FlinkBatch, result: FileResult, plan: PlanDoc, cases: TestCase[], specFile: string, diags: DiagnosticBag): void {
  for (const c of cases) {
    const prepared = prepareFlinkCase(plan, c, `pipec_test_case_${batch.pending.length}`, batch.dir);
    for (const n of prepared.notes) diags.report(n.code, n.span, n.params as never);
    if (prepared.job) {
      batch.pending.push({ file: result, plan, specFile, c, id: prepared.job.id, prepared });
      continue;
    }
    const skip = prepared.notes[0]!;
    result.cases.push({ name: c.name, target: FLINK_TARGET, index: c.index, restarts: 0, skipped: `${skip.code} at ${skip.span.file}:${skip.span.start.line}`, ok: true, ms: 0, failures: [], error: null, observed: new Map() });
  }
}

/** Runs every queued Flink case in one Flink job and adds their results to their files. */
export async function runFlinkBatch(batch: FlinkBatch): Promise<void> {
  if (batch.pending.length === 0) return;
  const sinks: Record<string, FlinkEngineSink> = {};
  for (const p of batch.pending) {
    for (const f of p.prepared.job!.files) {
      mkdirSync(dirname(f.path), { recursive: true });
      writeFileSync(f.path, f.text);
    }
    for (const r of p.prepared.job!.reads) sinks[r.key] = { folder: r.folder };
  }
  const t0 = performance.now();
  let run: Awaited<ReturnType<typeof runFlinkJob>>;
  try {
    run = await runFlinkJob(
      batch.python,
      batch.pending.map((p) => ({ id: p.id, ddl: p.prepared.job!.ddl, inserts: p.prepared.job!.inserts })),
      sinks,
    );
  } catch (e) {
    run = { ok: false, missing: true, message: (e as Error).message };
  } finally {
    rmSync(batch.dir, { recursive: true, force: true });
  }
  const ms = (performance.now() - t0) / batch.pending.length;
  if (!run.ok && run.missing) {
    const reported = new Set<FileResult>();
    for (const p of batch.pending) {
      if (reported.has(p.file)) continue;
      reported.add(p.file);
      const bag = new DiagnosticBag();
      bag.report('test-target-engine-missing', p.c.span, { target: FLINK_TARGET, detail: run.message.startsWith('cannot start') ? run.message : `${batch.python}: ${run.message.split('\n')[0]}` });
      p.file.diagnostics.push(...bag.items);
    }
    return;
  }
  for (const p of batch.pending) {
    const base = { name: p.c.name, target: FLINK_TARGET, index: p.c.index, restarts: 0, skipped: null, ms } as const;
    const error = run.ok ? (run.caseErrors[p.id] ?? null) : run.message;
    if (error !== null || !run.ok) {
      p.file.cases.push({ ...base, ok: false, failures: [], error: `flink: ${error}`, observed: new Map() });
      continue;
    }
    const observed = new Map<string, Row[]>();
    for (const r of p.prepared.job!.reads) observed.set(r.output, sinkRows(r, (run.sinks[r.key] ?? []) as Row[]));
    const failures = compareAll(p.plan, p.prepared.expect, observed, p.specFile);
    p.file.cases.push({ ...base, ok: failures.length === 0, failures, error: null, observed });
  }
}

/** The generated module body the runtime cases run, or null (diagnosed) when an operator cannot run. */
function runtimeBody(plan: PlanDoc, diags: DiagnosticBag): string | null {
  const gen = generateBody(plan);
  // Sources and sinks are replaced by the test connectors: only what the operators cannot do matters.
  const io = new Set([...plan.sources.map((s) => s.name), ...plan.sinks.map((s) => s.name)]);
  const blocking = gen.unsupported.filter((u) => !io.has(u.name));
  for (const u of blocking) diags.report('runtime-unsupported', u.span, { what: u.what, name: u.name });
  return blocking.length ? null : gen.body;
}

async function runOne(plan: PlanDoc, body: string, c: TestCase, specFile: string): Promise<CaseResult> {
  const t0 = performance.now();
  const run = await runCase(body, c);
  const ms = performance.now() - t0;
  const failures = compareAll(plan, c.expect, run.observed, specFile);
  return { name: c.name, target: 'runtime', skipped: null, index: c.index, ok: failures.length === 0 && run.error === null, ms, failures, error: run.error, observed: run.observed, restarts: run.restarts };
}

/** One case on the ClickHouse target; null (diagnosed) when chdb cannot be started. */
async function runOnClickHouse(plan: PlanDoc, c: TestCase, specFile: string, python: string, diags: DiagnosticBag): Promise<CaseResult | null> {
  const t0 = performance.now();
  let run;
  try {
    run = await runCaseOnClickHouse(plan, c, python);
  } catch (e) {
    diags.report('test-target-engine-missing', c.span, { target: CLICKHOUSE_TARGET, detail: (e as Error).message });
    return null;
  }
  if (run.error?.startsWith('chdb: cannot import chdb')) {
    diags.report('test-target-engine-missing', c.span, { target: CLICKHOUSE_TARGET, detail: `${python}: ${run.error.slice('chdb: '.length).split('\n')[0]}` });
    return null;
  }
  for (const n of run.notes) diags.report(n.code, n.span, n.params as never);
  const skipNote = run.observed === null && run.error === null ? run.notes[0]! : null;
  const base = { name: c.name, target: CLICKHOUSE_TARGET, index: c.index, restarts: 0 } as const;
  if (skipNote) return { ...base, skipped: `${skipNote.code} at ${skipNote.span.file}:${skipNote.span.start.line}`, ok: true, ms: performance.now() - t0, failures: [], error: null, observed: new Map() };
  const failures = run.observed ? compareAll(plan, run.expect, run.observed, specFile) : [];
  return { ...base, skipped: null, ok: failures.length === 0 && run.error === null, ms: performance.now() - t0, failures, error: run.error, observed: run.observed ?? new Map() };
}

/** Each expected output against what was observed: a failure (with its table diff) per output that differs. */
function compareAll(plan: PlanDoc, expect: TestCase['expect'], observed: Map<string, Row[]>, specFile: string): OutputFailure[] {
  const failures: OutputFailure[] = [];
  for (const e of expect) {
    const got = observed.get(e.output) ?? [];
    const cmp = compareRows(e.rows, got, e.order);
    if (cmp.ok) continue;
    const where = e.output === DEAD_LETTERS ? null : producerOf(plan, e.output, specFile);
    const title = e.output === DEAD_LETTERS ? 'dead letters' : `sink '${e.output}'${where ? ` (${where})` : ''}`;
    const parts = [cmp.missing.length ? `${cmp.missing.length} expected row(s) missing (-)` : '', cmp.unexpected.length ? `${cmp.unexpected.length} unexpected row(s) (+)` : ''].filter(Boolean);
    const orderNote = e.order === 'exact' && parts.length === 0 ? 'rows in another order' : parts.join(', ');
    failures.push({ output: e.output, title, summary: `${orderNote}; expected at ${e.span.file}:${e.span.start.line}`, table: cmp.table });
  }
  return failures;
}
