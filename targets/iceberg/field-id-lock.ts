// The lock of assigned Iceberg ids, kept next to the generated files and read back on every
// build: a column keeps its field id for life, a new column gets the next id, and a removed
// id is never reused. It also keeps the history of schemas, partition specs and sort orders,
// so the generated metadata shows a real Iceberg schema evolution between spec versions.
import type { IcebergField } from './type-map.ts';

export interface IcebergSchema {
  type: 'struct';
  'schema-id': number;
  fields: IcebergField[];
}

import type { PartitionFieldSpec } from '../runtime/lib/iceberg/writer/field-types.ts';
export type { PartitionFieldSpec };

export interface PartitionSpec {
  'spec-id': number;
  fields: PartitionFieldSpec[];
}

export interface SortOrder {
  'order-id': number;
  fields: { transform: string; 'source-id': number; direction: 'asc' | 'desc'; 'null-order': 'nulls-first' | 'nulls-last' }[];
}

export interface IdLock {
  lockVersion: 1;
  table: string;
  /** Column path (`a`, `a.b`, `tags.element`) → field id. */
  fieldIds: Record<string, number>;
  lastColumnId: number;
  /** Partition field key (`day(window_start)`) → partition field id (1000+). */
  partitionFieldIds: Record<string, number>;
  lastPartitionId: number;
  schemas: IcebergSchema[];
  partitionSpecs: PartitionSpec[];
  sortOrders: SortOrder[];
}

export function emptyLock(table: string): IdLock {
  return {
    lockVersion: 1,
    table,
    fieldIds: {},
    lastColumnId: 0,
    partitionFieldIds: {},
    // The spec starts partition field ids at 1000.
    lastPartitionId: 999,
    schemas: [],
    partitionSpecs: [],
    sortOrders: [{ 'order-id': 0, fields: [] }],
  };
}

export function parseLock(text: string | null, table: string): IdLock {
  if (text === null) return emptyLock(table);
  const lock = JSON.parse(text) as IdLock;
  if (lock.lockVersion !== 1 || lock.table !== table) return emptyLock(table);
  return lock;
}

export class IdAssigner {
  constructor(private readonly lock: IdLock) {}

  fieldId(path: string): number {
    const known = ownId(this.lock.fieldIds, path);
    if (known !== undefined) return known;
    const id = ++this.lock.lastColumnId;
    setOwnId(this.lock.fieldIds, path, id);
    return id;
  }

  partitionFieldId(key: string): number {
    const known = ownId(this.lock.partitionFieldIds, key);
    if (known !== undefined) return known;
    const id = ++this.lock.lastPartitionId;
    setOwnId(this.lock.partitionFieldIds, key, id);
    return id;
  }
}

/**
 * The id stored for a column path. Paths are user names, so `constructor` or `__proto__` must
 * not reach Object.prototype (a plain `ids[path]` read returns a function for `constructor`).
 */
export function ownId(ids: Record<string, number>, path: string): number | undefined {
  return Object.hasOwn(ids, path) ? ids[path] : undefined;
}

/** Stores an id as an own property: `ids['__proto__'] = 1` would be dropped by the setter. */
function setOwnId(ids: Record<string, number>, path: string, id: number): void {
  Object.defineProperty(ids, path, { value: id, enumerable: true, writable: true, configurable: true });
}

/** Appends `candidate` as a new version when it differs from the latest; returns its id. */
export function evolve<T extends object>(history: T[], idKey: keyof T, candidate: Omit<T, typeof idKey>): number {
  const same = (a: object, b: object): boolean => JSON.stringify(a) === JSON.stringify(b);
  const strip = (x: T): object => {
    const { [idKey]: _drop, ...rest } = x;
    return rest;
  };
  const latest = history[history.length - 1];
  if (latest && same(strip(latest), candidate)) return latest[idKey] as number;
  const match = history.find((h) => same(strip(h), candidate));
  if (match) return match[idKey] as number;
  const nextId = history.length === 0 ? 0 : Math.max(...history.map((h) => h[idKey] as number)) + 1;
  history.push({ [idKey]: nextId, ...candidate } as T);
  return nextId;
}
