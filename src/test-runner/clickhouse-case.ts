// Plays one test case on the ClickHouse target: the spec's generated DDL (the insertable variant,
// whose statements after the source tables are byte-identical to clickhouse.sql) in a fresh chdb
// session, the test's rows INSERTed into the source tables with their Kafka coordinates, its
// watermark steps written where the DDL keeps its watermark (`<source>__watermark`), and each
// expected ClickHouse sink read back as a reader of the table would. What the target cannot play
// is said by code: a step it has no form for, or late rows (ClickHouse merges them into their
// window) skip the case; an output the target does not write is not compared.
import type { Diagnostic } from '../diagnostics/diagnostic.ts';
import type { Span } from '../diagnostics/span.ts';
import type { IrSource, PlanDoc } from '../plan/ir.ts';
import { emitClickHouse } from '../../targets/clickhouse/index.ts';
import { ident, qualified, str } from '../../targets/clickhouse/sql-text.ts';
import { clickhouseDdlTable } from '../plan/clickhouse-ddl-table.ts';
import { readTimestamp } from '../../targets/runtime/lib/values.ts';
import type { ScriptStep } from '../../targets/runtime/lib/testing/scripted.ts';
import { runChdbOps, type ChdbOp } from './chdb-engine.ts';
import { debeziumMessages, temporalJoinOutOfOrder } from './clickhouse-cdc.ts';
import type { Row } from './compare.ts';
import { DEAD_LETTERS, type Expectation, type TestCase } from './test-file.ts';
import { RuntimeWatermarks } from './runtime-watermarks.ts';
import { finalRowsExpectation } from './final-rows.ts';

export const CLICKHOUSE_TARGET = 'clickhouse';

/** Why something of a test is not played or not compared on this target, with the span to show. */
export interface TargetNote {
  code: 'test-target-step-unsupported' | 'test-target-output-unsupported' | 'test-target-unsupported';
  span: Span;
  params: Record<string, string>;
}

export interface ClickHouseCaseRun {
  /** Null when the case was skipped (see notes). */
  observed: Map<string, Row[]> | null;
  /** Expectations to compare, with changelogs folded into the sink's final rows. */
  expect: Expectation[];
  notes: TargetNote[];
  error: string | null;
}

/** The event time ClickHouse's end of input is: later than any window, inside DateTime64(3). */
const END_OF_TIME_MS = 9_000_000_000_000;

export const STEP_NAMES: Record<ScriptStep['kind'], string> = {
  rows: 'rows',
  watermark: 'watermark',
  idle: 'idle_partition',
  advance: 'advance_processing_time',
  checkpoint: 'checkpoint',
  crash: 'crash_and_restart',
  end: 'end_of_input',
};

export async function runCaseOnClickHouse(plan: PlanDoc, c: TestCase, python: string): Promise<ClickHouseCaseRun> {
  const emitted = emitClickHouse(plan, { sourceMode: 'insertable' });
  const notes: TargetNote[] = [];
  const expect = comparable(plan, c, notes);
  const skip = unbuildable(plan, emitted.diagnostics.items, c) ?? unplayable(plan, c, emitted.diagnostics.items.some((d) => d.code === 'clickhouse-late-rows-merge'));
  if (skip) return { observed: null, expect, notes: [skip, ...notes], error: null };
  if (expect.length === 0) {
    const none: TargetNote = { code: 'test-target-unsupported', span: c.span, params: { target: CLICKHOUSE_TARGET, why: 'none of the outputs it expects is written by the ClickHouse target' } };
    return { observed: null, expect, notes: [none, ...notes], error: null };
  }
  const db = plan.pipeline.name;
  const ops: ChdbOp[] = emitted.statements.map((s) => ({ sql: s.sql }));
  const offsets = new Map<string, number>();
  let lsn = 0;
  const nextLsn = (): number => ++lsn;
  c.steps.forEach((step) => {
    if (step.kind === 'rows') ops.push(...insertRows(plan, db, step, offsets, nextLsn));
    else if (step.kind === 'watermark') ops.push(...watermarkRows(plan, db, step.source, step.partition === null ? partitionsOf(c, step.source) : [step.partition], step.at));
    else if (step.kind === 'end') for (const s of plan.sources) ops.push(...watermarkRows(plan, db, s.name, partitionsOf(c, s.name), END_OF_TIME_MS - (s.watermark?.delayMs ?? 0)));
    // checkpoint and crash_and_restart: every INSERT is committed on its own, so there is no
    // uncommitted output to lose and nothing to recover; advance_processing_time without an
    // idle timeout changes nothing ClickHouse reads (unplayable() refuses the other cases).
  });
  const reads = expect.map((e) => readSql(plan, db, e.output, emitted.statements.map((s) => s.sql)));
  for (const sql of reads) ops.push({ sql, query: true });
  const r = await runChdbOps(python, ops);
  if (!r.ok) return { observed: null, expect, notes, error: `chdb: ${r.message}\n  in: ${r.sql.split('\n')[0]}` };
  const observed = new Map<string, Row[]>();
  expect.forEach((e, i) => observed.set(e.output, r.rows[i]!));
  return { observed, expect, notes, error: null };
}

/** The ClickHouse target's own errors for this plan (it cannot build the pipeline): the case is skipped. */
function unbuildable(plan: PlanDoc, diags: readonly Diagnostic[], c: TestCase): TargetNote | null {
  const note = (why: string): TargetNote => ({ code: 'test-target-unsupported', span: c.span, params: { target: CLICKHOUSE_TARGET, why } });
  const codes = (ds: readonly Diagnostic[]): string => [...new Set(ds.map((d) => d.code))].join(', ');
  const errors = diags.filter((d) => d.severity === 'error');
  if (errors.length) return note(`the ClickHouse target cannot build the pipeline (${codes(errors)})`);
  let differs = diags.filter((d) => DIFFERS_BY_DESIGN.has(d.code));
  // A temporal join gives the runtime's rows when the test inserts the changes in commit order
  // around the rows they are valid for (clickhouse-cdc.ts): then its two codes change nothing.
  if (differs.length && differs.every((d) => JOIN_CODES.has(d.code))) {
    const out = temporalJoinOutOfOrder(plan, c.steps);
    if (out === null) differs = [];
    else if (out.step !== null) return { code: 'test-target-step-unsupported', span: c.stepSpans[out.step]!, params: { target: CLICKHOUSE_TARGET, step: 'rows', why: out.why } };
    else return note(out.why);
  }
  if (differs.length) return note(`its DDL computes these rows differently by design (${codes(differs)})`);
  return null;
}

const JOIN_CODES = new Set(['clickhouse-mv-join-left-only', 'clickhouse-temporal-join-latest']);

/**
 * Coded differences whose effect on a test's rows depends on arrival order in ways the runner does
 * not model: a test meeting one is skipped rather than compared (late rows are modelled, below).
 */
const DIFFERS_BY_DESIGN = new Set(['clickhouse-mv-join-left-only', 'clickhouse-temporal-join-latest', 'clickhouse-first-last-by-event-time']);

const partitionsOf = (c: TestCase, source: string): number[] => Array.from({ length: c.partitions.get(source) ?? 1 }, (_, i) => i);

/** The first step the target has no form for, or the late rows it would merge instead of setting aside. */
function unplayable(plan: PlanDoc, c: TestCase, mergesLateRows: boolean): TargetNote | null {
  const sources = new Map(plan.sources.map((s) => [s.name, s]));
  const note = (i: number, why: string): TargetNote => ({ code: 'test-target-step-unsupported', span: c.stepSpans[i]!, params: { target: CLICKHOUSE_TARGET, step: STEP_NAMES[c.steps[i]!.kind], why } });
  const wm = new RuntimeWatermarks(plan, c);
  for (let i = 0; i < c.steps.length; i++) {
    const step = c.steps[i]!;
    if (step.kind === 'idle') return note(i, 'ClickHouse drops a partition from the watermark only after idle_timeout of real time without inserts');
    if (step.kind === 'advance' && plan.sources.some((s) => s.watermark?.idleTimeoutMs != null)) return note(i, 'ClickHouse reads idle timeouts against its own clock, which a test cannot move');
    if (step.kind === 'rows') {
      const src = sources.get(step.source)!;
      if (src.changelog === 'changelog' && src.connector !== 'postgres-cdc') return note(i, "the Debezium messages of a Kafka changelog source are not written by the test runner yet (only a postgres-cdc source's)");
      if (src.changelog !== 'changelog' && step.rows.some((r) => r.op !== undefined && r.op !== '+I')) return note(i, 'an append source of the ClickHouse target takes inserts only');
      if (mergesLateRows && rowsIncludeLate(wm, step)) return note(i, 'some of these rows are behind the watermark, and ClickHouse merges late rows into their window (clickhouse-late-rows-merge)');
    }
    if (step.kind === 'watermark') wm.apply(step);
  }
  return null;
}

/** Whether a rows step holds a row behind the runtime's watermark (rows of one step can make each other late: walked in order). */
function rowsIncludeLate(wm: RuntimeWatermarks, step: Extract<ScriptStep, { kind: 'rows' }>): boolean {
  const col = wm.source(step.source).watermark?.column;
  if (!col) return false;
  for (const r of step.rows) {
    const t = eventTime(r.values[col]);
    if (t === null) continue;
    if (t <= wm.current(step.source)) return true;
    wm.observe(step.source, step.partition, t);
  }
  return false;
}

const eventTime = (v: unknown): number | null => {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return null;
  const t = readTimestamp(v);
  return typeof t === 'number' ? t : null;
};

/** The expectations this target can check; the others are noted. Changelog rows fold into final rows. */
function comparable(plan: PlanDoc, c: TestCase, notes: TargetNote[]): Expectation[] {
  const out: Expectation[] = [];
  for (const e of c.expect) {
    const not = (why: string): void => void notes.push({ code: 'test-target-output-unsupported', span: e.span, params: { target: CLICKHOUSE_TARGET, output: e.output, why } });
    if (e.output === DEAD_LETTERS) {
      not('the ClickHouse target keeps undecodable records in <source>__dead_letters with its own reason texts');
      continue;
    }
    const sink = plan.sinks.find((s) => s.name === e.output)!;
    if (sink.connector !== 'clickhouse') {
      not(`the ClickHouse target writes only clickhouse sinks; this one is '${sink.connector}'`);
      continue;
    }
    if (!sink.input) {
      not('ClickHouse merges late rows into their window, so its late-row table stays empty (clickhouse-late-rows-merge)');
      continue;
    }
    const expected = finalRowsExpectation(sink, e, not);
    if (expected) out.push(expected);
  }
  return out;
}

function insertRows(plan: PlanDoc, db: string, step: Extract<ScriptStep, { kind: 'rows' }>, offsets: Map<string, number>, nextLsn: () => number): ChdbOp[] {
  const src = plan.sources.find((s) => s.name === step.source)!;
  if (src.connector === 'postgres-cdc') {
    // The Debezium topic's stand-in table: one JSON message per change, LSNs in the test's order.
    const table = qualified(db, `${src.name}__debezium`);
    return debeziumMessages(src, step.rows, nextLsn).map(({ message, row }) => {
      const slot = `${src.name}/${step.partition}`;
      const offset = row.offset ?? offsets.get(slot) ?? 0;
      offsets.set(slot, offset + 1);
      return { sql: `INSERT INTO ${table} FORMAT JSONEachRow ${JSON.stringify({ raw: message, _partition: step.partition, _offset: offset, _key: row.key === undefined || row.key === null ? '' : String(row.key) })}` };
    });
  }
  const table = qualified(db, src.name);
  const kafka = src.connector === 'kafka';
  return step.rows.map((r) => {
    const slot = `${src.name}/${step.partition}`;
    const offset = r.offset ?? offsets.get(slot) ?? 0;
    offsets.set(slot, offset + 1);
    const payload = JSON.stringify(r.values);
    if (!kafka) return { sql: `INSERT INTO ${table} FORMAT JSONEachRow ${payload}` };
    const ts = r.meta?.['timestamp'];
    const virtuals = { _topic: String(src.options['topic']?.template ?? src.name), _partition: step.partition, _offset: offset, _key: r.key === undefined || r.key === null ? '' : String(r.key), _timestamp_ms: typeof ts === 'number' ? ts / 1000 : null };
    const deadLetter = `INSERT INTO ${table} (${['_topic', '_partition', '_offset', '_key', '_raw_message', '_error'].map(ident).join(', ')}) VALUES (${str(virtuals._topic)}, ${step.partition}, ${offset}, ${str(virtuals._key)}, ${str(payload)}, __PIPEC_ERROR__)`;
    // A record ClickHouse cannot parse is a dead letter, as the Kafka engine's stream error mode makes it.
    return { sql: `INSERT INTO ${table} FORMAT JSONEachRow ${JSON.stringify({ ...r.values, ...virtuals })}`, fallback: deadLetter };
  });
}

/** The watermark step: the partition's largest event time becomes `at` plus the delay (where ClickHouse reads it from). */
function watermarkRows(plan: PlanDoc, db: string, source: string, partitions: number[], at: number): ChdbOp[] {
  const src = plan.sources.find((s) => s.name === source)!;
  if (!src.watermark) return [];
  const t = at + src.watermark.delayMs;
  const table = qualified(db, `${source}__watermark`);
  return partitions.map((p) => ({ sql: `INSERT INTO ${table} SELECT ${p}, fromUnixTimestamp64Milli(toInt64(${t}), 'UTC'), now64(3, 'UTC')` }));
}

/** How a reader gets a sink's rows: its read view, else its table (latest version per key, deletes dropped). */
function readSql(plan: PlanDoc, db: string, output: string, statements: string[]): string {
  const sink = plan.sinks.find((s) => s.name === output)!;
  // The table the DDL creates for the sink (never the runtime sink's table by default).
  const { db: sinkDb, table } = clickhouseDdlTable(db, sink);
  const name = qualified(sinkDb, table);
  const read = qualified(sinkDb, `${table}__read`);
  if (statements.some((s) => s.startsWith(`CREATE VIEW IF NOT EXISTS ${read}\n`))) return `SELECT * FROM ${read}`;
  const create = statements.find((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${name}\n`)) ?? '';
  const engine = /ENGINE = (\w+)(\(([^)]*)\))?/.exec(create);
  if (engine?.[1] !== 'ReplacingMergeTree') return `SELECT * FROM ${name}`;
  if (engine[3]?.includes('_is_deleted')) return `SELECT * EXCEPT (${ident('_version')}, ${ident('_is_deleted')}) FROM ${name} FINAL WHERE ${ident('_is_deleted')} = 0`;
  return `SELECT * FROM ${name} FINAL`;
}
