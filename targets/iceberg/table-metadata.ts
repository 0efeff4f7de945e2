// Table metadata as the Iceberg table spec defines it (format version 2, or 3 on request):
// the document a catalog would hold right after CREATE TABLE, before the first snapshot.
// Deterministic: the UUID comes from the names, `last-updated-ms` is 0.
import type { PhysicalCatalog } from '../../src/plan/physical/types.ts';
import type { IcebergSinkInput } from './sink-input.ts';
import type { IdLock } from './field-id-lock.ts';
import type { TableLayout } from './table-layout.ts';
import { nameUuid } from './deterministic-uuid.ts';

/** `${PIPEC_WAREHOUSE}` stays a reference: generated files never hold machine values. */
export function tableLocation(catalog: PhysicalCatalog | undefined, table: string): string | null {
  const warehouse = catalog?.options['warehouse'];
  if (!warehouse) return null;
  const base = warehouse.text.replace(/\/+$/, '');
  return `${base}/${table.split('.').join('/')}`;
}

export function tableMetadata(
  pipeline: string,
  sink: IcebergSinkInput,
  catalog: PhysicalCatalog | undefined,
  lock: IdLock,
  layout: TableLayout,
  properties: Record<string, string>,
): Record<string, unknown> {
  const ice = sink.config;
  const meta: Record<string, unknown> = {
    'format-version': ice.formatVersion,
    'table-uuid': nameUuid(`${pipeline}/${ice.catalog}/${ice.table}`),
    location: tableLocation(catalog, ice.table) ?? `${ice.catalog}/${ice.table.split('.').join('/')}`,
    'last-sequence-number': 0,
    'last-updated-ms': 0,
    'last-column-id': lock.lastColumnId,
    'current-schema-id': layout.schemaId,
    schemas: lock.schemas,
    'default-spec-id': layout.specId,
    'partition-specs': lock.partitionSpecs,
    'last-partition-id': lock.lastPartitionId,
    'default-sort-order-id': layout.sortOrderId,
    'sort-orders': lock.sortOrders,
    properties,
    'current-snapshot-id': null,
    refs: {},
    snapshots: [],
    statistics: [],
    'snapshot-log': [],
    'metadata-log': [],
  };
  if (ice.formatVersion >= 3) meta['next-row-id'] = 0;
  return meta;
}

/** The body of `POST /v1/{prefix}/namespaces/{namespace}/tables` (Iceberg REST catalog). */
export function restCreateTableRequest(sink: IcebergSinkInput, lock: IdLock, layout: TableLayout, properties: Record<string, string>): Record<string, unknown> {
  const ice = sink.config;
  const name = ice.table.split('.').pop()!;
  return {
    name,
    schema: lock.schemas.find((s) => s['schema-id'] === layout.schemaId),
    'partition-spec': lock.partitionSpecs.find((s) => s['spec-id'] === layout.specId),
    'write-order': lock.sortOrders.find((s) => s['order-id'] === layout.sortOrderId),
    'stage-create': false,
    properties: { ...properties, 'format-version': String(ice.formatVersion) },
  };
}
