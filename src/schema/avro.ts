// Avro schema → SQL columns. avsc parses and validates the schema (names, references,
// duplicates); the mapping itself is the two data tables below, walked over avsc's types.
import avro from 'avsc';
import { T, formatSqlType, type SqlType } from '../types/sql-type.ts';
import { joinPath, labelAtPointer, labelAtText, type MappedSchema, type SchemaOrigin, type TypeOf } from './origin.ts';
import type { SchemaField } from './schema-loader.ts';

/** Avro type → SQL type, for every Avro type that is not a container or a union. */
export const AVRO_TYPE_MAP: Readonly<Record<string, TypeOf>> = {
  boolean: T.boolean,
  int: T.int,
  long: T.bigint,
  float: T.float,
  double: T.double,
  bytes: T.bytes,
  string: T.string,
  fixed: T.bytes,
  // Enum symbols are read by name, as Flink does.
  enum: T.string,
};

interface LogicalAttrs {
  logicalType: string;
  precision?: unknown;
  scale?: unknown;
  size?: unknown;
}

/** A logical type: which underlying types carry it, and its SQL type (or why it is invalid). */
interface LogicalRule {
  on: readonly string[];
  map: (a: LogicalAttrs) => SqlType | { invalid: string };
}

/**
 * Avro logical type → SQL type. Both timestamp flavours map to TIMESTAMP(p) (no zone, read as
 * UTC): Flink's default ("legacy") Avro mapping, and what LANGUAGE.md's `order_ts TIMESTAMP(3)`
 * over an Avro registry schema expects. pipec has no TIME type: time-* read as their integer.
 * Unknown logical types fall through to the underlying type, as the Avro spec requires.
 */
export const AVRO_LOGICAL_MAP: Readonly<Record<string, LogicalRule>> = {
  decimal: { on: ['bytes', 'fixed'], map: decimalType },
  date: { on: ['int'], map: () => T.date(false) },
  'time-millis': { on: ['int'], map: () => T.int(false) },
  'time-micros': { on: ['long'], map: () => T.bigint(false) },
  'timestamp-millis': { on: ['long'], map: () => T.timestamp(3, false) },
  'timestamp-micros': { on: ['long'], map: () => T.timestamp(6, false) },
  'timestamp-nanos': { on: ['long'], map: () => T.timestamp(9, false) },
  'local-timestamp-millis': { on: ['long'], map: () => T.timestamp(3, false) },
  'local-timestamp-micros': { on: ['long'], map: () => T.timestamp(6, false) },
  'local-timestamp-nanos': { on: ['long'], map: () => T.timestamp(9, false) },
  uuid: { on: ['string', 'fixed'], map: () => T.string(false) },
};

function decimalType(a: LogicalAttrs): SqlType | { invalid: string } {
  const p = a.precision;
  const s = a.scale ?? 0;
  if (typeof p !== 'number' || !Number.isInteger(p) || p < 1) return { invalid: 'precision must be a positive integer' };
  if (typeof s !== 'number' || !Number.isInteger(s) || s < 0 || s > p) return { invalid: 'scale must be an integer from 0 to precision' };
  if (typeof a.size === 'number') {
    // The largest number of decimal digits a signed two's-complement value of `size` bytes holds.
    const maxDigits = Math.floor(Math.log10(2) * (8 * a.size - 1));
    if (p > maxDigits) return { invalid: `precision ${p} does not fit in fixed(${a.size}) (at most ${maxDigits} digits)` };
  }
  return T.decimal(p, s, false);
}

// avsc drops the attributes of logical types it does not know; this placeholder implementation
// keeps them so the table above decides. Values are never encoded here, only schemas read.
class KeepAttrs extends avro.types.LogicalType {
  readonly attrs: LogicalAttrs;
  constructor(schema: any, opts?: any) {
    super(schema, opts);
    this.attrs = schema as LogicalAttrs;
  }
  override _fromValue(v: unknown): unknown {
    return v;
  }
  override _toValue(v: unknown): unknown {
    return v;
  }
}
const keepAll = new Proxy({}, { get: () => KeepAttrs, has: () => true }) as Record<string, typeof KeepAttrs>;

/**
 * Parses an Avro schema document (already JSON-parsed) and maps its top-level record.
 * `references` are documents of named types the main schema uses (registry references),
 * in dependency order. `origin.text`, when set, places labels inside the schema file.
 */
export function mapAvro(doc: unknown, origin: SchemaOrigin, references: unknown[] = []): MappedSchema | null {
  const registry: Record<string, avro.Type> = {};
  let type: avro.Type;
  try {
    for (const r of references) avro.Type.forSchema(r as avro.Schema, { registry, logicalTypes: keepAll });
    type = avro.Type.forSchema(doc as avro.Schema, { registry, logicalTypes: keepAll });
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    // avsc names the offending token but not where it is; the first use of the name is.
    const name = /undefined type name: (\S+)/.exec(detail)?.[1];
    origin.diags.report('schema-invalid', origin.optionSpan, { path: origin.display, detail }, name ? labelAtText(origin, `"${name}"`, 'not defined') : {});
    return null;
  }
  // A logicalType on the record itself means nothing to Avro: ignored, as the spec says.
  if (type instanceof KeepAttrs) type = (type as unknown as { underlyingType: avro.Type }).underlyingType;
  if (type.typeName !== 'record' && type.typeName !== 'error') {
    origin.diags.report(
      'schema-invalid',
      origin.optionSpan,
      { path: origin.display, detail: `the top-level Avro type is ${type.typeName}; a source needs a record` },
      labelAtPointer(origin, '', 'not a record'),
    );
    return null;
  }
  const errorsBefore = origin.diags.errorCount();
  const walker = new AvroWalker(origin);
  const row = walker.record(type as avro.types.RecordType, '', false, { raw: doc, pointer: '' });
  if (origin.diags.errorCount() > errorsBefore || row.kind !== 'row') return null;
  return { fields: row.fields as SchemaField[], canonicalText: JSON.stringify(doc) };
}

/**
 * Where a type is written in the document, to label errors: the raw JSON and its pointer.
 * A named type used by name (`"Address"`) has its definition elsewhere: below it, no labels.
 */
interface Written {
  raw: unknown;
  pointer: string | null;
}
const NOWHERE: Written = { raw: undefined, pointer: null };
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
function inside(w: Written, key: string | number): Written {
  if (w.pointer === null) return NOWHERE;
  const raw = Array.isArray(w.raw) && typeof key === 'number' ? w.raw[key] : isObj(w.raw) ? w.raw[String(key)] : undefined;
  return raw === undefined ? NOWHERE : { raw, pointer: `${w.pointer}/${key}` };
}

class AvroWalker {
  private readonly inProgress: string[] = [];
  constructor(private readonly origin: SchemaOrigin) {}

  record(t: avro.types.RecordType, path: string, nullable: boolean, at: Written): SqlType {
    const name = t.name ?? '(anonymous record)';
    if (this.inProgress.includes(name)) {
      this.origin.diags.report('schema-recursive-type', this.origin.optionSpan, { path: path || name, typeName: name }, labelAtPointer(this.origin, at.pointer, 'the record again'));
      return T.bytes(nullable);
    }
    this.inProgress.push(name);
    const fields = t.fields.map((f, i) => ({ name: f.name, type: this.type(f.type, joinPath(path, f.name), inside(inside(inside(at, 'fields'), i), 'type')) }));
    this.inProgress.pop();
    return T.row(fields, nullable);
  }

  type(t: avro.Type, path: string, at: Written): SqlType {
    const tn = t.typeName;
    if (t instanceof KeepAttrs) return this.logical(t, path, at);
    if (tn === 'union:unwrapped' || tn === 'union:wrapped') return this.union(t as avro.types.UnwrappedUnionType, path, at);
    if (tn === 'record' || tn === 'error') return this.record(t as avro.types.RecordType, path, false, at);
    if (tn === 'array') return T.array(this.type((t as avro.types.ArrayType).itemsType, `${path}[]`, inside(at, 'items')), false);
    if (tn === 'map') return T.map(T.string(false), this.type((t as avro.types.MapType).valuesType, `${path}{}`, inside(at, 'values')), false);
    const f = Object.hasOwn(AVRO_TYPE_MAP, tn) ? AVRO_TYPE_MAP[tn] : undefined;
    if (f) return f(false);
    // Only `null` on its own is left: a field that is always null carries nothing to select.
    this.origin.diags.report('avro-union-unsupported', this.origin.optionSpan, { path, branches: '"null" alone' }, labelAtPointer(this.origin, at.pointer, 'always null'));
    return T.null();
  }

  private union(u: avro.types.UnwrappedUnionType, path: string, at: Written): SqlType {
    const branches = u.types;
    const nonNull = branches.map((b, i) => [b, i] as const).filter(([b]) => b.typeName !== 'null');
    if (nonNull.length === 1 && branches.length === 2) {
      const [b, i] = nonNull[0]!;
      return { ...this.type(b, path, inside(at, i)), nullable: true } as SqlType;
    }
    const names = branches.map((b) => `"${(b as { name?: string }).name ?? b.typeName.replace(/^logical:/, '')}"`).join(', ');
    this.origin.diags.report('avro-union-unsupported', this.origin.optionSpan, { path, branches: `[${names}]` }, labelAtPointer(this.origin, at.pointer, 'this union'));
    return T.bytes(true);
  }

  private logical(t: KeepAttrs, path: string, at: Written): SqlType {
    const under = (t as unknown as { underlyingType: avro.Type }).underlyingType;
    const attrs = t.attrs;
    const underName = under.typeName;
    const plain = (): SqlType => this.type(under, path, NOWHERE);
    const rule = AVRO_LOGICAL_MAP[attrs.logicalType];
    if (!rule) return plain();
    const warn = (reason: string): SqlType => {
      const mapped = plain();
      this.origin.diags.report(
        'avro-logical-type-ignored',
        this.origin.optionSpan,
        { path, logicalType: attrs.logicalType, reason, underlying: formatSqlType(mapped, false) },
        labelAtPointer(this.origin, inside(at, 'logicalType').pointer, 'ignored'),
      );
      return mapped;
    };
    if (!rule.on.includes(underName)) return warn(`it applies to ${rule.on.join(' or ')}, not ${underName}`);
    const size = underName === 'fixed' ? (under as avro.types.FixedType).size : undefined;
    const r = rule.map({ ...attrs, size });
    return 'invalid' in r ? warn(r.invalid) : r;
  }
}
