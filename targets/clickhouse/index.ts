// The ClickHouse target: materialized-view DDL that makes ClickHouse run the pipeline.
// `clickhouseTarget` is what the build driver calls; `emitClickHouse` adds emit options (insertable sources).
import { DiagnosticBag } from '../../src/diagnostics/bag.ts';
import type { PlanDoc } from '../../src/plan/ir.ts';
import type { EmittedFile, Target, TargetContext } from '../../src/plan/physical/target-api.ts';
import { emitStatements, type ClickHouseOutput } from './emit.ts';
import type { EmitOptions } from './model.ts';

export type { EmitOptions, ClickHouseOutput };

/** Emits the DDL of a plan; diagnostics go to `bag` (a fresh one when omitted). */
export function emitClickHouse(plan: PlanDoc, opts: EmitOptions = {}, bag: DiagnosticBag = new DiagnosticBag()): ClickHouseOutput & { diagnostics: DiagnosticBag } {
  return { ...emitStatements(plan, bag, opts), diagnostics: bag };
}

export const clickhouseTarget: Target = {
  name: 'clickhouse',
  appliesTo(plan: PlanDoc): boolean {
    return plan.sinks.some((s) => s.connector === 'clickhouse');
  },
  async emit(plan: PlanDoc, ctx: TargetContext): Promise<EmittedFile[]> {
    const out = emitStatements(plan, ctx.diagnostics, {}, ctx.physical);
    return [
      { path: 'clickhouse.sql', contents: out.sql },
      { path: 'clickhouse.teardown.sql', contents: out.teardown },
    ];
  },
};
