// `format = 'protobuf'`: Protobuf messages. With a registry schema (or none) values are in the
// Confluent wire format: the schema id names the writer's .proto, the message-index array the
// message in it. Each (schema id, message) gets a reduced message type of only the used
// fields, so protobufjs skips every other field on the wire; built once. With a `file:` schema
// values are plain Protobuf bytes of the compiled message (Flink's `protobuf` format).
import protobuf from 'protobufjs';
import type { ColumnDef } from '../io/source-types.ts';
import { HEADER_BYTES, readMessageIndexes, type FetchedSchema } from './confluent.ts';
import { BinaryDecoder } from './binary-decoder.ts';
import { base64, int64FromBits } from './values.ts';
import { FAIL, type Decoded } from './types.ts';

type Conv = (v: any) => unknown;
type Json = Record<string, unknown>;
const hasOwn = Object.prototype.hasOwnProperty;

const INT64 = new Set(['int64', 'sint64', 'sfixed64']);
const UINT64 = new Set(['uint64', 'fixed64']);

/** A 64-bit value as protobufjs gives it (Long, or a number without the long package). */
function long(unsigned: boolean): Conv {
  return (v) => (typeof v === 'number' ? v : int64FromBits(v.low, v.high, unsigned));
}
const toNumber = (v: unknown): number => Number(typeof v === 'number' ? v : int64FromBits((v as { low: number }).low, (v as { high: number }).high, false));

/** google.protobuf.Value (either field spelling: protobufjs' built-in camelCase or .proto snake_case). */
function jsonOfValue(v: any): unknown {
  if (v === null || v === undefined) return null;
  const pick = (a: string, b: string): unknown => (hasOwn.call(v, a) ? v[a] : hasOwn.call(v, b) ? v[b] : undefined);
  let x = pick('structValue', 'struct_value');
  if (x !== undefined) return jsonOfStruct(x);
  x = pick('listValue', 'list_value');
  if (x !== undefined) return ((x as { values?: unknown[] }).values ?? []).map(jsonOfValue);
  for (const [a, b] of [['stringValue', 'string_value'], ['numberValue', 'number_value'], ['boolValue', 'bool_value']] as const) {
    x = pick(a, b);
    if (x !== undefined) return x;
  }
  return null;
}
function jsonOfStruct(s: any): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries((s?.fields ?? {}) as Json)) out[k] = jsonOfValue(v);
  return out;
}

const WRAPPERS = new Set(['DoubleValue', 'FloatValue', 'Int64Value', 'UInt64Value', 'Int32Value', 'UInt32Value', 'BoolValue', 'StringValue', 'BytesValue'].map((n) => `google.protobuf.${n}`));

/**
 * How one value of a field becomes what the column readers take: enums by name, 64-bit
 * integers as the runtime's Int64, Timestamp as epoch ms, wrappers as their value, Struct and
 * friends as JSON text; nested messages as plain objects (bytes as base64 inside them).
 */
function valueConv(f: protobuf.Field, nested: boolean, seen: Map<protobuf.Type, Conv>): Conv {
  const rt = f.resolvedType;
  if (rt instanceof protobuf.Enum) {
    const names = rt.valuesById;
    return (n) => names[n] ?? String(n);
  }
  if (rt instanceof protobuf.Type) return messageConv(rt, seen);
  if (INT64.has(f.type)) return long(false);
  if (UINT64.has(f.type)) return long(true);
  if (f.type === 'bytes' && nested) return (b) => base64(b);
  return (v) => v;
}

function messageConv(t: protobuf.Type, seen: Map<protobuf.Type, Conv>): Conv {
  const full = t.fullName.replace(/^\./, '');
  if (full === 'google.protobuf.Timestamp') return (m) => (m === null ? null : toNumber(m.seconds ?? 0) * 1000 + Math.floor((m.nanos ?? 0) / 1e6));
  if (WRAPPERS.has(full)) {
    const inner = valueConv(t.fields.value!, false, seen);
    return (m) => (m === null ? null : inner(m.value));
  }
  if (full === 'google.protobuf.Struct') return (m) => (m === null ? null : JSON.stringify(jsonOfStruct(m)));
  if (full === 'google.protobuf.Value') return (m) => (m === null ? null : JSON.stringify(jsonOfValue(m)));
  if (full === 'google.protobuf.ListValue') return (m) => (m === null ? null : JSON.stringify((m.values ?? []).map(jsonOfValue)));
  const known = seen.get(t);
  if (known) return known;
  // Registered before the fields are built: recursive messages refer to themselves.
  let fields: [string, Conv][] = [];
  const conv: Conv = (m) => {
    if (m === null || m === undefined) return null;
    const out: Json = {};
    for (const [name, c] of fields) out[name] = c(m);
    return out;
  };
  seen.set(t, conv);
  fields = t.fieldsArray.map((f) => [f.name, fieldConv(f, f.name, true, seen)]);
  return conv;
}

/** Reads field `f` of a decoded message (presence → NULL when absent; repeated, maps). */
function fieldConv(f: protobuf.Field, name: string, nested: boolean, seen: Map<protobuf.Type, Conv>): Conv {
  f.resolve();
  const one = valueConv(f, nested, seen);
  if (f instanceof protobuf.MapField) {
    const key: (k: string) => string = INT64.has(f.keyType) || UINT64.has(f.keyType) ? (k) => String(long(UINT64.has(f.keyType))(protobuf.util.LongBits.fromHash(k).toLong(UINT64.has(f.keyType)))) : (k) => k;
    return (m) => {
      const o = m[name] as Json | undefined;
      const out: Json = {};
      if (o) for (const k of Object.keys(o)) out[key(k)] = one(o[k]);
      return out;
    };
  }
  if (f.repeated) return (m) => ((m[name] as unknown[] | undefined) ?? []).map(one);
  const presence = f.resolvedType instanceof protobuf.Type || f.partOf !== null || Boolean(f.hasPresence);
  if (presence) return (m) => (hasOwn.call(m, name) ? one(m[name]) : null);
  return (m) => one(m[name]);
}

/** The value a reader sees for a field the writer never wrote (proto3 defaults; NULL with presence). */
function absentValue(f: protobuf.Field): unknown {
  f.resolve();
  if (f instanceof protobuf.MapField) return {};
  if (f.repeated) return [];
  if (f.resolvedType instanceof protobuf.Type || f.partOf !== null || f.hasPresence) return null;
  if (f.resolvedType instanceof protobuf.Enum) {
    const e = f.resolvedType;
    return e.valuesById[0] ?? Object.keys(e.values)[0] ?? null;
  }
  const d = f.defaultValue ?? f.typeDefault;
  if (INT64.has(f.type) || UINT64.has(f.type)) return typeof d === 'number' ? d : d ? long(UINT64.has(f.type))(d) : 0;
  if (f.type === 'bytes') return '';
  return d;
}

// ------------------------------------------------------------------ projection

interface Projection {
  type: protobuf.Type;
  /** Per used column: its name and how to read it from the decoded reduced message. */
  cols: [string, Conv][];
  fail: string | null;
  what: string;
}

function findField(fields: readonly protobuf.Field[], name: string): protobuf.Field | undefined {
  return fields.find((f) => f.name === name) ?? fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
}

let reducedSeq = 0;

/** A message type of only the used fields, in the writer's root (so field types resolve). */
function project(w: protobuf.Type, cols: ColumnDef[], readerFields: readonly protobuf.Field[], what: string): Projection {
  const reduced = new protobuf.Type(`PipecProjection${++reducedSeq}`);
  const out: [string, Conv][] = [];
  const seen = new Map<protobuf.Type, Conv>();
  let fail: string | null = null;
  for (const c of cols) {
    if (c.meta !== undefined) continue;
    const wf = findField(w.fieldsArray, c.name);
    if (wf) {
      wf.resolve();
      const type = wf.resolvedType ? wf.resolvedType.fullName : wf.type;
      if (!reduced.fields[wf.name]) {
        // Never `required` here: a missing field is the column's NULL check, not a decode error.
        reduced.add(wf instanceof protobuf.MapField ? new protobuf.MapField(wf.name, wf.id, wf.keyType, type) : new protobuf.Field(wf.name, wf.id, type, wf.repeated ? 'repeated' : undefined));
      }
      out.push([c.name, fieldConv(wf, wf.name, false, seen)]);
      continue;
    }
    // Not in the writer's message: what a reader with the compiled schema sees (its default).
    const rf = findField(readerFields, c.name);
    const v = rf ? absentValue(rf) : null;
    if (v === null && !c.nullable) fail ??= `field '${c.name}' is not in ${what}, but the column is NOT NULL`;
    out.push([c.name, () => v]);
  }
  w.root.add(reduced);
  reduced.resolveAll();
  return { type: reduced, cols: out, fail, what };
}

// ------------------------------------------------------------------ writer schemas from the registry

/** protobufjs' built-in google/protobuf files by import name. */
function commonJson(name: string): Json | null {
  const c = protobuf.common.get(name) as { nested?: Json } | null;
  return c?.nested ?? null;
}

interface WriterSchema {
  id: number;
  /** The main file's top-level messages, in declaration order (message index 0, 1, ...). */
  top: protobuf.Type[];
  /** Reduced types per message-index path. */
  byPath: Map<string, Projection | string>;
}

function compileWriter(s: FetchedSchema): WriterSchema {
  if (s.main.schemaType !== 'PROTOBUF') throw new Error(`it is a ${s.main.schemaType} schema, not Protobuf`);
  const root = new protobuf.Root();
  const imports = protobuf.parse(s.main.schema, root, { keepCase: true }).imports ?? [];
  const top: protobuf.Type[] = [];
  const visit = (ns: protobuf.NamespaceBase): void => {
    for (const n of ns.nestedArray) {
      if (n instanceof protobuf.Type) top.push(n);
      else if (n instanceof protobuf.Namespace) visit(n);
    }
  };
  visit(root);
  const refs = new Map(s.references.map((r) => [r.name, r.schema.schema]));
  const done = new Set<string>();
  const queue = [...imports];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (done.has(name)) continue;
    done.add(name);
    const common = commonJson(name);
    if (common) {
      root.addJSON(common as Record<string, protobuf.AnyNestedObject>);
      continue;
    }
    const text = refs.get(name);
    if (text === undefined) throw new Error(`it imports ${name}, which is not among its references`);
    queue.push(...(protobuf.parse(text, root, { keepCase: true }).imports ?? []));
  }
  root.resolveAll();
  return { id: s.id, top, byPath: new Map() };
}

/** The message a message-index path names: top-level index, then nested message indexes. */
function messageAt(w: WriterSchema, indexes: number[]): protobuf.Type | null {
  let t = w.top[indexes[0]!] ?? null;
  for (let i = 1; i < indexes.length && t !== null; i++) t = t.nestedArray.filter((n): n is protobuf.Type => n instanceof protobuf.Type)[indexes[i]!] ?? null;
  return t;
}

// ------------------------------------------------------------------ the decoder

export interface ProtobufDecoderOptions {
  columns: ColumnDef[];
  /** The compiled schema (`{message, root}` JSON): reader defaults; the message of plain values. */
  schemaText: string | null;
  /** Confluent wire format with writer schemas from this registry; null: plain Protobuf bytes. */
  registryUrl: string | null;
}

export class ProtobufDecoder extends BinaryDecoder<WriterSchema> {
  private readonly plainProjection: Projection | null;
  private readonly readerFields: readonly protobuf.Field[];
  private readonly columns: ColumnDef[];

  constructor(opts: ProtobufDecoderOptions) {
    super(opts.registryUrl, compileWriter);
    this.columns = opts.columns;
    let readerType: protobuf.Type | null = null;
    if (opts.schemaText !== null) {
      const doc = JSON.parse(opts.schemaText) as { message: string; root: protobuf.INamespace };
      readerType = protobuf.Root.fromJSON(doc.root).lookupType(doc.message);
    }
    this.readerFields = readerType?.fieldsArray ?? [];
    if (opts.registryUrl === null) {
      if (readerType === null) throw new Error("plain Protobuf values need the schema's text");
      this.plainProjection = project(readerType, opts.columns, [], `message ${readerType.fullName.replace(/^\./, '')}`);
    } else this.plainProjection = null;
  }

  decode(value: Buffer | null): Decoded {
    if (value === null) return this.fail('null value (tombstone)');
    let p = this.plainProjection;
    let pos = 0;
    if (p === null) {
      const id = this.schemaIdOf(value);
      if (id === FAIL) return FAIL;
      const w = this.writer(id);
      if (w === FAIL) return FAIL;
      const ix = readMessageIndexes(value, HEADER_BYTES);
      if (typeof ix === 'string') return this.fail(ix);
      pos = ix.pos;
      const key = ix.indexes.length === 1 ? String(ix.indexes[0]) : ix.indexes.join('.');
      let pr = w.byPath.get(key);
      if (pr === undefined) {
        const t = messageAt(w, ix.indexes);
        const what = t ? `message ${t.fullName.replace(/^\./, '')} of writer schema id ${id}` : '';
        pr = t ? project(t, this.columns, this.readerFields, what) : `message index [${ix.indexes.join(', ')}] names no message of writer schema id ${id}`;
        w.byPath.set(key, pr);
      }
      if (typeof pr === 'string') return this.fail(pr);
      p = pr;
    }
    if (p.fail !== null) return this.fail(p.fail);
    let m: any;
    try {
      m = p.type.decode(pos === 0 ? value : value.subarray(pos));
    } catch (e) {
      return this.fail(`the Protobuf payload cannot be read as ${p.what}: ${(e as Error).message}`);
    }
    const out: Json = {};
    const cols = p.cols;
    for (let i = 0; i < cols.length; i++) out[cols[i]![0]] = cols[i]![1](m);
    return out;
  }
}
