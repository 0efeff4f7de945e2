// Prepares one test case for the Flink target: the spec's generated Flink script (`pipec build
// --target flink`, pipeline.sql) with its views and INSERTs as they are, its source tables
// replaced by `filesystem` tables over NDJSON files written from the test's rows (in the test's
// order; Debezium JSON for a changelog source) and its sink tables by `filesystem` tables whose
// part files are read back (Debezium JSON for a sink that receives a changelog, folded to final
// rows as the ClickHouse case does). What Flink cannot play faithfully is said by code, never
// compared: see `unplayable` and docs/testing.md ("The Flink target").
import { join } from 'node:path';
import type { IrSink, IrSinkOf, IrSource, PlanDoc } from '../plan/ir.ts';
import type { SqlType } from '../types/sql-type.ts';
import { DiagnosticBag } from '../diagnostics/bag.ts';
import { emitFlinkScript } from '../../targets/flink/emit.ts';
import { ident, interval, str } from '../../targets/flink/sql-text.ts';
import { flinkType } from '../../targets/flink/types.ts';
import { formatTimestamp, readTimestamp } from '../../targets/runtime/lib/values.ts';
import { opColumnName } from '../../targets/runtime/lib/ops/types.ts';
import type { ScriptRow, ScriptStep } from '../../targets/runtime/lib/testing/scripted.ts';
import type { Row } from './compare.ts';
import { STEP_NAMES, type TargetNote } from './clickhouse-case.ts';
import { finalRowsExpectation, foldChangelog } from './final-rows.ts';
import { DEAD_LETTERS, type Expectation, type TestCase } from './test-file.ts';
import type { FlinkEngineCase } from './flink-engine.ts';
import { RuntimeWatermarks } from './runtime-watermarks.ts';

export const FLINK_TARGET = 'flink';

export interface FlinkSinkRead {
  output: string;
  /** Key of the sink's rows in the engine's answer. */
  key: string;
  folder: string;
  changelog: IrSink | null;
}

export interface PreparedFlinkCase {
  /** Null when the case is skipped (see notes). */
  job: (FlinkEngineCase & { files: { path: string; text: string }[]; reads: FlinkSinkRead[] }) | null;
  expect: Expectation[];
  notes: TargetNote[];
}

/** Coded differences of the Flink script that change a test's rows whatever the steps. */
const DIFFERS_BY_DESIGN = new Set(['flink-approx-count-distinct']);

export function prepareFlinkCase(plan: PlanDoc, c: TestCase, id: string, dir: string): PreparedFlinkCase {
  const bag = new DiagnosticBag();
  const script = emitFlinkScript(plan, bag);
  const notes: TargetNote[] = [];
  const unsupported = (why: string): PreparedFlinkCase => ({ job: null, expect: [], notes: [{ code: 'test-target-unsupported', span: c.span, params: { target: FLINK_TARGET, why } }, ...notes] });
  const codes = [...new Set(bag.items.map((d) => d.code))];
  if (bag.items.some((d) => d.severity === 'error')) return unsupported(`the Flink target cannot build the pipeline (${codes.join(', ')})`);
  const differs = codes.filter((k) => DIFFERS_BY_DESIGN.has(k));
  if (differs.length) return unsupported(`its Flink script computes these rows differently by design (${differs.join(', ')})`);

  const parsed = parseScript(script.sql);
  const inserts = new Map<string, string>();
  for (const s of plan.sinks) {
    const target = sinkTableOf(s);
    const stmt = parsed.inserts.find((i) => i.startsWith(`INSERT INTO ${target}\n`));
    // The script's upsert sinks (JDBC, upsert-kafka) take `ON CONFLICT DO DEDUPLICATE`; the test's
    // filesystem sink has no primary key, and Flink refuses the clause there.
    const body = stmt?.slice(`INSERT INTO ${target}\n`.length).replace(/\nON CONFLICT DO DEDUPLICATE$/, '');
    if (body !== undefined) inserts.set(s.name, `INSERT INTO ${ident(testSinkName(s))}\n${body}`);
  }
  const expect = comparable(plan, c, inserts, notes);
  if (expect.length === 0) return unsupported('none of the outputs it expects is written by the Flink script');
  const skip = unplayable(plan, c, codes);
  if (skip) return { job: null, expect, notes: [skip, ...notes] };

  const files = plan.sources.map((s) => ({ path: join(dir, id, `${s.name}.ndjson`), text: sourceFile(s, c) }));
  const ddl: string[] = plan.sources.map((s, i) => sourceDdl(s, files[i]!.path));
  const reads: FlinkSinkRead[] = [];
  for (const s of plan.sinks) {
    const insert = inserts.get(s.name);
    if (!insert) continue;
    const folder = join(dir, id, `sink-${s.name}`);
    ddl.push(sinkDdl(s, folder, insert.includes(`AS ${ident('__key')} FROM`) || /^SELECT CAST\(.* AS STRING\) AS `__key`/m.test(insert)));
    if (expect.some((e) => e.output === s.name)) reads.push({ output: s.name, key: `${id}/${s.name}`, folder, changelog: s.changelog === 'append' ? null : s });
  }
  ddl.push(...parsed.views);
  return { job: { id, ddl, inserts: [...inserts.values()], files, reads }, expect, notes };
}

/** The statements of a generated script: its views and the INSERTs of its statement set. */
export function parseScript(sql: string): { views: string[]; inserts: string[] } {
  const views: string[] = [];
  const inserts: string[] = [];
  let cur: string[] = [];
  for (const line of sql.split('\n')) {
    if (cur.length === 0 && (line === '' || line.startsWith('-- ') || line === 'EXECUTE STATEMENT SET' || line === 'BEGIN' || line === 'END;')) continue;
    cur.push(line);
    if (!line.endsWith(';')) continue;
    const stmt = cur.join('\n').slice(0, -1);
    cur = [];
    if (stmt.startsWith('CREATE TEMPORARY VIEW ')) views.push(stmt);
    else if (stmt.startsWith('INSERT INTO ')) inserts.push(stmt);
  }
  return { views, inserts };
}

/** The table a generated INSERT writes a sink into (emit.ts names them so). */
function sinkTableOf(s: IrSink): string {
  if (s.connector !== 'iceberg') return ident(`${s.name}__sink`);
  const t = (s as IrSinkOf<'iceberg'>).iceberg;
  const dot = t.table.lastIndexOf('.');
  return `${ident(t.catalog)}.${ident(dot < 0 ? 'default' : t.table.slice(0, dot))}.${ident(dot < 0 ? t.table : t.table.slice(dot + 1))}`;
}

const testSinkName = (s: IrSink): string => `${s.name}__sink`;

const isChangelogSource = (s: IrSource): boolean => s.changelog === 'changelog';

function sourceDdl(s: IrSource, file: string): string {
  // Metadata columns (a Kafka offset, partition, timestamp) are ordinary columns of the file: the
  // runner writes the values the test gives them.
  const cols = s.columns.map((c) => `  ${ident(c.name)} ${flinkType(c.type, c.metadataFrom === null)}`);
  if (s.watermark) cols.push(`  WATERMARK FOR ${ident(s.watermark.column)} AS ${ident(s.watermark.column)} - ${interval(s.watermark.delayMs)}`);
  if (s.primaryKey?.length) cols.push(`  PRIMARY KEY (${s.primaryKey.map(ident).join(', ')}) NOT ENFORCED`);
  const format = isChangelogSource(s) ? 'debezium-json' : 'json';
  return `CREATE TEMPORARY TABLE ${ident(s.name)} (\n${cols.join(',\n')}\n) WITH ('connector' = 'filesystem', 'path' = ${str(file)}, 'format' = ${str(format)})`;
}

function sinkDdl(s: IrSink, folder: string, keyColumn: boolean): string {
  const cols = s.schema.map((c) => `  ${ident(c.name)} ${flinkType(c.type)}`);
  if (keyColumn) cols.unshift(`  ${ident('__key')} STRING`);
  const format = s.changelog === 'append' ? 'json' : 'debezium-json';
  return `CREATE TEMPORARY TABLE ${ident(testSinkName(s))} (\n${cols.join(',\n')}\n) WITH ('connector' = 'filesystem', 'path' = ${str(folder)}, 'format' = ${str(format)}, ${str(`${format}.encode.decimal-as-plain-number`)} = 'true')`;
}

/** The NDJSON file of a source: its rows in the order of the test's steps (partitions interleaved as written). */
function sourceFile(s: IrSource, c: TestCase): string {
  const lines: string[] = [];
  const offsets = new Map<number, number>();
  const steps = c.steps.filter((st): st is Extract<ScriptStep, { kind: 'rows' }> => st.kind === 'rows' && st.source === s.name);
  for (const step of steps) {
    for (let i = 0; i < step.rows.length; i++) {
      const r = step.rows[i]!;
      const offset = r.offset ?? offsets.get(step.partition) ?? 0;
      offsets.set(step.partition, offset + 1);
      const values = fileValues(s, r, step.partition, offset);
      if (!isChangelogSource(s)) {
        lines.push(JSON.stringify(values));
        continue;
      }
      // Debezium: an update is one message with before and after; a lone -U is the row leaving.
      const next = step.rows[i + 1];
      if (r.op === '-U' && next?.op === '+U') {
        lines.push(JSON.stringify({ before: values, after: fileValues(s, next, step.partition, offset + 1), op: 'u' }));
        offsets.set(step.partition, offset + 2);
        i++;
      } else if (r.op === '-U' || r.op === '-D') lines.push(JSON.stringify({ before: values, after: null, op: 'd' }));
      else lines.push(JSON.stringify({ before: null, after: values, op: 'c' }));
    }
  }
  return lines.length ? lines.join('\n') + '\n' : '';
}

const METADATA: Record<string, (r: ScriptRow, partition: number, offset: number) => unknown> = {
  offset: (_r, _p, o) => o,
  partition: (_r, p) => p,
  key: (r) => (r.key === undefined || r.key === null ? null : String(r.key)),
  timestamp: (r) => (typeof r.meta?.['timestamp'] === 'number' ? formatTimestamp(r.meta['timestamp']) : null),
  commit_ts: (r) => (typeof r.meta?.['commit_ts'] === 'number' ? formatTimestamp(r.meta['commit_ts']) : null),
};

function fileValues(s: IrSource, r: ScriptRow, partition: number, offset: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of s.columns) {
    if (c.metadataFrom !== null) out[c.name] = METADATA[c.metadataFrom]?.(r, partition, offset) ?? r.meta?.[c.metadataFrom] ?? null;
    else if (c.name in r.values) out[c.name] = fileValue(r.values[c.name], c.type);
  }
  return out;
}

/** A value as Flink's json format reads it: timestamps in SQL form ('yyyy-MM-dd HH:mm:ss.SSS'). */
function fileValue(v: unknown, t: SqlType): unknown {
  if (t.kind !== 'timestamp' || typeof v !== 'string' || /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/.test(v)) return v;
  const ms = readTimestamp(v);
  return typeof ms === 'number' ? formatTimestamp(ms) : v;
}

/** Why a value would not reach Flink as the runtime reads it (the runtime makes it a dead letter), or null. */
function undecodable(v: unknown, t: SqlType): string | null {
  // A column the row leaves out is the format's business (absent in the file, as in the record).
  if (v === undefined) return null;
  if (v === null) return t.nullable ? null : 'null in a NOT NULL column';
  switch (t.kind) {
    case 'int':
    case 'bigint':
    case 'float':
    case 'double':
    case 'decimal':
      return typeof v === 'number' ? null : `${JSON.stringify(v)} is not a number`;
    case 'boolean':
      return typeof v === 'boolean' ? null : `${JSON.stringify(v)} is not a boolean`;
    case 'string':
      return typeof v === 'string' ? null : `${JSON.stringify(v)} is not a string`;
    case 'timestamp':
    case 'date':
      return typeof v === 'string' && typeof readTimestamp(v) === 'number' ? null : `${JSON.stringify(v)} is not a timestamp`;
    default:
      return `the runner writes no ${t.kind} values for Flink`;
  }
}

/** The first step Flink cannot play faithfully, or null. */
function unplayable(plan: PlanDoc, c: TestCase, codes: string[]): TargetNote | null {
  const note = (i: number, why: string): TargetNote => ({ code: 'test-target-step-unsupported', span: c.stepSpans[i]!, params: { target: FLINK_TARGET, step: STEP_NAMES[c.steps[i]!.kind], why } });
  // Processing time matters to a result only through idle timeouts and state TTL (the checkpoint
  // interval changes no final row): a clock moved past neither is played as nothing happening.
  const advanced = c.steps.reduce((ms, s) => ms + (s.kind === 'advance' ? s.ms : 0), 0);
  const ttls = plan.operators.flatMap((o) => (o.op === 'group_agg' && o.stateTtlMs !== null ? [o.stateTtlMs] : []));
  const clocked = plan.sources.some((s) => s.watermark?.idleTimeoutMs != null) || ttls.some((t) => t <= advanced);
  const wm = new TwoWatermarks(plan, c);
  const sources = new Map(plan.sources.map((s) => [s.name, s]));
  let cause: number | null = null;
  for (let i = 0; i < c.steps.length; i++) {
    const step = c.steps[i]!;
    if (step.kind === 'crash') return note(i, 'Flink recovers from its own checkpoints, and a test cannot kill the job at a step (the job runs to the end of its files)');
    if (step.kind === 'advance' && clocked) return note(i, 'Flink reads idle timeouts and state TTL against its own clock, which a test cannot move');
    if (step.kind === 'watermark' || step.kind === 'idle') {
      if (wm.apply(step)) cause = i;
      continue;
    }
    if (step.kind !== 'rows') continue;
    const src = sources.get(step.source)!;
    for (const r of step.rows) {
      const bad = src.columns.filter((col) => col.metadataFrom === null).map((col) => [col.name, undecodable(r.values[col.name], col.type)] as const).find(([, why]) => why !== null);
      if (bad) return note(i, `column ${bad[0]}: ${bad[1]}; the runtime makes such a record a dead letter, Flink's json format fails the job (flink-dead-letters)`);
      const at = wm.row(step.source, step.partition, r);
      if (at === null) continue;
      const lateRt = mayBeLate(plan, src, at.t, at.runtime);
      const lateFl = mayBeLate(plan, src, at.t, at.flink);
      if (!lateRt && !lateFl) continue;
      if (at.runtime !== at.flink) {
        if (cause !== null) return note(cause, `Flink's watermark comes only from the rows (the spec's WATERMARK), so after this step a row the runtime may find late is on time on Flink, or the other way round`);
        return note(i, `the runtime's watermark is the minimum over the source's partitions while Flink reads the rows as one stream, and a row here may be late on one and not on the other`);
      }
      if (plan.sources.filter((s) => s.watermark).length > 1) return note(i, 'a row here may be late, and Flink reads its sources in no fixed order, so whether it is late there is not fixed');
      if (codes.includes('flink-allowed-lateness')) return note(i, 'a row here may be late, and Flink SQL windows have no allowed lateness (flink-allowed-lateness)');
    }
  }
  if (!c.steps.some((s) => s.kind === 'end')) {
    return { code: 'test-target-unsupported', span: c.span, params: { target: FLINK_TARGET, why: "it has no end_of_input step, and Flink's file sources end their input, which closes every window the runtime keeps open" } };
  }
  return null;
}

/**
 * Whether a row of `src` at event time `t` may be late somewhere in the plan once the watermark is
 * `w`: a window that could hold it has ended by then (a window fires when the watermark reaches
 * its last millisecond). Sessions and joins are taken as late once the row is behind the watermark.
 */
function mayBeLate(plan: PlanDoc, src: IrSource, t: number, w: number): boolean {
  if (!(t - 1 <= w) && !Number.isNaN(w)) return false;
  if (Number.isNaN(w)) return true;
  const floorTo = (x: number, step: number, offset = 0): number => Math.floor((x - offset) / step) * step + offset;
  for (const o of plan.operators) {
    if (o.op === 'interval_join' || o.op === 'temporal_join') return true;
    if (o.op !== 'window_agg') continue;
    const win = o.window;
    if (win.kind === 'session' || o.windowTimeColumn !== src.watermark?.column) return true;
    const firstEnd = win.kind === 'tumble' ? floorTo(t, win.sizeMs, win.offsetMs) + win.sizeMs : win.kind === 'hop' ? floorTo(t, win.slideMs) + win.slideMs : floorTo(t, win.stepMs) + win.stepMs;
    if (firstEnd - 1 <= w) return true;
  }
  return false;
}

/**
 * The runtime's watermark per source as the steps move it (per partition, minimum over the
 * partitions that are not idle) beside Flink's (one stream: the largest event time of the
 * source's rows so far minus the delay). A row is compared against both before it moves them.
 */
class TwoWatermarks {
  private readonly runtimeMarks: RuntimeWatermarks;
  private readonly flinkMax = new Map<string, number>();
  constructor(plan: PlanDoc, c: TestCase) {
    this.runtimeMarks = new RuntimeWatermarks(plan, c);
  }

  private flink(name: string): number {
    const s = this.runtimeMarks.source(name);
    return s.watermark ? (this.flinkMax.get(name) ?? Number.NEGATIVE_INFINITY) - s.watermark.delayMs : Number.NEGATIVE_INFINITY;
  }

  /** Applies a watermark or idle step; true when it leaves the two watermarks apart. */
  apply(step: Extract<ScriptStep, { kind: 'watermark' | 'idle' }>): boolean {
    this.runtimeMarks.apply(step);
    return this.runtimeMarks.current(step.source) !== this.flink(step.source);
  }

  /** The row's event time and both watermarks it meets (then it moves them); null without an event time. */
  row(source: string, partition: number, r: ScriptRow): { t: number; runtime: number; flink: number } | null {
    const s = this.runtimeMarks.source(source);
    if (!s.watermark) return null;
    const t = readTimestamp(r.values[s.watermark.column]);
    if (typeof t !== 'number') return null;
    const out = { t, runtime: this.runtimeMarks.current(source), flink: this.flink(source) };
    this.runtimeMarks.observe(source, partition, t);
    this.flinkMax.set(source, Math.max(this.flinkMax.get(source) ?? Number.NEGATIVE_INFINITY, t));
    return out;
  }
}

/** The expectations Flink's script writes; the others are noted. Changelogs fold into final rows. */
function comparable(plan: PlanDoc, c: TestCase, inserts: Map<string, string>, notes: TargetNote[]): Expectation[] {
  const out: Expectation[] = [];
  for (const e of c.expect) {
    const not = (why: string): void => void notes.push({ code: 'test-target-output-unsupported', span: e.span, params: { target: FLINK_TARGET, output: e.output, why } });
    if (e.output === DEAD_LETTERS) {
      not("Flink's formats have no dead-letter output (flink-dead-letters)");
      continue;
    }
    const sink = plan.sinks.find((s) => s.name === e.output)!;
    if (!sink.input) {
      not('Flink SQL drops late events, so its late sink receives nothing (flink-late-side-output)');
      continue;
    }
    if (!inserts.has(sink.name)) {
      not('the Flink script leaves this sink out (see the flink-* warnings of `pipec check --target flink`)');
      continue;
    }
    const expected = finalRowsExpectation(sink, e, not);
    if (expected) out.push(expected);
  }
  return out;
}

/** A sink's rows as read back (numbers as their JSON text), a Debezium changelog folded to the final row per key. */
export function sinkRows(read: FlinkSinkRead, lines: Row[]): Row[] {
  if (!read.changelog) return lines;
  const op = opColumnName(read.changelog.schema);
  const changes = lines.map((m) => (m['op'] === 'd' ? { ...(m['before'] as Row), [op]: '-D' } : { ...(m['after'] as Row), [op]: '+I' }));
  return foldChangelog(read.changelog, changes) ?? [];
}
