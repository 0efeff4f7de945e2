// The `schema` option's reference syntax: `file:path[#Message]` or `registry:subject[:version][#Message]`.
import path from 'node:path';
import type { SchemaKind } from './schema-loader.ts';

export type SchemaRef =
  | { kind: 'file'; path: string; fragment: string | null; schemaKind: SchemaKind | null }
  | { kind: 'registry'; subject: string; version: string; fragment: string | null };

/** File extension → schema language. */
const EXTENSIONS: Readonly<Record<string, SchemaKind>> = {
  '.avsc': 'avro',
  '.proto': 'protobuf',
  '.json': 'json-schema',
};

export function parseSchemaRef(ref: string): SchemaRef | { error: string } {
  const colon = ref.indexOf(':');
  const scheme = colon < 0 ? '' : ref.slice(0, colon);
  const rest = colon < 0 ? ref : ref.slice(colon + 1);
  if (scheme === 'file') {
    const hash = rest.indexOf('#');
    const p = hash < 0 ? rest : rest.slice(0, hash);
    const fragment = hash < 0 ? null : rest.slice(hash + 1);
    if (p.trim() === '') return { error: 'the path after file: is empty' };
    if (fragment !== null && fragment.trim() === '') return { error: "nothing follows '#'" };
    return { kind: 'file', path: p, fragment, schemaKind: EXTENSIONS[path.extname(p).toLowerCase()] ?? null };
  }
  if (scheme === 'registry') {
    const hash = rest.indexOf('#');
    const fragment = hash < 0 ? null : rest.slice(hash + 1);
    if (fragment !== null && fragment.trim() === '') return { error: "nothing follows '#'" };
    const body = hash < 0 ? rest : rest.slice(0, hash);
    // Subjects may contain ':' (registry contexts), so only a trailing number or `latest` is a version.
    const m = /^(.*):(\d+|latest)$/.exec(body);
    const subject = m ? m[1]! : body;
    const version = m ? m[2]! : 'latest';
    if (subject.trim() === '') return { error: 'the subject after registry: is empty' };
    if (version !== 'latest' && Number(version) < 1) return { error: 'registry versions start at 1' };
    return { kind: 'registry', subject, version, fragment };
  }
  return { error: scheme ? `unknown scheme '${scheme}:'` : "it starts with neither 'file:' nor 'registry:'" };
}

/** Which `format` option values each schema language can describe (null: format not given). */
const FORMATS_OF: Readonly<Record<SchemaKind, readonly string[]>> = {
  avro: ['avro'],
  protobuf: ['protobuf'],
  'json-schema': ['json', 'ndjson', 'debezium-json'],
  postgres: [],
};

export const SCHEMA_KIND_NAMES: Readonly<Record<SchemaKind, string>> = {
  avro: 'Avro',
  protobuf: 'Protobuf',
  'json-schema': 'JSON Schema',
  postgres: 'PostgreSQL',
};

export function formatFits(format: string | null, kind: SchemaKind): boolean {
  return format === null || FORMATS_OF[kind].includes(format.toLowerCase());
}
