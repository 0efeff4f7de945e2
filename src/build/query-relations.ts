// Which outputs of a local run `pipec query` can read, and where they are: file sinks (NDJSON,
// Parquet) and Iceberg sinks of filesystem/sql catalogs, each named by its sink name. Kafka,
// ClickHouse and stdout sinks write nowhere a local query can read; they are listed so an error
// can say why a name is not queryable. Paths resolve as `pipec run` resolves them: against the
// spec's folder.
import { resolve } from 'node:path';
import type { PlanDoc } from '../plan/ir.ts';
import type { PhysicalCatalog, PhysicalPlan, PhysicalSink } from '../plan/physical/types.ts';
import { lowerPlan } from '../plan/physical/lower.ts';
import type { SqlType } from '../types/sql-type.ts';
import { substituteTemplate } from '../util/env-template.ts';
import type { CatalogSpec } from '../../targets/runtime/lib/iceberg/writer/catalogs/open-catalog.ts';

export type LocalRelation =
  | { kind: 'ndjson'; pipeline: string; name: string; columns: QueryColumn[]; path: string }
  | { kind: 'parquet-dir'; pipeline: string; name: string; columns: QueryColumn[]; dir: string }
  | { kind: 'iceberg'; pipeline: string; name: string; columns: QueryColumn[]; catalog: CatalogSpec; table: string; baseDir: string };

export interface QueryColumn {
  name: string;
  type: SqlType;
}

export interface NotQueryable {
  pipeline: string;
  name: string;
  why: string;
}

export interface QueryRelations {
  relations: LocalRelation[];
  notQueryable: NotQueryable[];
}

/**
 * The queryable outputs of one compiled spec whose file lies in `specDir`, read from its physical
 * plan (the resolved configs `pipec run` runs); `${VAR}`s resolve from `vars`, the run's values.
 */
export function localRelations(plan: PlanDoc, specDir: string, vars: Record<string, string | undefined>): QueryRelations {
  const relations: LocalRelation[] = [];
  const notQueryable: NotQueryable[] = [];
  const pipeline = plan.pipeline.name;
  const physical = lowerPlan(plan);
  for (const sink of plan.sinks) {
    const columns = sink.schema.map((c) => ({ name: c.name, type: c.type }));
    const base = { pipeline, name: sink.name, columns };
    const planned = physical.sinks.find((s) => s.name === sink.name)!;
    const r = relationOf(planned, physical, specDir, vars, base);
    if ('why' in r) notQueryable.push({ pipeline, name: sink.name, why: r.why });
    else relations.push(r);
  }
  return { relations, notQueryable };
}

type Base = { pipeline: string; name: string; columns: QueryColumn[] };

function relationOf(sink: PhysicalSink, physical: PhysicalPlan, specDir: string, vars: Record<string, string | undefined>, base: Base): LocalRelation | { why: string } {
  const c = sink.config;
  if (c.connector === 'file') {
    // The resolved path, as the runtime's file sink opens it (relative to the spec's folder).
    const path = resolve(specDir, c.templated.includes('path') ? substituteTemplate(c.path, vars) : c.path);
    return c.format === 'parquet' ? { kind: 'parquet-dir', ...base, dir: path } : { kind: 'ndjson', ...base, path };
  }
  if (c.connector === 'iceberg') {
    const catalog = physical.catalogs.find((k) => k.name === c.catalog);
    if (!catalog) return { why: `its catalog ${c.catalog} is not declared` };
    if (catalog.type === 'rest') return { why: `it is in the REST catalog ${catalog.name}; pipec query reads filesystem and sql catalogs` };
    return { kind: 'iceberg', ...base, catalog: catalogFor(catalog, vars), table: c.table, baseDir: specDir };
  }
  return { why: `it is a ${c.connector} sink, which writes nothing a local query can read` };
}

/** The catalog with its options' values for this query, as `pipec compact` opens it. */
function catalogFor(c: PhysicalCatalog, vars: Record<string, string | undefined>): CatalogSpec {
  const value = (v: PhysicalCatalog['options'][string]): string => (v.envVars.length > 0 ? substituteTemplate(v.text, vars) : v.text);
  return { name: c.name, type: c.type, options: Object.fromEntries(Object.entries(c.options).map(([k, v]) => [k, { value: value(v) }])) };
}
