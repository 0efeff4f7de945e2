// Protobuf (.proto text) → SQL columns. protobufjs parses and resolves the files (imports,
// well-known types); the mapping is the data tables below, walked over the record message.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import protobuf from 'protobufjs';
import { T, type SqlType } from '../types/sql-type.ts';
import { suggest } from '../util/suggest.ts';
import { joinPath, offsetOfLine, reportParseError, type MappedSchema, type SchemaOrigin, type TypeOf } from './origin.ts';
import type { SchemaField } from './schema-loader.ts';

/**
 * Protobuf scalar → SQL type, as Flink's protobuf format maps them, except that uint32 and
 * fixed32 widen to BIGINT so that every value fits (Flink reads them into INT and wraps).
 * uint64 and fixed64 have no exact SQL type; they map to BIGINT with a warning.
 */
export const PROTO_SCALAR_MAP: Readonly<Record<string, TypeOf>> = {
  double: T.double,
  float: T.float,
  int32: T.int,
  sint32: T.int,
  sfixed32: T.int,
  uint32: T.bigint,
  fixed32: T.bigint,
  int64: T.bigint,
  sint64: T.bigint,
  sfixed64: T.bigint,
  uint64: T.bigint,
  fixed64: T.bigint,
  bool: T.boolean,
  string: T.string,
  bytes: T.bytes,
};
const UNSIGNED_64 = new Set(['uint64', 'fixed64', 'google.protobuf.UInt64Value']);

/**
 * Well-known message types with a SQL meaning of their own (always nullable: a message field
 * can be absent). Timestamp is an instant with nanoseconds: TIMESTAMP_LTZ(9), as Confluent's
 * Flink maps it (Apache Flink's open-source format reads it as ROW<seconds, nanos>, which
 * cannot carry a watermark). Wrappers are the nullable form of their scalar. Struct, Value
 * and ListValue are recursive, free-form JSON: read as their JSON text.
 */
export const PROTO_WELL_KNOWN_MAP: Readonly<Record<string, TypeOf>> = {
  'google.protobuf.Timestamp': (n) => T.timestampLtz(9, n),
  'google.protobuf.DoubleValue': T.double,
  'google.protobuf.FloatValue': T.float,
  'google.protobuf.Int64Value': T.bigint,
  'google.protobuf.UInt64Value': T.bigint,
  'google.protobuf.Int32Value': T.int,
  'google.protobuf.UInt32Value': T.bigint,
  'google.protobuf.BoolValue': T.boolean,
  'google.protobuf.StringValue': T.string,
  'google.protobuf.BytesValue': T.bytes,
  'google.protobuf.Struct': T.string,
  'google.protobuf.Value': T.string,
  'google.protobuf.ListValue': T.string,
};

export interface ProtoFile {
  /** The name as imported (or the main file's path), used in messages. */
  name: string;
  text: string;
  /** Path for spans inside the file, or null (registry). */
  file: string | null;
}

/** Finds an imported file: by path relative to the main file, or among registry references. */
export type ProtoImportResolver = (importName: string) => ProtoFile | { error: string };

/**
 * Maps the message named by `fragment`. Without one, a file must define exactly one top-level
 * message; `firstByDefault` instead takes the first one, the schema registry's convention (a
 * Confluent Protobuf serializer writes the first message of the schema unless told otherwise).
 */
export function mapProtobuf(
  main: ProtoFile,
  fragment: string | null,
  resolveImport: ProtoImportResolver,
  origin: SchemaOrigin,
  firstByDefault = false,
): MappedSchema | null {
  const root = new protobuf.Root();
  const loaded = new Set<string>();
  const mainImports = parseInto(root, main, origin);
  if (!mainImports) return null;
  loaded.add(main.name);
  // Taken before imports are parsed: only the main file's own messages are candidates.
  const mainMessages = topLevelMessages(root);
  const queue = [...mainImports];
  while (queue.length) {
    const name = queue.shift()!;
    if (loaded.has(name)) continue;
    loaded.add(name);
    const common = protobuf.common.get(name) as { nested?: Record<string, unknown> } | null;
    if (common?.nested) {
      root.addJSON(common.nested as Record<string, protobuf.AnyNestedObject>);
      continue;
    }
    const f = bundledGoogleProto(name) ?? resolveImport(name);
    if ('error' in f) {
      origin.diags.report('schema-file-unreadable', origin.optionSpan, { path: name, reason: `imported by ${origin.display}: ${f.error}` });
      return null;
    }
    const sub: SchemaOrigin = { ...origin, display: f.name, file: f.file };
    const imports = parseInto(root, f, sub);
    if (!imports) return null;
    queue.push(...imports);
  }
  try {
    root.resolveAll();
  } catch (e) {
    origin.diags.report('schema-invalid', origin.optionSpan, { path: origin.display, detail: e instanceof Error ? e.message : String(e) });
    return null;
  }
  const message = fragment === null && firstByDefault && mainMessages.length > 0 ? mainMessages[0]! : pickMessage(root, mainMessages, fragment, origin);
  if (!message) return null;
  const errorsBefore = origin.diags.errorCount();
  const row = new ProtoWalker(origin).message(message, '', false);
  if (origin.diags.errorCount() > errorsBefore || row.kind !== 'row') return null;
  const messageName = message.fullName.replace(/^\./, '');
  return {
    fields: row.fields as SchemaField[],
    canonicalText: JSON.stringify({ message: messageName, root: root.toJSON() }),
    messageName,
  };
}

/**
 * google/protobuf/*.proto files other than the well-known types protobufjs has built in
 * (descriptor.proto, imported by files that declare custom options; api.proto; type.proto):
 * read from the protobufjs package, which ships them. Null when not one of those.
 */
function bundledGoogleProto(name: string): ProtoFile | null {
  if (!/^google\/protobuf\/[a-z_]+\.proto$/.test(name)) return null;
  try {
    const dir = path.dirname(createRequire(import.meta.url).resolve('protobufjs/package.json'));
    return { name, text: readFileSync(path.join(dir, name), 'utf8'), file: null };
  } catch {
    return null;
  }
}

/** Parses one file into the root; returns its imports, or null after reporting a parse error. */
function parseInto(root: protobuf.Root, f: ProtoFile, at: SchemaOrigin): string[] | null {
  try {
    const res = protobuf.parse(f.text, root, { keepCase: true });
    return [...(res.imports ?? []), ...(res.weakImports ?? [])];
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const m = /\(line (\d+)\)$/.exec(msg);
    const detail = msg.replace(/\s*\(line \d+\)$/, '');
    const line = m ? Number(m[1]) : undefined;
    // protobufjs gives the line only; the token it names pins the column on that line.
    const token = /^illegal (?:token|name|id|value|type|option|string) '([^']+)'/.exec(detail)?.[1];
    if (line !== undefined && token) {
      const start = offsetOfLine(f.text, line);
      const end = f.text.indexOf('\n', start);
      const col = f.text.slice(start, end < 0 ? undefined : end).indexOf(token);
      if (col >= 0) {
        reportParseError(at, f.text, start + col, detail);
        return null;
      }
    }
    reportParseError(at, f.text, null, detail, line);
    return null;
  }
}

function topLevelMessages(root: protobuf.Root): protobuf.Type[] {
  const out: protobuf.Type[] = [];
  const visit = (ns: protobuf.NamespaceBase): void => {
    for (const n of ns.nestedArray) {
      if (n instanceof protobuf.Type) out.push(n);
      else if (n instanceof protobuf.Namespace) visit(n);
    }
  };
  visit(root);
  return out;
}

function allMessages(root: protobuf.Root): protobuf.Type[] {
  const out: protobuf.Type[] = [];
  const visit = (ns: protobuf.NamespaceBase): void => {
    for (const n of ns.nestedArray) {
      if (n instanceof protobuf.Type) out.push(n);
      if (n instanceof protobuf.Namespace) visit(n);
    }
  };
  visit(root);
  return out;
}

function pickMessage(root: protobuf.Root, mainMessages: protobuf.Type[], fragment: string | null, origin: SchemaOrigin): protobuf.Type | null {
  const shortNames = mainMessages.map((t) => t.name);
  const display = (t: protobuf.Type): string =>
    shortNames.filter((n) => n === t.name).length > 1 ? t.fullName.replace(/^\./, '') : t.name;
  if (fragment === null) {
    if (mainMessages.length === 1) return mainMessages[0]!;
    if (mainMessages.length === 0) {
      origin.diags.report('schema-invalid', origin.optionSpan, { path: origin.display, detail: 'the file defines no message' });
    } else {
      origin.diags.report('proto-message-required', origin.optionSpan, {
        path: origin.display.replace(/^file:/, ''),
        messages: mainMessages.map(display),
      });
    }
    return null;
  }
  const byShort = mainMessages.filter((t) => t.name === fragment);
  if (byShort.length === 1) return byShort[0]!;
  // Then by full name (`shop.v1.Click`), or a name relative to a package (`Click.Device`).
  const wanted = fragment.replace(/^\./, '');
  const matches = allMessages(root).filter((t) => {
    const full = t.fullName.replace(/^\./, '');
    return full === wanted || full.endsWith(`.${wanted}`);
  });
  if (matches.length === 1) return matches[0]!;
  const candidates = mainMessages.map(display);
  origin.diags.report('proto-message-not-found', origin.optionSpan, {
    path: origin.display,
    message: fragment,
    suggestion: suggest(fragment, candidates),
    messages: candidates,
  });
  return null;
}

class ProtoWalker {
  private readonly inProgress: string[] = [];
  constructor(private readonly origin: SchemaOrigin) {}

  message(t: protobuf.Type, path: string, nullable: boolean): SqlType {
    const full = t.fullName.replace(/^\./, '');
    const known = PROTO_WELL_KNOWN_MAP[full];
    if (known) {
      if (UNSIGNED_64.has(full)) this.origin.diags.report('proto-uint64-as-bigint', this.origin.optionSpan, { path, protoType: full });
      return known(nullable);
    }
    if (this.inProgress.includes(full)) {
      this.origin.diags.report('schema-recursive-type', this.origin.optionSpan, { path, typeName: full });
      return T.bytes(nullable);
    }
    this.inProgress.push(full);
    const fields = t.fieldsArray.map((f) => ({ name: f.name, type: this.field(f, joinPath(path, f.name)) }));
    this.inProgress.pop();
    return T.row(fields, nullable);
  }

  private field(f: protobuf.Field, path: string): SqlType {
    if (f instanceof protobuf.MapField) {
      return T.map(this.scalar(f.keyType, `${path}{key}`, false), this.value(f, `${path}{}`, false), false);
    }
    // Repeated fields and their elements are never null on the wire (absent = empty list).
    if (f.repeated) return T.array(this.value(f, `${path}[]`, false), false);
    const presence = f.resolvedType instanceof protobuf.Type || f.partOf !== null || f.hasPresence;
    return this.value(f, path, presence && !f.required);
  }

  /** The type of one value of the field (the element of a repeated field, the value of a map). */
  private value(f: protobuf.Field, path: string, nullable: boolean): SqlType {
    const rt = f.resolvedType;
    if (rt instanceof protobuf.Enum) return T.string(nullable);
    // A message is absent-able even inside a map value; only repeated elements are not.
    if (rt instanceof protobuf.Type) return this.message(rt, path, nullable || (!f.repeated && f instanceof protobuf.MapField));
    return this.scalar(f.type, path, nullable);
  }

  private scalar(protoType: string, path: string, nullable: boolean): SqlType {
    const m = PROTO_SCALAR_MAP[protoType];
    if (!m) {
      this.origin.diags.report('schema-invalid', this.origin.optionSpan, { path: this.origin.display, detail: `field '${path}' has unknown type '${protoType}'` });
      return T.bytes(nullable);
    }
    if (UNSIGNED_64.has(protoType)) this.origin.diags.report('proto-uint64-as-bigint', this.origin.optionSpan, { path, protoType });
    return m(nullable);
  }
}
