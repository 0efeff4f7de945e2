// JSON Schema → SQL columns. ajv checks the document against its meta-schema; the mapping is
// the data tables below, walked over the top-level object's properties.
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { T, type SqlType } from '../types/sql-type.ts';
import { joinPath, labelAtPointer, type MappedSchema, type SchemaOrigin, type TypeOf } from './origin.ts';
import type { SchemaField } from './schema-loader.ts';

/** JSON Schema `type` → SQL type, for the scalar types. */
export const JSON_SCHEMA_TYPE_MAP: Readonly<Record<string, TypeOf>> = {
  string: T.string,
  integer: T.bigint,
  number: T.double,
  boolean: T.boolean,
};

/** `format` of a `string` → SQL type; any other format (uuid, email, uri, time) stays STRING. */
export const JSON_SCHEMA_STRING_FORMAT_MAP: Readonly<Record<string, TypeOf>> = {
  'date-time': (n) => T.timestampLtz(3, n),
  date: T.date,
};

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

interface MetaValidator {
  validateSchema(s: object): boolean | Promise<unknown>;
  errors?: { instancePath: string; message?: string }[] | null;
}
// Compiling a meta-schema costs tens of milliseconds: one validator per draft per process.
const validators = new Map<string, MetaValidator>();

/** Draft 2019-09 and 2020-12 have their own meta-schemas; older drafts validate as draft-07. */
function metaValidator(doc: Json): MetaValidator {
  const s = typeof doc.$schema === 'string' ? doc.$schema : '';
  const draft = s.includes('2020-12') ? '2020-12' : s.includes('2019-09') ? '2019-09' : 'draft-07';
  let v = validators.get(draft);
  if (!v) {
    v = draft === '2020-12' ? new Ajv2020({ strict: false }) : draft === '2019-09' ? new Ajv2019({ strict: false }) : new Ajv({ strict: false });
    validators.set(draft, v);
  }
  return v;
}

/**
 * Validates and maps a JSON Schema document. `references` are other documents by the name
 * a `$ref` uses for them (registry references).
 */
export function mapJsonSchema(doc: unknown, text: string, origin: SchemaOrigin, references: Record<string, unknown> = {}): MappedSchema | null {
  if (!isObj(doc)) {
    origin.diags.report('schema-invalid', origin.optionSpan, { path: origin.display, detail: 'a JSON Schema document must be an object' });
    return null;
  }
  const withText: SchemaOrigin = { ...origin, text };
  const ajv = metaValidator(doc);
  let valid = true;
  try {
    valid = ajv.validateSchema(doc) === true;
  } catch {
    // A meta-schema ajv does not bundle (draft-04): the mapping below still checks what it uses.
  }
  if (!valid && ajv.errors?.length) {
    // The first error is the most specific one (ajv reports the leaf before its anyOf parent).
    const e = ajv.errors[0]!;
    origin.diags.report(
      'schema-invalid',
      origin.optionSpan,
      { path: origin.display, detail: `at ${e.instancePath || '/'}: ${e.message ?? 'invalid'}` },
      labelAtPointer(withText, e.instancePath, e.message ?? 'invalid'),
    );
    return null;
  }
  const errorsBefore = origin.diags.errorCount();
  const walker = new JsonSchemaWalker(doc, references, withText);
  const top = walker.resolve(doc, '(root)', '');
  if (!top) return null;
  if (!isObj(top.node.properties)) {
    origin.diags.report('json-schema-unsupported', origin.optionSpan, {
      path: origin.display,
      detail: 'the top-level schema must be an object with "properties" (one property per column)',
    });
    return null;
  }
  const row = walker.object(top.node, '', false, top.pointer);
  if (origin.diags.errorCount() > errorsBefore || row.kind !== 'row') return null;
  return { fields: row.fields as SchemaField[], canonicalText: JSON.stringify(doc) };
}

/** A subschema and the JSON pointer of where it is written (null: in another document). */
interface At {
  node: Json;
  pointer: string | null;
}

const child = (p: string | null, ...keys: string[]): string | null =>
  p === null ? null : p + keys.map((k) => '/' + k.replace(/~/g, '~0').replace(/\//g, '~1')).join('');

class JsonSchemaWalker {
  private readonly refStack: string[] = [];
  constructor(
    private readonly rootDoc: Json,
    private readonly references: Record<string, unknown>,
    private readonly origin: SchemaOrigin,
  ) {}

  private unsupported(path: string, detail: string, pointer: string | null): SqlType {
    this.origin.diags.report(
      'json-schema-unsupported',
      this.origin.optionSpan,
      { path: `${this.origin.display}#${path || '(root)'}`, detail },
      labelAtPointer(this.origin, pointer, 'no SQL type for this'),
    );
    return T.string(true);
  }

  /** Follows `$ref` chains: local pointers (`#/$defs/x`) and registry references by name. */
  resolve(s: Json, path: string, pointer: string | null): At | null {
    let cur: At = { node: s, pointer };
    for (let hops = 0; typeof cur.node.$ref === 'string'; hops++) {
      const ref = cur.node.$ref;
      if (hops > 32 || this.refStack.includes(ref)) {
        this.origin.diags.report(
          'schema-recursive-type',
          this.origin.optionSpan,
          { path: path || '(root)', typeName: ref },
          labelAtPointer(this.origin, child(cur.pointer, '$ref'), 'refers back to a schema it is inside of'),
        );
        return null;
      }
      const hash = ref.indexOf('#');
      const docName = hash < 0 ? ref : ref.slice(0, hash);
      const fragment = hash < 0 ? '' : ref.slice(hash + 1);
      const doc = docName === '' ? this.rootDoc : this.references[docName];
      const target = doc === undefined ? undefined : followPointer(doc, fragment);
      if (!isObj(target)) {
        this.unsupported(path, `$ref '${ref}' points at nothing pipec can read`, child(cur.pointer, '$ref'));
        return null;
      }
      cur = { node: target, pointer: docName === '' ? decodeURIComponent(fragment) : null };
    }
    return cur;
  }

  object(s: Json, path: string, nullable: boolean, pointer: string | null): SqlType {
    const props = s.properties as Record<string, unknown>;
    const required = Array.isArray(s.required) ? (s.required as unknown[]) : [];
    const fields = Object.entries(props).map(([name, sub]) => ({
      name,
      type: this.property(sub, joinPath(path, name), required.includes(name), child(pointer, 'properties', name)),
    }));
    return T.row(fields, nullable);
  }

  /** The SQL type of a subschema; `required` says whether absence is impossible. */
  property(raw: unknown, path: string, required: boolean, pointer: string | null): SqlType {
    if (raw === true || (isObj(raw) && Object.keys(raw).length === 0)) return this.unsupported(path, 'a schema that allows anything has no SQL type', pointer);
    if (!isObj(raw)) return this.unsupported(path, 'the subschema is not an object', pointer);
    const withRef = typeof raw.$ref === 'string' ? raw.$ref : null;
    const at = this.resolve(raw, path, pointer);
    if (!at) return T.string(true);
    if (withRef) this.refStack.push(withRef);
    try {
      return this.resolved(at.node, path, required, at.pointer);
    } finally {
      if (withRef) this.refStack.pop();
    }
  }

  private resolved(s: Json, path: string, required: boolean, pointer: string | null): SqlType {
    // "T or null" written as anyOf/oneOf: the nullable form of T.
    for (const k of ['anyOf', 'oneOf'] as const) {
      const alts = s[k];
      if (!Array.isArray(alts)) continue;
      const nonNullAt = alts.map((a, i) => [a, i] as const).filter(([a]) => !(isObj(a) && a.type === 'null'));
      if (nonNullAt.length === 1 && alts.length === 2) {
        const [alt, i] = nonNullAt[0]!;
        return { ...this.property(alt, path, true, child(pointer, k, String(i))), nullable: true } as SqlType;
      }
      return this.unsupported(path, `${k} with ${nonNullAt.length} non-null alternatives`, child(pointer, k));
    }
    const types = typesOf(s);
    const hasNull = types.includes('null');
    const nonNull = types.filter((t) => t !== 'null');
    const typePointer = 'type' in s ? child(pointer, 'type') : pointer;
    if (nonNull.length === 0) {
      return this.unsupported(path, hasNull ? 'a property that is always null' : 'no "type" (and none implied by properties, items or enum)', typePointer);
    }
    if (nonNull.length > 1) return this.unsupported(path, `several types [${nonNull.join(', ')}]`, typePointer);
    const nullable = hasNull || !required;
    const t = nonNull[0]!;
    if (t === 'object') {
      if (isObj(s.properties)) return this.object(s, path, nullable, pointer);
      if (isObj(s.additionalProperties)) {
        return T.map(T.string(false), this.property(s.additionalProperties, `${path}{}`, true, child(pointer, 'additionalProperties')), nullable);
      }
      // Free-form object: kept as its JSON text, as for a PostgreSQL jsonb column.
      return T.string(nullable);
    }
    if (t === 'array') {
      const items = s.items;
      if (!isObj(items)) return this.unsupported(path, 'an array without an "items" schema (or with a tuple of items)', pointer);
      return T.array(this.property(items, `${path}[]`, true, child(pointer, 'items')), nullable);
    }
    if (t === 'string' && typeof s.format === 'string') {
      const f = JSON_SCHEMA_STRING_FORMAT_MAP[s.format];
      if (f) return f(nullable);
    }
    const m = JSON_SCHEMA_TYPE_MAP[t];
    return m ? m(nullable) : this.unsupported(path, `unknown type '${t}'`, typePointer);
  }
}

/** The types a subschema allows: its `type`, or what `properties`/`items`/`enum`/`const` imply. */
function typesOf(s: Json): string[] {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type.filter((t): t is string => typeof t === 'string');
  if (isObj(s.properties) || isObj(s.additionalProperties)) return ['object'];
  if (s.items !== undefined) return ['array'];
  const values = Array.isArray(s.enum) ? s.enum : 'const' in s ? [s.const] : [];
  const kinds = new Set(values.map((v) => (v === null ? 'null' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)));
  return [...kinds].map((k) => (k === 'object' ? 'object' : k));
}

function followPointer(doc: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return doc;
  let cur: unknown = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (isObj(cur)) cur = cur[key];
    else return undefined;
  }
  return cur;
}
