// Binds an Iceberg sink to its table: opens the catalog, loads the table (creating it from the
// generated metadata when missing), checks the sink's columns against the table's current
// schema, which is the truth (columns matched by name, types equal or safely promoted), and
// converts runtime rows to the writer's value model. Errors name sink, table and catalog,
// with credentials redacted.
import { randomUUID } from 'node:crypto';
import type { Row } from '../ops/types.ts';
import type { SinkDef } from '../io/sinks.ts';
import type { IcebergSinkSpec } from './spec.ts';
import type { Catalog, LoadedTable } from './writer/catalogs/catalog.ts';
import { identFromName } from './writer/catalogs/catalog.ts';
import { openCatalogWith } from './writer/catalogs/open-catalog.ts';
import { IcebergTableWriter } from './writer/table-writer.ts';
import { currentSchemaFields, type TableMetadata } from './writer/metadata-json.ts';
import type { IcebergField, IcebergType } from './writer/field-types.ts';

/** A message for the user: the runner prints `stack`, which is the message alone. */
export class IcebergSinkError extends Error {
  constructor(message: string) {
    super(message);
    this.stack = message;
  }
}

/** `scheme://user:secret@host` → `scheme://user:***@host`. */
export function redactUri(uri: string): string {
  return uri.replace(/(\/\/[^/:@\s]*):[^@/\s]*@/g, '$1:***@');
}

/** Says which sink, table and catalog an error is about, with every secret option blanked out. */
export class SinkLabel {
  private readonly secrets: string[];
  constructor(
    readonly sink: string,
    readonly spec: IcebergSinkSpec,
  ) {
    const o = spec.catalog?.options ?? {};
    this.secrets = [o.token, o.credential, o.password, ...Object.values(o).map((v) => /\/\/[^/:@\s]*:([^@/\s]+)@/.exec(v)?.[1])]
      .filter((s): s is string => typeof s === 'string' && s.length >= 3);
  }

  catalogText(): string {
    const c = this.spec.catalog;
    if (!c) return 'no catalog';
    const where = c.options.uri ?? c.options.warehouse;
    return `${c.type} catalog '${c.name}'${where ? ` at ${redactUri(where)}` : ''}`;
  }

  scrub(text: string): string {
    let t = redactUri(text);
    for (const s of this.secrets) t = t.split(s).join('***');
    return t;
  }

  error(what: string, cause?: unknown): IcebergSinkError {
    const detail = cause === undefined ? '' : `: ${cause instanceof Error ? cause.message : String(cause)}`;
    return new IcebergSinkError(this.scrub(`Iceberg sink '${this.sink}' (table ${this.spec.table}, ${this.catalogText()}): ${what}${detail}`));
  }
}

export interface BoundTable {
  catalog: Catalog;
  writer: IcebergTableWriter;
  loaded: LoadedTable;
  /** Runtime row → writer row (object keyed by the table's field names). */
  toRecord(row: Row): Record<string, unknown>;
  /** Table field names of the upsert key columns, in key order. */
  keyFields: string[];
}

/** Iceberg types without field ids, for comparing nested types structurally. */
function shape(t: IcebergType): unknown {
  if (typeof t === 'string') return t.replace(/\s+/g, '');
  if (t.type === 'struct') return { struct: t.fields.map((f) => [f.name, f.required, shape(f.type)]) };
  if (t.type === 'list') return { list: shape(t.element), req: t['element-required'] };
  return { map: [shape(t.key), shape(t.value)], req: t['value-required'] };
}

/** Null when the sink's type may be written into the table's type, else why not. */
function incompatibility(sinkType: IcebergType, tableType: IcebergType): string | null {
  const a = shape(sinkType);
  const b = shape(tableType);
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (typeof a === 'string' && typeof b === 'string') {
    if ((a === 'int' && b === 'long') || (a === 'float' && b === 'double')) return null;
    const da = /^decimal\((\d+),(\d+)\)$/.exec(a);
    const db = /^decimal\((\d+),(\d+)\)$/.exec(b);
    if (da && db && da[2] === db[2] && Number(db[1]) >= Number(da[1])) return null;
  }
  return `the sink writes ${typeof a === 'string' ? a : JSON.stringify(a)}, the table holds ${typeof b === 'string' ? b : JSON.stringify(b)}`;
}

/** Per sink column: runtime value → writer value (the writer's model is in writer/values.ts). */
function converter(kind: string, tableType: IcebergType): (v: unknown) => unknown {
  // DECIMAL is a scaled integer in the runtime; the writer takes the unscaled value as a bigint.
  if (kind === 'decimal') return (v) => (v === null || v === undefined ? null : BigInt(v as number | bigint));
  const bytes = bytesDecoder(tableType);
  if (bytes) return (v) => (v === null || v === undefined ? null : bytes(v));
  return (v) => (v === undefined ? null : v);
}

/**
 * The runtime carries BYTES as base64 text (as Flink's JSON format reads them); the table
 * stores the bytes. Null when `t` holds no binary anywhere (values pass through unchanged).
 */
export function bytesDecoder(t: IcebergType): ((v: unknown) => unknown) | null {
  if (typeof t === 'string') {
    if (t !== 'binary') return null;
    return (v) => (typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : v);
  }
  const orNull = (f: ((v: unknown) => unknown) | null) => (f ? (v: unknown) => (v === null || v === undefined ? null : f(v)) : null);
  if (t.type === 'struct') {
    const parts = t.fields.map((f) => [f.name, orNull(bytesDecoder(f.type))] as const).filter(([, f]) => f !== null);
    if (!parts.length) return null;
    return (v) => {
      const o = { ...(v as Record<string, unknown>) };
      for (const [name, f] of parts) o[name] = f!(o[name]);
      return o;
    };
  }
  if (t.type === 'list') {
    const el = orNull(bytesDecoder(t.element));
    return el ? (v) => (v as unknown[]).map(el) : null;
  }
  const key = orNull(bytesDecoder(t.key));
  const val = orNull(bytesDecoder(t.value));
  if (!key && !val) return null;
  const k = key ?? ((x: unknown) => x);
  const w = val ?? ((x: unknown) => x);
  return (v) => {
    const entries = v instanceof Map ? [...v.entries()] : Object.entries(v as Record<string, unknown>);
    return new Map(entries.map(([a, b]) => [k(a), w(b)]));
  };
}

export async function bindTable(def: SinkDef, spec: IcebergSinkSpec, baseDir: string, label: SinkLabel): Promise<BoundTable> {
  const c = spec.catalog!;
  let catalog: Catalog;
  try {
    catalog = await openCatalogWith(c.name, c.type, c.options, baseDir);
  } catch (e) {
    throw label.error('cannot open the catalog', e);
  }
  try {
    const ident = identFromName(spec.table);
    const writer = new IcebergTableWriter(catalog, ident);
    let loaded: LoadedTable;
    try {
      // A fresh UUID per created table: a dropped and re-created table is another table.
      loaded = await writer.ensureTable({ ...spec.metadata, location: '', 'table-uuid': randomUUID() } as TableMetadata);
    } catch (e) {
      throw label.error('cannot load or create the table', e);
    }
    const tableFields = currentSchemaFields(loaded.metadata);
    const sinkFields = currentSchemaFields(spec.metadata);
    const byName = (name: string): IcebergField | undefined =>
      tableFields.find((f) => f.name === name) ?? tableFields.find((f) => f.name.toLowerCase() === name.toLowerCase());
    const cols = def.columns.map((col, idx) => {
      const tf = byName(col.name);
      if (!tf) throw label.error(`column ${col.name} is not in the table's schema (columns: ${tableFields.map((f) => f.name).join(', ')})`);
      const sf = sinkFields.find((f) => f.name === col.name);
      const why = sf ? incompatibility(sf.type, tf.type) : null;
      if (why) throw label.error(`column ${col.name} has an incompatible type: ${why}`);
      if (tf.required && col.nullable) throw label.error(`column ${col.name} is nullable in the sink but required in the table`);
      return { field: tf.name, idx, conv: converter(col.kind, tf.type) };
    });
    const missingRequired = tableFields.filter((f) => f.required && !cols.some((x) => x.field === f.name));
    if (missingRequired.length) throw label.error(`the table requires column ${missingRequired[0]!.name}, which the sink does not write`);
    const absent = tableFields.filter((f) => !cols.some((x) => x.field === f.name)).map((f) => f.name);
    const keyFields = (spec.upsertKey ?? []).map((k) => {
      const col = cols.find((x) => def.columns[x.idx]!.name === k);
      if (!col) throw label.error(`upsert key column ${k} is not a sink column`);
      return col.field;
    });
    const toRecord = (row: Row): Record<string, unknown> => {
      const o: Record<string, unknown> = {};
      for (const x of cols) o[x.field] = x.conv(row[x.idx]);
      for (const n of absent) o[n] = null;
      return o;
    };
    return { catalog, writer, loaded, toRecord, keyFields };
  } catch (e) {
    await catalog.close().catch(() => undefined);
    throw e;
  }
}
