// Runs every compaction policy of a plan once against its Iceberg table (`pipec compact`).
// Policies, sinks and catalogs come from the physical plan; the catalog's `${VAR}` options are
// substituted with the run's variables (`vars`: the profile overlaid by the environment).
// Failures are reported per policy as sentences naming the table and catalog, never as traces.
import type { PlanDoc } from '../../src/plan/ir.ts';
import type { PhysicalCatalog } from '../../src/plan/physical/types.ts';
import { substituteTemplate } from '../../src/util/env-template.ts';
import { openCatalogWith } from '../runtime/lib/iceberg/writer/catalogs/open-catalog.ts';
import { identFromName } from '../runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { IcebergTableWriter } from '../runtime/lib/iceberg/writer/table-writer.ts';
import { runCompactionAction } from './writer/maintenance.ts';
import { icebergSinks } from './sink-input.ts';
import { lowerPlan } from '../../src/plan/physical/lower.ts';

export interface CompactionOutcome {
  errors: string[];
}

export async function runCompaction(plan: PlanDoc, baseDir: string, log: (line: string) => void, vars: Record<string, string | undefined>): Promise<CompactionOutcome> {
  const errors: string[] = [];
  const physical = lowerPlan(plan);
  const sinks = icebergSinks(plan, physical);
  for (const policy of physical.compactions) {
    const sink = sinks.find((s) => s.name === policy.sink);
    const planned = physical.catalogs.find((c) => c.name === sink?.config.catalog);
    if (!sink || !planned) {
      errors.push(`policy ${policy.name}: sink ${policy.sink} is not an Iceberg sink with a declared catalog`);
      continue;
    }
    const table = `${planned.name}.${sink.config.table}`;
    try {
      const catalog = await openPlanned(planned, vars, baseDir);
      try {
        const writer = new IcebergTableWriter(catalog, identFromName(sink.config.table));
        if (!(await catalog.load(writer.ident))) {
          errors.push(`policy ${policy.name}: table ${table} does not exist yet (the pipeline creates it on its first commit)`);
          continue;
        }
        for (const action of policy.actions) {
          const report = await runCompactionAction(writer, action);
          log(`${policy.name} ${table} ${report.action}: ${report.detail}`);
        }
      } finally {
        await catalog.close();
      }
    } catch (e) {
      errors.push(`policy ${policy.name} on ${table}: ${(e as Error).message}`);
    }
  }
  return { errors };
}

/** The catalog with its options' values for this run. */
function openPlanned(c: PhysicalCatalog, vars: Record<string, string | undefined>, baseDir: string): ReturnType<typeof openCatalogWith> {
  const values = Object.fromEntries(Object.entries(c.options).map(([k, v]) => [k, v.envVars.length > 0 ? substituteTemplate(v.text, vars) : v.text]));
  return openCatalogWith(c.name, c.type, values, baseDir);
}
