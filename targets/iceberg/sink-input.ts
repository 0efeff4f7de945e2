// What the Iceberg files of one sink are made from: the sink's entry of the physical plan (its
// resolved config: catalog, table, format version, write settings; its table layout: partition
// spec and sort order) and its columns. The target, `pipec compact` and the runtime's
// create-if-missing all start here, so none of them reads the sink's options or IR section.
import type { IrColumn, PlanDoc } from '../../src/plan/ir.ts';
import type { PhysicalPlan, PhysicalSink, SinkTable } from '../../src/plan/physical/types.ts';
import type { Span } from '../../src/diagnostics/span.ts';

export interface IcebergSinkInput {
  id: string;
  name: string;
  columns: IrColumn[];
  config: Extract<PhysicalSink['config'], { connector: 'iceberg' }>;
  layout: Extract<SinkTable, { kind: 'iceberg' }>;
  changelog: PhysicalSink['changelog'];
  upsertKey: string[] | null;
  span: Span;
}

/** The Iceberg sinks of a plan whose table is known (an invalid one was reported by the checker). */
export function icebergSinks(plan: PlanDoc, physical: PhysicalPlan): IcebergSinkInput[] {
  const out: IcebergSinkInput[] = [];
  for (const p of physical.sinks) {
    if (p.config.connector !== 'iceberg' || p.table?.kind !== 'iceberg') continue;
    const sink = plan.sinks.find((s) => s.id === p.id)!;
    out.push({ id: p.id, name: p.name, columns: sink.schema, config: p.config, layout: p.table, changelog: p.changelog, upsertKey: p.upsertKey, span: sink.span });
  }
  return out;
}
