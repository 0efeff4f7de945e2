// The one mapping table from SQL types to Iceberg types (table spec "Schemas and Data Types").
// Nested types need field ids for their children; `assign` hands them out from the lock.
import type { SqlType } from '../../src/plan/ir.ts';
import { assertNever } from '../../src/util/assert-never.ts';

import type { IcebergField, IcebergType } from '../runtime/lib/iceberg/writer/field-types.ts';
export type { IcebergField, IcebergType };

/** Primitive types by SQL kind; parameterised ones (decimal, timestamp) are handled below. */
const PRIMITIVES = {
  boolean: 'boolean',
  int: 'int',
  bigint: 'long',
  float: 'float',
  double: 'double',
  string: 'string',
  bytes: 'binary',
  date: 'date',
} as const;

export interface TypeMapContext {
  formatVersion: 2 | 3;
  /** Returns the id for a field path (stable across builds), assigning a new one if needed. */
  assign(path: string): number;
  /** Reports a type this format version cannot hold exactly. */
  lossy(path: string, what: string): void;
}

export function icebergType(t: SqlType, path: string, ctx: TypeMapContext): IcebergType {
  switch (t.kind) {
    case 'boolean':
    case 'int':
    case 'bigint':
    case 'float':
    case 'double':
    case 'string':
    case 'bytes':
    case 'date':
      return PRIMITIVES[t.kind];
    case 'decimal':
      return `decimal(${t.precision}, ${t.scale})`;
    case 'timestamp': {
      const base = t.ltz ? 'timestamptz' : 'timestamp';
      if (t.precision <= 6) return base;
      if (ctx.formatVersion >= 3) return `${base}_ns`;
      ctx.lossy(path, `TIMESTAMP precision ${t.precision} is stored as microseconds in format version 2`);
      return base;
    }
    case 'array':
      return {
        type: 'list',
        'element-id': ctx.assign(`${path}.element`),
        element: icebergType(t.element, `${path}.element`, ctx),
        'element-required': !t.element.nullable,
      };
    case 'map':
      return {
        type: 'map',
        'key-id': ctx.assign(`${path}.key`),
        key: icebergType(t.key, `${path}.key`, ctx),
        'value-id': ctx.assign(`${path}.value`),
        value: icebergType(t.value, `${path}.value`, ctx),
        'value-required': !t.value.nullable,
      };
    case 'row':
      return { type: 'struct', fields: t.fields.map((f) => icebergField(f.name, f.type, `${path}.${f.name}`, ctx)) };
    case 'interval':
    case 'null':
      // The checker never lets these reach a sink column; seeing one is a compiler bug.
      throw new Error(`internal: ${t.kind} type in an Iceberg sink column at ${path}`);
    default:
      return assertNever(t);
  }
}

export function icebergField(name: string, t: SqlType, path: string, ctx: TypeMapContext): IcebergField {
  return { id: ctx.assign(path), name, required: !t.nullable, type: icebergType(t, path, ctx) };
}
