// Runs every compaction policy of a plan once against its Iceberg table (`pipec compact`).
// Failures are reported per policy as sentences naming the table and catalog, never as traces.
import type { PlanDoc } from '../../src/plan/ir.ts';
import { openCatalog } from './writer/catalogs/open-catalog.ts';
import { identFromName } from './writer/catalogs/catalog.ts';
import { IcebergTableWriter } from './writer/table-writer.ts';
import { runCompactionAction } from './writer/maintenance.ts';

export interface CompactionOutcome {
  errors: string[];
}

export async function runCompaction(plan: PlanDoc, baseDir: string, log: (line: string) => void): Promise<CompactionOutcome> {
  const errors: string[] = [];
  for (const policy of plan.compactions) {
    const found = plan.sinks.find((s) => s.name === policy.sink);
    const sink = found?.connector === 'iceberg' ? found : undefined;
    const catalogIr = plan.catalogs.find((c) => c.name === sink?.iceberg.catalog);
    if (!sink || !catalogIr) {
      errors.push(`policy ${policy.name}: sink ${policy.sink} is not an Iceberg sink with a declared catalog`);
      continue;
    }
    const table = `${catalogIr.name}.${sink.iceberg.table}`;
    try {
      const catalog = await openCatalog(catalogIr, baseDir);
      try {
        const writer = new IcebergTableWriter(catalog, identFromName(sink.iceberg.table));
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
