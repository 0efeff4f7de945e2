// Window (and group) aggregates: a materialized view into an AggregatingMergeTree of -State columns
// keyed by group key + window, and a read view that -Merges them (filtered by the watermark for
// EMIT ON WINDOW CLOSE). TUMBLE uses toStartOfInterval; HOP and CUMULATE expand rows with ARRAY JOIN.
import type { GroupAggOp, IrAggregate, SqlType, WindowAggOp } from '../../src/plan/ir.ts';
import { T } from '../../src/types/sql-type.ts';
import { assertNever } from '../../src/util/assert-never.ts';
import { AGGREGATES, stateType } from './aggregates.ts';
import { compileExpr } from './functions.ts';
import { addStmt, fmtMs, type EmitContext, type Rel } from './model.ts';
import { watermarkMs } from './sources.ts';
import { ident, qualified, str } from './sql-text.ts';
import { allowsNullable, chType, TIME_ZONE } from './types.ts';

export type AggOp = WindowAggOp | GroupAggOp;

const TS = chType(T.timestamp(3, false));
const ms = (n: number): string => `toIntervalMillisecond(${n})`;
const fromMs = (sql: string): string => `fromUnixTimestamp64Milli(${sql}, ${str(TIME_ZONE)})`;

/** Window columns stored in the state table (window_time is derived when read). */
export function storedWindowColumns(op: AggOp): string[] {
  return op.op === 'window_agg' ? ['window_start', 'window_end'] : [];
}

/** Column definitions of an aggregate's state table (also used for an aggregating sink's table). */
export function stateColumns(op: AggOp, input: Rel): { name: string; type: string }[] {
  const cols: { name: string; type: string }[] = [];
  for (const k of op.groupKeys) cols.push({ name: k.name, type: chType(k.expr.type) });
  for (const w of storedWindowColumns(op)) cols.push({ name: w, type: TS });
  const timeType = timeTypeOf(op, input);
  for (const a of op.aggregates) {
    for (const s of AGGREGATES[a.fn].states) cols.push({ name: a.name + s.suffix, type: stateType(s, a.arg?.type ?? null, timeType) });
  }
  return cols;
}

/** argMin/argMax order by `__t`, the event time cast to non-null DateTime64(3) (NULL times have no window). */
function timeTypeOf(op: AggOp, _input: Rel): SqlType | null {
  return op.op === 'window_agg' ? T.timestamp(3, false) : null;
}

/** ORDER BY key of the state table: group keys and window bounds identify one aggregate row. */
export function stateKey(op: AggOp): string[] {
  return [...op.groupKeys.map((k) => k.name), ...storedWindowColumns(op)];
}

/** The MV body that turns input rows into partial states, one row per (key, window). */
export function stateSelect(ctx: EmitContext, op: AggOp, input: Rel): string {
  const col = (_i: number, name: string): string => input.cols.get(name) ?? ident(name);
  const inner: string[] = [];
  op.groupKeys.forEach((k, i) => inner.push(`CAST(${compileExpr(k.expr, col)} AS ${chType(k.expr.type)}) AS ${ident(`__k${i}`)}`));
  op.aggregates.forEach((a, i) => {
    if (a.arg) inner.push(`CAST(${compileExpr(a.arg, col)} AS ${chType(a.arg.type)}) AS ${ident(`__a${i}`)}`);
  });
  if (op.op === 'window_agg') inner.push(`CAST(${col(0, op.windowTimeColumn)} AS ${TS}) AS ${ident('__t')}`);
  const where = input.where.length ? ` WHERE ${input.where.join(' AND ')}` : '';
  const outer: string[] = op.groupKeys.map((k, i) => `${ident(`__k${i}`)} AS ${ident(k.name)}`);
  let arrayJoin = '';
  if (op.op === 'window_agg') {
    const w = windowBounds(op);
    outer.push(`${w.start} AS ${ident('window_start')}`, `${w.end} AS ${ident('window_end')}`);
    arrayJoin = w.arrayJoin ? `\nARRAY JOIN ${w.arrayJoin}` : '';
  }
  op.aggregates.forEach((a, i) => {
    for (const s of AGGREGATES[a.fn].states) {
      const args = s.args === 'none' ? [] : s.args === 'value' ? [ident(`__a${i}`)] : [ident(`__a${i}`), ident('__t')];
      outer.push(`${s.fn}State(${args.join(', ')}) AS ${ident(a.name + s.suffix)}`);
    }
  });
  // Rows without event time belong to no window.
  const timeFilter = op.op === 'window_agg' ? `${where ? `${where} AND` : ' WHERE'} (${col(0, op.windowTimeColumn)} IS NOT NULL)` : where;
  const groupBy = [...op.groupKeys.map((_, i) => ident(`__k${i}`)), ...storedWindowColumns(op).map(ident)];
  return (
    `SELECT ${outer.join(', ')}\nFROM (SELECT ${inner.join(', ')} FROM ${input.from}${timeFilter})${arrayJoin}` +
    (groupBy.length ? `\nGROUP BY ${groupBy.join(', ')}` : '')
  );
}

/** window_start / window_end of the rows of the inner select (`__t` is the event time). */
function windowBounds(op: WindowAggOp): { start: string; end: string; arrayJoin: string | null } {
  const t = ident('__t');
  const tMs = `toUnixTimestamp64Milli(${t})`;
  const w = op.window;
  switch (w.kind) {
    case 'tumble': {
      const origin = ((w.offsetMs % w.sizeMs) + w.sizeMs) % w.sizeMs;
      const start = `toStartOfInterval(${t}, ${ms(w.sizeMs)}${origin ? `, ${fromMs(String(origin))}` : ''})`;
      return { start, end: `addMilliseconds(${start}, ${w.sizeMs})`, arrayJoin: null };
    }
    case 'hop': {
      // Starts are multiples of the slide; a row belongs to each window whose [start, start + size) holds it.
      const n = Math.ceil(w.sizeMs / w.slideMs);
      const last = `toUnixTimestamp64Milli(toStartOfInterval(${t}, ${ms(w.slideMs)}))`;
      const starts = `arrayFilter(s -> s + ${w.sizeMs} > ${tMs}, arrayMap(k -> ${last} - toInt64(k) * ${w.slideMs}, range(${n})))`;
      return { start: fromMs(ident('__ws')), end: fromMs(`${ident('__ws')} + ${w.sizeMs}`), arrayJoin: `${starts} AS ${ident('__ws')}` };
    }
    case 'cumulate': {
      // One window of `size` split at every step: a row belongs to each window ending after it.
      const n = Math.floor(w.sizeMs / w.stepMs);
      const first = `toUnixTimestamp64Milli(toStartOfInterval(${t}, ${ms(w.sizeMs)}))`;
      const ends = `arrayFilter(e -> e > ${tMs}, arrayMap(k -> ${first} + toInt64(k) * ${w.stepMs}, range(1, ${n + 1})))`;
      return { start: `toStartOfInterval(${t}, ${ms(w.sizeMs)})`, end: fromMs(ident('__we')), arrayJoin: `${ends} AS ${ident('__we')}` };
    }
    case 'session':
      throw new Error('session windows are reported before emission');
    default:
      return assertNever(w);
  }
}

/**
 * The read view body over a state table: -Merge per (key, window), each aggregate cast to its IR type;
 * for EMIT ON WINDOW CLOSE only windows the watermark has passed.
 */
export function mergeSelect(ctx: EmitContext, op: AggOp, stateTable: string, input: Rel): string {
  const keys = stateKey(op);
  const inner: string[] = keys.map((k, i) => `${ident(k)} AS ${ident(`__g${i}`)}`);
  op.aggregates.forEach((a, i) => {
    const spec = AGGREGATES[a.fn];
    const merged = spec.states.map((s) => `${s.fn}Merge(${ident(a.name + s.suffix)})`);
    inner.push(`CAST(${spec.finalize(merged, a.type)} AS ${chType(a.type)}) AS ${ident(`__m${i}`)}`);
  });
  const outer: string[] = [];
  op.groupKeys.forEach((k, i) => outer.push(`${ident(`__g${i}`)} AS ${ident(k.name)}`));
  const kw = op.groupKeys.length;
  if (op.op === 'window_agg') {
    outer.push(`${ident(`__g${kw}`)} AS ${ident('window_start')}`, `${ident(`__g${kw + 1}`)} AS ${ident('window_end')}`);
    if (op.windowColumns.includes('window_time')) outer.push(`subtractMilliseconds(${ident(`__g${kw + 1}`)}, 1) AS ${ident('window_time')}`);
  }
  op.aggregates.forEach((a, i) => outer.push(`${ident(`__m${i}`)} AS ${ident(a.name)}`));
  let where = '';
  if (op.op === 'window_agg' && op.emit === 'on_window_close') {
    const wm = watermarkMs(ctx, input.sources);
    // Flink fires a window when the watermark reaches window_end - 1 ms; lateness delays that.
    const adj = op.allowedLatenessMs - 1;
    const shift = adj < 0 ? ` - ${-adj}` : adj > 0 ? ` + ${adj}` : '';
    if (wm) where = `\nWHERE toUnixTimestamp64Milli(${ident(`__g${kw + 1}`)})${shift} <= ${wm}`;
  }
  const groupBy = keys.length ? ` GROUP BY ${keys.map(ident).join(', ')}` : '';
  return `SELECT ${outer.join(', ')}\nFROM (SELECT ${inner.join(', ')} FROM ${stateTable}${groupBy})${where}`;
}

/** Emits the state table, its MV and the read view of an aggregate; returns the read view's relation. */
export function emitAggregate(ctx: EmitContext, op: AggOp, input: Rel, owner: string): Rel | null {
  const state = qualified(ctx.db, `${owner}__state`);
  const mv = qualified(ctx.db, `${owner}__state_mv`);
  const read = qualified(ctx.db, `${owner}__merged`);
  const what = op.op === 'window_agg' ? windowLabel(op) : 'group aggregate';
  addStmt(
    ctx,
    'pipeline',
    [`${owner}: ${what}, partial aggregates keyed by ${stateKey(op).join(', ') || '()'} (merged when read)`],
    `CREATE TABLE IF NOT EXISTS ${state}\n(\n${stateColumns(op, input).map((c) => `    ${ident(c.name)} ${c.type}`).join(',\n')}\n)\nENGINE = AggregatingMergeTree\nORDER BY ${orderTuple(stateKey(op))}${nullableKeySetting(op.groupKeys.map((k) => k.expr.type))}`,
    `DROP TABLE IF EXISTS ${state}`,
  );
  addStmt(ctx, 'pipeline', [], `CREATE MATERIALIZED VIEW IF NOT EXISTS ${mv} TO ${state}\nAS ${stateSelect(ctx, op, input)}`, `DROP VIEW IF EXISTS ${mv}`);
  const closeNote = op.op === 'window_agg' && op.emit === 'on_window_close' ? ', showing only windows closed by the watermark' : '';
  addStmt(ctx, 'pipeline', [`${owner}: read view merging the partial aggregates${closeNote}`], `CREATE VIEW IF NOT EXISTS ${read}\nAS ${mergeSelect(ctx, op, state, input)}`, `DROP VIEW IF EXISTS ${read}`);
  reportAggregateDifferences(ctx, op, input, owner);
  return {
    from: read,
    cols: new Map(op.schema.map((c) => [c.name, ident(c.name)])),
    types: new Map(op.schema.map((c) => [c.name, c.type])),
    where: [],
    kind: 'read',
    changelog: null,
    sources: input.sources,
    agg: { op, stateTable: state, input },
  };
}

/** SQL allows a NULL group key; ClickHouse needs allow_nullable_key for a Nullable sorting key. */
export function nullableKeySetting(keyTypes: SqlType[]): string {
  return keyTypes.some((t) => t.nullable && allowsNullable(t)) ? '\nSETTINGS allow_nullable_key = 1' : '';
}

export function orderTuple(cols: string[]): string {
  return cols.length ? `(${cols.map(ident).join(', ')})` : 'tuple()';
}

function windowLabel(op: WindowAggOp): string {
  const w = op.window;
  switch (w.kind) {
    case 'tumble':
      return `TUMBLE(${fmtMs(w.sizeMs)}${w.offsetMs ? `, offset ${fmtMs(w.offsetMs)}` : ''})`;
    case 'hop':
      return `HOP(slide ${fmtMs(w.slideMs)}, size ${fmtMs(w.sizeMs)})`;
    case 'cumulate':
      return `CUMULATE(step ${fmtMs(w.stepMs)}, size ${fmtMs(w.sizeMs)})`;
    case 'session':
      return `SESSION(gap ${fmtMs(w.gapMs)})`;
    default:
      return assertNever(w);
  }
}

function reportAggregateDifferences(ctx: EmitContext, op: AggOp, input: Rel, owner: string): void {
  if (op.op === 'window_agg') {
    if (op.emit === 'on_window_close') {
      const delays = input.sources.map((id) => ctx.plan.sources.find((s) => s.id === id)?.watermark?.delayMs ?? 0);
      ctx.bag.report('clickhouse-no-watermark', op.span, { view: owner, delay: `${fmtMs(Math.max(0, ...delays))} and the allowed lateness ${fmtMs(op.allowedLatenessMs)}` });
    }
    const late = op.late.kind === 'to' ? `ON LATE TO ${op.late.sink}` : op.late.kind === 'drop' ? 'ON LATE DROP' : 'late rows are dropped';
    ctx.bag.report('clickhouse-late-rows-merge', op.span, { view: owner, late });
    const time = op.windowTimeColumn;
    for (const a of op.aggregates) reportFirstLast(ctx, op, a, time);
  } else if (op.stateTtlMs !== null) {
    ctx.bag.report('clickhouse-state-ttl-ignored', op.span, { view: owner, ttl: fmtMs(op.stateTtlMs) });
  }
}

function reportFirstLast(ctx: EmitContext, op: AggOp, a: IrAggregate, time: string): void {
  if (a.fn === 'first_value' || a.fn === 'last_value') {
    ctx.bag.report('clickhouse-first-last-by-event-time', op.span, { fn: a.fn === 'first_value' ? 'FIRST_VALUE' : 'LAST_VALUE', time });
  }
}
