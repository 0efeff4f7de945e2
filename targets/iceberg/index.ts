// The Iceberg target: for each Iceberg sink, the table metadata (spec format v2/v3), the REST
// catalog create-table request, and the field-id lock; for each compaction policy, its
// maintenance plan as JSON and as Spark SQL. The sinks' settings and table layouts, the catalogs
// and the compaction policies come from the physical plan (sink-input.ts); the columns from the IR.
import type { PlanDoc } from '../../src/plan/ir.ts';
import type { EmittedFile, Target, TargetContext } from '../../src/plan/physical/target-api.ts';
import { syntheticSpan } from '../../src/diagnostics/span.ts';
import { parseLock } from './field-id-lock.ts';
import { buildLayout, type LayoutProblem } from './table-layout.ts';
import { tableProperties } from './table-properties.ts';
import { restCreateTableRequest, tableMetadata } from './table-metadata.ts';
import { maintenanceJson, maintenanceSparkSql } from './maintenance-plan.ts';
import { stableJson } from './stable-json.ts';
import { icebergSinks } from './sink-input.ts';
import { lowerPlan } from '../../src/plan/physical/lower.ts';

export const lockPath = (sink: string): string => `iceberg/${sink}/field-ids.lock.json`;

export const icebergTarget: Target = {
  name: 'iceberg',
  appliesTo: (plan) => plan.sinks.some((s) => s.connector === 'iceberg'),
  async emit(plan: PlanDoc, ctx: TargetContext): Promise<EmittedFile[]> {
    const files: EmittedFile[] = [];
    const physical = ctx.physical ?? lowerPlan(plan);
    for (const sink of icebergSinks(plan, physical)) {
      const lock = parseLock(ctx.readPrevious(lockPath(sink.name)), sink.config.table);
      const problems: LayoutProblem[] = [];
      const layout = buildLayout(sink, lock, problems);
      for (const p of problems) {
        if (p.kind === 'lossy-type') ctx.diagnostics.report('iceberg-lossy-type', sink.span ?? syntheticSpan(plan.pipeline.file), { sink: sink.name, column: p.path, detail: p.detail });
        else ctx.diagnostics.report('iceberg-unknown-partition-column', sink.span ?? syntheticSpan(plan.pipeline.file), { sink: sink.name, column: p.path });
      }
      const policies = physical.compactions.filter((c) => c.sink === sink.name);
      const properties = tableProperties(plan.pipeline.name, sink, policies);
      const catalog = physical.catalogs.find((c) => c.name === sink.config.catalog);
      files.push(
        { path: `iceberg/${sink.name}/metadata.json`, contents: stableJson(tableMetadata(plan.pipeline.name, sink, catalog, lock, layout, properties)) },
        { path: `iceberg/${sink.name}/create-table.json`, contents: stableJson(restCreateTableRequest(sink, lock, layout, properties)) },
        { path: lockPath(sink.name), contents: stableJson(lock) },
      );
      for (const policy of policies) {
        files.push(
          { path: `iceberg/maintenance/${policy.name}.json`, contents: stableJson(maintenanceJson(policy, sink)) },
          { path: `iceberg/maintenance/${policy.name}.spark.sql`, contents: maintenanceSparkSql(policy, sink, plan.pipeline.file) },
        );
      }
    }
    return files;
  },
};
