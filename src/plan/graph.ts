// Plan graph queries, once for every phase and target: consumers of an operator, liveness
// (what feeds a sink), owners (which view or sink an operator belongs to: a label for messages,
// and the name a target gives its internal objects), column lineage back to source columns,
// the sources upstream of an operator, and the scale-out mode. Read-only over a PlanDoc.
import { assertNever } from '../util/assert-never.ts';
import type { IrColumn, IrOperator, IrSink, IrSource, PlanDoc } from './ir.ts';

/** Each operator's consumers among `ops`, in plan order (sinks are not operators: see sinkFeeds). */
export function consumerMap(ops: readonly IrOperator[]): Map<string, IrOperator[]> {
  const out = new Map<string, IrOperator[]>();
  for (const o of ops) for (const i of o.inputs) out.set(i, [...(out.get(i) ?? []), o]);
  return out;
}

/**
 * Who reads each operator's output: how many places (operator inputs, views, sink inputs and
 * late rows) and which outputs are visible outside the operator graph (a view or a sink reads it).
 */
export function readers(plan: PlanDoc): { count: Map<string, number>; exposed: Set<string> } {
  const count = new Map<string, number>();
  const exposed = new Set<string>();
  const use = (id: string, outside: boolean): void => {
    count.set(id, (count.get(id) ?? 0) + 1);
    if (outside) exposed.add(id);
  };
  for (const o of plan.operators) for (const i of o.inputs) use(i, false);
  for (const v of plan.views) use(v.operator, true);
  for (const s of plan.sinks) {
    if (s.input !== null) use(s.input, true);
    for (const l of s.lateFrom) use(l, true);
  }
  return { count, exposed };
}

/** Operators that feed a sink (directly, through others, or as late rows), in plan order: the ones that run. */
export function liveOperators(plan: PlanDoc): IrOperator[] {
  const byId = new Map(plan.operators.map((o) => [o.id, o]));
  const live = new Set<string>();
  const mark = (id: string): void => {
    if (live.has(id)) return;
    live.add(id);
    for (const i of byId.get(id)?.inputs ?? []) mark(i);
  };
  for (const s of plan.sinks) {
    if (s.input) mark(s.input);
    for (const l of s.lateFrom) mark(l);
  }
  return plan.operators.filter((o) => live.has(o.id));
}

/**
 * The name a target gives an operator's internal objects (ClickHouse tables and views): the
 * view or sink it feeds through filters and projections only, else its own id. A second
 * stateful operator with the same owner is told apart by `__<id>`.
 */
export function objectOwners(plan: PlanDoc): Map<string, string> {
  const consumers = consumerMap(plan.operators);
  const named = new Map<string, string>();
  for (const v of plan.views) if (!named.has(v.operator)) named.set(v.operator, v.name);
  // A ClickHouse sink's own DDL table is `<pipeline>.<sink>` (clickhouse-ddl-table.ts), with `__mv`,
  // `__merged` and `__read` beside it: the objects of the query it reads directly are told apart.
  for (const s of plan.sinks) if (s.input && !named.has(s.input)) named.set(s.input, s.connector === 'clickhouse' ? `${s.name}__query` : s.name);
  const used = new Set<string>();
  const out = new Map<string, string>();
  for (const op of plan.operators) {
    let cur: IrOperator = op;
    let name = named.get(cur.id);
    while (!name) {
      const next = consumers.get(cur.id) ?? [];
      if (next.length !== 1 || (next[0]!.op !== 'filter' && next[0]!.op !== 'project')) break;
      cur = next[0]!;
      name = named.get(cur.id);
    }
    let owner = name ?? op.id;
    if (used.has(owner)) owner = `${owner}__${op.id}`;
    if (op.op !== 'filter' && op.op !== 'project' && op.op !== 'scan') used.add(owner);
    out.set(op.id, owner);
  }
  return out;
}

export interface SourceColumn {
  source: IrSource;
  column: IrColumn;
}

export class PlanIndex {
  readonly ops = new Map<string, IrOperator>();
  readonly sourcesById = new Map<string, IrSource>();
  private readonly owners = new Map<string, string>();

  constructor(readonly plan: PlanDoc) {
    for (const o of plan.operators) this.ops.set(o.id, o);
    for (const s of plan.sources) this.sourcesById.set(s.id, s);
    this.assignOwners();
  }

  op(id: string): IrOperator | undefined {
    return this.ops.get(id);
  }

  /** "view 'revenue_1m'" or "sink 'alerts'": the statement an operator was compiled from. */
  owner(opId: string): string {
    return this.owners.get(opId) ?? `operator '${opId}'`;
  }

  // A view's operators are those above its output operator up to (not into) another view's
  // output; views are labelled first so that a view built on a view keeps its own name.
  private assignOwners(): void {
    const roots: [string, string][] = [
      ...this.plan.views.map((v): [string, string] => [v.operator, `view '${v.name}'`]),
      ...this.plan.sinks.filter((s) => s.input !== null).map((s): [string, string] => [s.input!, `sink '${s.name}'`]),
    ];
    for (const [op, label] of roots) if (!this.owners.has(op)) this.owners.set(op, label);
    for (const [op, label] of roots) {
      if (this.owners.get(op) !== label) continue;
      const stack = [...(this.ops.get(op)?.inputs ?? [])];
      while (stack.length) {
        const id = stack.pop()!;
        if (this.owners.has(id)) continue;
        this.owners.set(id, label);
        stack.push(...(this.ops.get(id)?.inputs ?? []));
      }
    }
  }

  /**
   * The source column an operator's output column is an unchanged copy of, or null when it is
   * computed (or comes from several inputs, as in a union). With `throughUnions`, a union
   * column traces when every input's column at that position traces to the same source column
   * (a union of reads of one source, as the scale-out check needs).
   */
  traceColumn(opId: string, name: string, throughUnions = false): SourceColumn | null {
    const o = this.ops.get(opId);
    if (!o) return null;
    switch (o.op) {
      case 'scan': {
        const source = this.sourcesById.get(o.source);
        const column = source?.columns.find((c) => c.name === name);
        return source && column ? { source, column } : null;
      }
      case 'filter':
        return this.traceColumn(o.inputs[0]!, name, throughUnions);
      case 'project': {
        const e = o.exprs.find((x) => x.name === name)?.expr;
        return e && e.kind === 'col' ? this.traceColumn(o.inputs[0]!, e.name, throughUnions) : null;
      }
      case 'window_agg':
      case 'group_agg': {
        const e = o.groupKeys.find((x) => x.name === name)?.expr;
        return e && e.kind === 'col' ? this.traceColumn(o.inputs[0]!, e.name, throughUnions) : null;
      }
      case 'interval_join':
      case 'temporal_join': {
        const m = o.outputMap.find((x) => x.name === name);
        return m ? this.traceColumn(o.inputs[m.input]!, m.column, throughUnions) : null;
      }
      case 'union': {
        // Union inputs line up by position, not by name.
        const at = o.schema.findIndex((c) => c.name === name);
        if (!throughUnions || at < 0) return null;
        const traced = o.inputs.map((i) => {
          const col = this.ops.get(i)?.schema[at];
          return col ? this.traceColumn(i, col.name, true) : null;
        });
        const first = traced[0];
        return first && traced.every((t) => t && t.source === first.source && t.column === first.column) ? first : null;
      }
      default:
        return assertNever(o);
    }
  }

  /** Every source read (transitively) by an operator, in plan order. */
  upstreamSources(opIds: readonly string[]): IrSource[] {
    const seen = new Set<string>();
    const found = new Set<string>();
    const stack = [...opIds];
    while (stack.length) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const o = this.ops.get(id);
      if (!o) continue;
      if (o.op === 'scan') found.add(o.source);
      stack.push(...o.inputs);
    }
    return this.plan.sources.filter((s) => found.has(s.id));
  }

  /**
   * The single scan an operator reads through filters and projects only, or null (joins,
   * unions and aggregates in between change how rows are distributed).
   */
  straightScan(opId: string): IrOperator | null {
    let o = this.ops.get(opId);
    while (o && (o.op === 'filter' || o.op === 'project')) o = this.ops.get(o.inputs[0]!);
    return o && o.op === 'scan' ? o : null;
  }

  /** The operators a sink receives rows from: its input and the windows it takes late rows of. */
  sinkFeeds(sink: IrSink): string[] {
    return [...(sink.input ? [sink.input] : []), ...sink.lateFrom];
  }
}

/** Known upper bound on a source column's distinct values, or null when nothing says so. */
export function columnCardinality(sc: SourceColumn): number | null {
  if (sc.column.cardinalityHint !== undefined) return sc.column.cardinalityHint;
  if (sc.column.type.kind === 'boolean') return 2;
  // A datagen `choice` field draws from the listed values; the checker may not have set a hint.
  if (sc.source.connector === 'datagen') {
    const kind = sc.source.options[`fields.${sc.column.name}.kind`]?.value;
    const values = sc.source.options[`fields.${sc.column.name}.values`]?.value;
    if (kind === 'choice' && values !== undefined) return new Set(values.split(',').map((v) => v.trim()).filter((v) => v !== '')).size;
  }
  return null;
}

export type ScaleOut = 'none' | 'partitions';

/** The plan's scale-out mode (the checker stores the option lower-cased, so this is exact). */
export function scaleOutOf(plan: PlanDoc): ScaleOut {
  return plan.pipeline.options['scale_out']?.value === 'partitions' ? 'partitions' : 'none';
}

/**
 * The index of column `name` in `cols`: the exact name first, else the first case-insensitive
 * match (unquoted identifiers fold case); -1 when there is none.
 */
export function columnIndex(cols: readonly IrColumn[], name: string): number {
  let i = cols.findIndex((c) => c.name === name);
  if (i < 0) i = cols.findIndex((c) => c.name.toLowerCase() === name.toLowerCase());
  return i;
}
