// Which outputs of a local run `pipec query` can read, and where they are: file sinks (NDJSON,
// Parquet) and Iceberg sinks of filesystem/sql catalogs, each named by its sink name. Kafka,
// ClickHouse and stdout sinks write nowhere a local query can read; they are listed so an error
// can say why a name is not queryable. Paths resolve as `pipec run` resolves them: against the
// spec's folder.
import { resolve } from 'node:path';
import type { IrCatalog, IrSink, PlanDoc } from '../plan/ir.ts';
import type { SqlType } from '../types/sql-type.ts';

export type LocalRelation =
  | { kind: 'ndjson'; pipeline: string; name: string; columns: QueryColumn[]; path: string }
  | { kind: 'parquet-dir'; pipeline: string; name: string; columns: QueryColumn[]; dir: string }
  | { kind: 'iceberg'; pipeline: string; name: string; columns: QueryColumn[]; catalog: IrCatalog; table: string; baseDir: string };

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

/** The queryable outputs of one compiled spec whose file lies in `specDir`. */
export function localRelations(plan: PlanDoc, specDir: string): QueryRelations {
  const relations: LocalRelation[] = [];
  const notQueryable: NotQueryable[] = [];
  const pipeline = plan.pipeline.name;
  for (const sink of plan.sinks) {
    const columns = sink.schema.map((c) => ({ name: c.name, type: c.type }));
    const base = { pipeline, name: sink.name, columns };
    const r = relationOf(sink, plan, specDir, base);
    if ('why' in r) notQueryable.push({ pipeline, name: sink.name, why: r.why });
    else relations.push(r);
  }
  return { relations, notQueryable };
}

type Base = { pipeline: string; name: string; columns: QueryColumn[] };

function relationOf(sink: IrSink, plan: PlanDoc, specDir: string, base: Base): LocalRelation | { why: string } {
  // The same defaults as the runtime's file sinks (targets/runtime/lib/io/sinks.ts).
  if (sink.connector === 'file') {
    const given = sink.options.path?.value;
    return sink.file.format === 'parquet'
      ? { kind: 'parquet-dir', ...base, dir: resolve(specDir, given ?? sink.name) }
      : { kind: 'ndjson', ...base, path: resolve(specDir, given ?? `${sink.name}.ndjson`) };
  }
  if (sink.connector === 'iceberg') {
    const catalog = plan.catalogs.find((c) => c.name === sink.iceberg.catalog);
    if (!catalog) return { why: `its catalog ${sink.iceberg.catalog} is not declared` };
    if (catalog.type === 'rest') return { why: `it is in the REST catalog ${catalog.name}; pipec query reads filesystem and sql catalogs` };
    return { kind: 'iceberg', ...base, catalog, table: sink.iceberg.table, baseDir: specDir };
  }
  return { why: `it is a ${sink.connector} sink, which writes nothing a local query can read` };
}
