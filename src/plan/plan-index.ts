// Read-only lookups over a PlanDoc that the lints and the checker's scale-out pass share:
// operators by id, which view or sink an operator belongs to (for messages), column lineage
// back to source columns, the sources upstream of an operator, and the scale-out mode.
import { assertNever } from '../util/assert-never.ts';
import type { IrColumn, IrOperator, IrSink, IrSource, PlanDoc } from './ir.ts';

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
