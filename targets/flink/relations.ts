// Plan operators → Flink SQL queries, one temporary view per operator: windows as Flink's window
// table-valued functions, GROUP BY with a STATE_TTL hint, interval joins as BETWEEN on the two
// time columns, temporal joins FOR SYSTEM_TIME AS OF, unions as UNION ALL. Differences from the
// runtime are reported here, at the operator's span.
import type { IntervalJoinOp, IrOperator, IrWindow, PlanDoc, TemporalJoinOp, WindowAggOp, GroupAggOp } from '../../src/plan/ir.ts';
import type { DiagnosticBag } from '../../src/diagnostics/bag.ts';
import { assertNever } from '../../src/util/assert-never.ts';
import { compileAggregate } from './aggregates.ts';
import { compileExpr, UnsupportedExpr, type ColumnResolver } from './functions.ts';
import { configDuration, ident, interval } from './sql-text.ts';
import { formatDuration } from '../../src/plan/print/format.ts';

export interface RelationContext {
  plan: PlanDoc;
  bag: DiagnosticBag;
  /** Operator id → the Flink view (or source table) holding its rows. */
  names: Map<string, string>;
  /** Source name → its Flink table. */
  sourceTables: Map<string, string>;
  /** The view name of each operator whose output is a view of the spec. */
  viewOf: Map<string, string>;
}

/** The SELECT of one operator, or null when it cannot run on Flink (reported). */
export function compileOperator(ctx: RelationContext, op: IrOperator): string | null {
  // An input that could not be expressed was reported at its own source or operator.
  if (op.inputs.some((id) => !ctx.names.has(id))) return null;
  try {
    return select(ctx, op);
  } catch (e) {
    if (!(e instanceof UnsupportedExpr)) throw e;
    ctx.bag.report('flink-function-unsupported', op.span, { what: e.message });
    return null;
  }
}

const inputName = (ctx: RelationContext, op: IrOperator, i: number): string => {
  const name = ctx.names.get(op.inputs[i] ?? '');
  if (!name) throw new Error(`internal: operator ${op.id} reads ${op.inputs[i]}, which has no Flink view`);
  return name;
};

const plainCol: ColumnResolver = (_i, n) => ident(n);
const sideCol: ColumnResolver = (i, n) => `${i === 0 ? 'l' : 'r'}.${ident(n)}`;
const viewName = (ctx: RelationContext, op: IrOperator): string => ctx.viewOf.get(op.id) ?? op.id;

function select(ctx: RelationContext, op: IrOperator): string | null {
  switch (op.op) {
    case 'scan': {
      const table = ctx.sourceTables.get(op.source);
      if (!table) return null; // the source's format or connector was reported
      return `SELECT ${op.schema.map((c) => ident(c.name)).join(', ')} FROM ${table}`;
    }
    case 'filter':
      return `SELECT * FROM ${inputName(ctx, op, 0)} WHERE ${compileExpr(op.predicate, plainCol)}`;
    case 'project':
      return `SELECT ${op.exprs.map((e) => `${compileExpr(e.expr, plainCol)} AS ${ident(e.name)}`).join(', ')} FROM ${inputName(ctx, op, 0)}`;
    case 'window_agg':
      return windowAgg(ctx, op);
    case 'group_agg':
      return groupAgg(ctx, op);
    case 'interval_join':
      return intervalJoin(ctx, op);
    case 'temporal_join':
      return temporalJoin(ctx, op);
    case 'union':
      return op.inputs.map((_, i) => `SELECT ${op.schema.map((c) => ident(c.name)).join(', ')} FROM ${inputName(ctx, op, i)}`).join('\nUNION ALL\n');
    default:
      return assertNever(op);
  }
}

function windowTvf(w: IrWindow, table: string, time: string): string {
  const d = `DESCRIPTOR(${ident(time)})`;
  switch (w.kind) {
    case 'tumble':
      return `TUMBLE(TABLE ${table}, ${d}, ${interval(w.sizeMs)}${w.offsetMs ? `, ${interval(w.offsetMs)}` : ''})`;
    case 'hop':
      return `HOP(TABLE ${table}, ${d}, ${interval(w.slideMs)}, ${interval(w.sizeMs)})`;
    case 'cumulate':
      return `CUMULATE(TABLE ${table}, ${d}, ${interval(w.stepMs)}, ${interval(w.sizeMs)})`;
    case 'session': {
      // Flink's parser takes one bare column or a parenthesized list.
      const cols = w.partitionBy.map(ident).join(', ');
      const by = w.partitionBy.length === 0 ? '' : w.partitionBy.length === 1 ? ` PARTITION BY ${cols}` : ` PARTITION BY (${cols})`;
      return `SESSION(TABLE ${table}${by}, ${d}, ${interval(w.gapMs)})`;
    }
    default:
      return assertNever(w);
  }
}

function windowAgg(ctx: RelationContext, op: WindowAggOp): string | null {
  const view = viewName(ctx, op);
  if (op.emit === 'changes') {
    ctx.bag.report('flink-window-emit-changes', op.span, { view });
    return null;
  }
  if (op.allowedLatenessMs > 0) ctx.bag.report('flink-allowed-lateness', op.span, { view, lateness: formatDuration(op.allowedLatenessMs) });
  if (op.late.kind === 'to') ctx.bag.report('flink-late-side-output', op.span, { view, sink: op.late.sink });
  if (op.aggregates.some((a) => a.fn === 'approx_count_distinct')) ctx.bag.report('flink-approx-count-distinct', op.span, { view });
  const keys = new Map(op.groupKeys.map((k) => [k.name, compileExpr(k.expr, plainCol)]));
  const aggs = new Map(op.aggregates.map((a) => [a.name, compileAggregate(a, plainCol)]));
  const cols = op.schema.map((c) => {
    const k = keys.get(c.name);
    if (k !== undefined) return `${k} AS ${ident(c.name)}`;
    const a = aggs.get(c.name);
    if (a !== undefined) return `${a} AS ${ident(c.name)}`;
    return ident(c.name); // window_start, window_end, window_time
  });
  if (op.window.kind === 'session' && isLegacySession(op)) return legacySession(ctx, op, op.window.gapMs, cols);
  const groupBy = ['`window_start`', '`window_end`', ...op.groupKeys.map((k) => compileExpr(k.expr, plainCol))];
  return `SELECT ${cols.join(', ')}\nFROM TABLE(${windowTvf(op.window, inputName(ctx, op, 0), op.windowTimeColumn)})\nGROUP BY ${groupBy.join(', ')}`;
}

/**
 * A SESSION partitioned by two or more columns that are exactly its group keys. Flink 2.3 stores a
 * view's text with the SESSION TVF's `PARTITION BY (a, b)` unparsed without its parentheses, so
 * every query reading the view fails ("Column 'b' not found"). The group-window form
 * `GROUP BY a, b, SESSION(ts, gap)` makes the same sessions (one per key, the same gap, end and
 * lateness rule) and reads back, so it is written instead.
 */
function isLegacySession(op: WindowAggOp): boolean {
  if (op.window.kind !== 'session' || op.window.partitionBy.length < 2) return false;
  const keys = op.groupKeys.map((k) => (k.expr.kind === 'col' ? k.expr.name : null));
  const part = new Set(op.window.partitionBy);
  return keys.every((k) => k !== null && part.has(k)) && new Set(keys).size === part.size;
}

function legacySession(ctx: RelationContext, op: WindowAggOp, gapMs: number, cols: string[]): string {
  const call = (fn: string) => `${fn}(${ident(op.windowTimeColumn)}, ${interval(gapMs)})`;
  const windowCol: Record<string, string> = { window_start: call('SESSION_START'), window_end: call('SESSION_END'), window_time: call('SESSION_ROWTIME') };
  const select = op.schema.map((c, i) => (windowCol[c.name] !== undefined && !op.groupKeys.some((k) => k.name === c.name) ? `${windowCol[c.name]} AS ${ident(c.name)}` : cols[i]!));
  const groupBy = [...op.groupKeys.map((k) => compileExpr(k.expr, plainCol)), call('SESSION')];
  return `SELECT ${select.join(', ')}\nFROM ${inputName(ctx, op, 0)}\nGROUP BY ${groupBy.join(', ')}`;
}

function groupAgg(ctx: RelationContext, op: GroupAggOp): string {
  if (op.aggregates.some((a) => a.fn === 'approx_count_distinct')) ctx.bag.report('flink-approx-count-distinct', op.span, { view: viewName(ctx, op) });
  const keys = new Map(op.groupKeys.map((k) => [k.name, compileExpr(k.expr, plainCol)]));
  const aggs = new Map(op.aggregates.map((a) => [a.name, compileAggregate(a, plainCol)]));
  const cols = op.schema.map((c) => `${keys.get(c.name) ?? aggs.get(c.name) ?? ident(c.name)} AS ${ident(c.name)}`);
  // The view's state_ttl, for this operator only (Flink ≥ 1.18), not the job-wide table.exec.state.ttl.
  const hint = op.stateTtlMs !== null ? `/*+ STATE_TTL('i' = '${configDuration(op.stateTtlMs)}') */ ` : '';
  const groupBy = op.groupKeys.length ? `\nGROUP BY ${op.groupKeys.map((k) => compileExpr(k.expr, plainCol)).join(', ')}` : '';
  return `SELECT ${hint}${cols.join(', ')}\nFROM ${inputName(ctx, op, 0)} AS i${groupBy}`;
}

const shifted = (col: string, ms: number): string => (ms === 0 ? col : ms > 0 ? `${col} + ${interval(ms)}` : `${col} - ${interval(-ms)}`);

function joinOutput(op: IntervalJoinOp | TemporalJoinOp): string {
  return op.outputMap.map((o) => `${o.input === 0 ? 'l' : 'r'}.${ident(o.column)} AS ${ident(o.name)}`).join(', ');
}

function intervalJoin(ctx: RelationContext, op: IntervalJoinOp): string {
  const view = viewName(ctx, op);
  if (op.late.kind === 'to') ctx.bag.report('flink-late-side-output', op.span, { view, sink: op.late.sink });
  const keys = op.leftKeys.map((k, i) => `${compileExpr(k, sideCol)} = ${compileExpr(op.rightKeys[i]!, sideCol)}`);
  // leftTime − rightTime ∈ [lower, upper]  ⇔  leftTime BETWEEN rightTime + lower AND rightTime + upper.
  const r = `r.${ident(op.rightTime)}`;
  const time = `l.${ident(op.leftTime)} BETWEEN ${shifted(r, op.lowerMs)} AND ${shifted(r, op.upperMs)}`;
  const on = [...keys, time, ...(op.residual ? [compileExpr(op.residual, sideCol)] : [])].join(' AND ');
  const join = op.joinType === 'left' ? 'LEFT JOIN' : 'JOIN';
  return `SELECT ${joinOutput(op)}\nFROM ${inputName(ctx, op, 0)} AS l\n${join} ${inputName(ctx, op, 1)} AS r\nON ${on}`;
}

function temporalJoin(ctx: RelationContext, op: TemporalJoinOp): string | null {
  const right = ctx.plan.operators.find((o) => o.id === op.inputs[1]);
  const table = right?.op === 'scan' ? ctx.sourceTables.get(right.source) : undefined;
  // Flink's event-time temporal join needs a row time on the versioned side too: a CDC source
  // without a WATERMARK (the runtime versions it by its own clock) is refused by Flink's planner
  // ("requires both primary key and row time attribute in versioned table").
  const source = right?.op === 'scan' ? ctx.plan.sources.find((s) => s.name === right.source) : undefined;
  if (!table || !source?.watermark) {
    const what = table && source ? `'${source.name}', a source without a WATERMARK` : 'a view';
    ctx.bag.report('flink-temporal-join-versioned', op.span, { view: viewName(ctx, op), right: what });
    return null;
  }
  const keys = op.leftKeys.map((k, i) => `${compileExpr(k, sideCol)} = r.${ident(op.rightKeys[i]!)}`);
  const on = [...keys, ...(op.residual ? [compileExpr(op.residual, sideCol)] : [])].join(' AND ');
  const join = op.joinType === 'left' ? 'LEFT JOIN' : 'JOIN';
  return `SELECT ${joinOutput(op)}\nFROM ${inputName(ctx, op, 0)} AS l\n${join} ${table} FOR SYSTEM_TIME AS OF l.${ident(op.asOfColumn)} AS r\nON ${on}`;
}
