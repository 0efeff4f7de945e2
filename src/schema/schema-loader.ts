// The contract between the checker and the schema sources (Avro, Protobuf, JSON Schema,
// Confluent registry, PostgreSQL catalog). Each format maps to SQL types through one table.
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import type { Span } from '../diagnostics/span.ts';
import type { SqlType } from '../types/sql-type.ts';

export interface SchemaField {
  name: string;
  type: SqlType;
}

export interface LoadedSchema {
  /** Top-level fields in schema order, mapped to SQL types (nullability included). */
  fields: SchemaField[];
  /** The primary key, where the schema knows one (PostgreSQL tables). */
  primaryKey: string[] | null;
  /** A canonical, deterministic text of the schema (for targets that embed it). */
  canonicalText: string;
  /** What was loaded, for messages: `file:schemas/orders.avsc`, `registry:orders-value (version 3)`. */
  description: string;
  /** Which schema language it was read from (additive, for targets choosing a decoder). */
  kind?: SchemaKind;
  /** Protobuf: the fully-qualified name of the record message, e.g. `shop.v1.Click`. */
  messageName?: string;
  /** Registry schemas: the subject, version and global schema id that were read. */
  registry?: { subject: string; version: number; id: number };
  /**
   * Registry schemas: the subject's compatibility level (`BACKWARD`, `FULL_TRANSITIVE`, `NONE`,
   * ...) from `GET /config/{subject}`, else the global `GET /config`; null if neither answered.
   */
  compatibility?: string | null;
}

export type SchemaKind = 'avro' | 'protobuf' | 'json-schema' | 'postgres';

export interface SchemaRequest {
  /** The `schema` option as written after substitution, e.g. `registry:orders-value`, `file:a.proto#Order`. */
  ref: string;
  /** The source's format option (json, avro, protobuf, debezium-json, ...), or null. */
  format: string | null;
  /** Span of the `schema` option value, for diagnostics. */
  span: Span;
}

export interface PostgresTableRequest {
  /** Connection string (after substitution). */
  dsn: string;
  /** `schema.table` or `table`. */
  table: string;
  span: Span;
}

export interface SchemaLoader {
  load(req: SchemaRequest, diagnostics: DiagnosticBag): Promise<LoadedSchema | null>;
  loadPostgresTable(req: PostgresTableRequest, diagnostics: DiagnosticBag): Promise<LoadedSchema | null>;
}
