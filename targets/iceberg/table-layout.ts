// Builds the Iceberg view of one sink: schema (ids from the lock), partition spec with the
// spec's transforms, sort order, each appended to the lock's history when it changed.
import type { IrSinkOf } from '../../src/plan/ir.ts';
import { icebergField, type TypeMapContext } from './type-map.ts';
import { evolve, IdAssigner, ownId, type IdLock, type IcebergSchema, type PartitionSpec, type SortOrder } from './field-id-lock.ts';

export interface TableLayout {
  schemaId: number;
  specId: number;
  sortOrderId: number;
}

export interface LayoutProblem {
  kind: 'lossy-type' | 'unknown-column';
  path: string;
  detail: string;
}

export function transformString(transform: string, param: number | null): string {
  return param === null ? transform : `${transform}[${param}]`;
}

/** Iceberg's conventional partition field names (`ts_day`, `id_bucket_16`, `name_trunc_4`). */
export function partitionFieldName(column: string, transform: string, param: number | null): string {
  if (transform === 'identity') return column;
  return param === null ? `${column}_${transform}` : `${column}_${transform === 'truncate' ? 'trunc' : transform}_${param}`;
}

export function buildLayout(sink: IrSinkOf<'iceberg'>, lock: IdLock, problems: LayoutProblem[]): TableLayout {
  const ice = sink.iceberg;
  const ids = new IdAssigner(lock);
  const ctx: TypeMapContext = {
    formatVersion: ice.formatVersion,
    assign: (path) => ids.fieldId(path),
    lossy: (path, detail) => problems.push({ kind: 'lossy-type', path, detail }),
  };
  const fields = sink.schema.map((c) => icebergField(c.name, c.type, c.name, ctx));
  const schemaId = evolve<IcebergSchema>(lock.schemas, 'schema-id', { type: 'struct', fields });

  const sourceId = (column: string): number => {
    const id = ownId(lock.fieldIds, column);
    if (id === undefined || !sink.schema.some((c) => c.name === column)) {
      problems.push({ kind: 'unknown-column', path: column, detail: `column ${column} is not in the sink's schema` });
      return 0;
    }
    return id;
  };
  const specFields = ice.partitionBy.map((p) => {
    const transform = transformString(p.transform, p.param);
    return {
      'source-id': sourceId(p.column),
      'field-id': ids.partitionFieldId(`${transform}(${p.column})`),
      name: partitionFieldName(p.column, p.transform, p.param),
      transform,
    };
  });
  const specId = evolve<PartitionSpec>(lock.partitionSpecs, 'spec-id', { fields: specFields });
  const sortFields = ice.sortBy.map((s) => ({
    transform: 'identity',
    'source-id': sourceId(s.column),
    direction: s.direction,
    'null-order': s.nulls === 'first' ? ('nulls-first' as const) : ('nulls-last' as const),
  }));
  const sortOrderId = sortFields.length === 0 ? 0 : evolve<SortOrder>(lock.sortOrders, 'order-id', { fields: sortFields });
  return { schemaId, specId, sortOrderId };
}
