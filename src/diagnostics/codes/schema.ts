// Diagnostic codes of the schema phase (src/schema/): loading Avro, Protobuf, JSON Schema, the
// schema registry and the PostgreSQL catalog, and checking declared columns against them.
import { def } from '../diagnostic.ts';

const didYouMean = (s: string | null | undefined): string => (s ? ` (did you mean '${s}'?)` : '');

export const schemaCodes = {
  // ------------------------------------------------------------------ references and files
  'schema-ref-invalid': def<{ ref: string; reason: string }>({
    severity: 'error',
    title: 'schema reference not understood',
    message: (p) => `schema '${p.ref}' is not a schema reference: ${p.reason}`,
    help: () => "write 'file:path/to/x.avsc', 'file:path/to/x.proto#Message', 'file:path/to/x.json' or 'registry:subject[:version]'",
    explain:
      'The `schema` option names where the schema of a source comes from. It starts with `file:` (a local Avro `.avsc`, Protobuf `.proto` or JSON Schema `.json` file, resolved against the folder of the spec) or `registry:` (a subject of a Confluent-compatible schema registry, optionally with `:version`, the latest version otherwise; a Protobuf subject may name its message with `#Message`, else its first message is read). Example: `schema = \'file:schemas/clicks.proto#Click\'`.',
  }),
  'schema-file-unreadable': def<{ path: string; reason: string }>({
    severity: 'error',
    title: 'schema file cannot be read',
    message: (p) => `cannot read schema file '${p.path}': ${p.reason}`,
    help: () => 'relative paths are resolved against the folder of the spec file; check the path and its permissions',
    explain:
      'A `file:` schema reference points at a file that does not exist or cannot be read. Relative paths are resolved against the folder that holds the `.pipe.sql` / `.pipe.yaml` file, not against the current directory, so that a spec compiles the same from anywhere.',
  }),
  'schema-parse-error': def<{ path: string; line: number | null; column: number | null; detail: string }>({
    severity: 'error',
    title: 'schema file does not parse',
    message: (p) => `cannot parse '${p.path}${p.line !== null ? `:${p.line}${p.column !== null ? `:${p.column}` : ''}` : ''}': ${p.detail}`,
    help: () => 'fix the syntax error in the schema file; the label points at the position the parser reported',
    explain:
      'The schema file is not valid JSON (Avro, JSON Schema) or not valid Protobuf syntax. The message gives the position in the schema file (1-based line and column) where the parser stopped; the primary location is the `schema` option that loads the file.',
  }),
  'schema-invalid': def<{ path: string; detail: string }>({
    severity: 'error',
    title: 'schema document is not a valid schema',
    message: (p) => `'${p.path}' is not a valid schema: ${p.detail}`,
    help: () => 'the file parses but breaks the rules of its schema language; fix the part named in the message',
    explain:
      'The schema file is well-formed text but not a valid schema of its kind: an Avro schema with an undefined type name or a duplicate field, a JSON Schema document that does not satisfy its meta-schema, or a Protobuf file that refers to a type it does not define or import.',
  }),
  'schema-format-unknown': def<{ path: string }>({
    severity: 'error',
    title: 'unknown schema file type',
    message: (p) => `cannot tell the schema language of '${p.path}' from its extension`,
    help: () => 'use .avsc (Avro), .proto (Protobuf) or .json (JSON Schema)',
    explain: 'pipec picks the schema language of a `file:` schema by its extension: `.avsc` is Avro, `.proto` is Protobuf, `.json` is JSON Schema.',
  }),
  'schema-format-mismatch': def<{ format: string; schemaKind: string; ref: string }>({
    severity: 'error',
    title: 'source format does not match its schema',
    message: (p) => `format '${p.format}' cannot be read with the ${p.schemaKind} schema '${p.ref}'`,
    help: (p) => `set format to match the schema (${p.schemaKind === 'Avro' ? "'avro'" : p.schemaKind === 'Protobuf' ? "'protobuf'" : "'json'"}) or point schema at a schema of the format's kind`,
    explain:
      "The records of a source are decoded by its `format`; the `schema` describes those records. An Avro schema only describes `format = 'avro'` records, a Protobuf schema only `format = 'protobuf'`, a JSON Schema only `format = 'json'` (or `ndjson`). A mismatch would decode every record as a dead letter.",
  }),
  'schema-recursive-type': def<{ path: string; typeName: string }>({
    severity: 'error',
    title: 'recursive schema type',
    message: (p) => `type '${p.typeName}' contains itself (at ${p.path}); SQL rows cannot be recursive`,
    help: () => 'break the recursion in the schema, or declare the columns you need and read the recursive part as BYTES/STRING',
    explain:
      'An Avro record, Protobuf message or JSON Schema `$ref` that refers to itself (a tree or a linked list) has no SQL type: ROW types are finite. pipec reports the path of the first field where the type repeats.',
  }),
  // ------------------------------------------------------------------ Avro
  'avro-union-unsupported': def<{ path: string; branches: string }>({
    severity: 'error',
    title: 'Avro union with several non-null branches',
    message: (p) => `field '${p.path}' is a union of ${p.branches}; only a union of one type with "null" maps to a SQL type`,
    help: () => 'make the field ["null", T], or split the branches into separate optional fields',
    explain:
      'SQL columns have one type. An Avro union `["null", T]` (in either order) maps to a nullable T; a union of several non-null types (`["string", "long"]`) has no faithful SQL type, so pipec refuses it rather than guessing.',
  }),
  'avro-logical-type-ignored': def<{ path: string; logicalType: string; reason: string; underlying: string }>({
    severity: 'warning',
    title: 'Avro logical type ignored',
    message: (p) => `field '${p.path}': logical type '${p.logicalType}' is ignored (${p.reason}); read as ${p.underlying}`,
    help: () => 'fix the logical type attributes, or drop the logicalType to make the plain type explicit',
    explain:
      'The Avro specification says an invalid logical type (a `decimal` without `precision`, or on the wrong underlying type) must be ignored and the underlying type used. pipec follows it, and warns because the column then has a different SQL type than the schema author meant.',
  }),
  // ------------------------------------------------------------------ Protobuf
  'proto-message-required': def<{ path: string; messages: string[] }>({
    severity: 'error',
    title: 'Protobuf file has several messages',
    message: (p) => `'${p.path}' defines several messages (${p.messages.join(', ')}); name one with '#Message'`,
    help: (p) => `write 'file:${p.path}#${p.messages[0] ?? 'Message'}'`,
    explain: "A `.proto` file may define many messages; the record type of the source must be named after `#`, e.g. `schema = 'file:schemas/clicks.proto#Click'`.",
  }),
  'proto-message-not-found': def<{ path: string; message: string; suggestion: string | null; messages: string[] }>({
    severity: 'error',
    title: 'Protobuf message not found',
    message: (p) => `'${p.path}' has no message '${p.message}'${didYouMean(p.suggestion)}`,
    help: (p) => (p.messages.length ? `messages in the file: ${p.messages.join(', ')}` : null),
    explain: 'The message named after `#` is looked up by its name, or its full name with the package (`shop.v1.Click`), among the messages of the file and its imports.',
  }),
  'proto-uint64-as-bigint': def<{ path: string; protoType: string }>({
    severity: 'warning',
    title: 'unsigned 64-bit Protobuf field read as BIGINT',
    message: (p) => `field '${p.path}' is ${p.protoType}; values at or above 2^63 do not fit BIGINT and wrap to negative numbers`,
    help: () => 'use int64 in the schema if values stay below 2^63, or silence this warning with -- pipec:allow proto-uint64-as-bigint',
    explain:
      'SQL has no unsigned 64-bit integer. pipec maps uint64 and fixed64 to BIGINT, as Flink does; a value of 2^63 or more is read as a negative number. (uint32 and fixed32 map to BIGINT and are always exact.)',
  }),
  // ------------------------------------------------------------------ JSON Schema
  'json-schema-unsupported': def<{ path: string; detail: string }>({
    severity: 'error',
    title: 'JSON Schema construct with no SQL type',
    message: (p) => `'${p.path}': ${p.detail}`,
    help: () => 'give the property one type (optionally with "null"), or read it as a string with {"type": "string"}',
    explain:
      'pipec maps each property of a JSON Schema to one SQL type: `type` (with `"null"` for nullable), `format` (`date-time`, `date`), `properties` (ROW), `items` (ARRAY), `additionalProperties` (MAP). A property with several non-null types, an `anyOf`/`oneOf` other than "T or null", or no type at all cannot be typed.',
  }),
  // ------------------------------------------------------------------ schema registry
  'registry-url-missing': def<{ subject: string }>({
    severity: 'error',
    title: 'schema registry URL not configured',
    message: (p) => `schema 'registry:${p.subject}' needs PIPEC_SCHEMA_REGISTRY_URL, which is not set`,
    help: () => 'export PIPEC_SCHEMA_REGISTRY_URL=http://host:8081 or set it in a profile of pipec.yaml',
    explain: 'A `registry:` schema is fetched from the Confluent-compatible schema registry at `PIPEC_SCHEMA_REGISTRY_URL` (from the environment or the active profile of `pipec.yaml`).',
  }),
  'registry-unreachable': def<{ url: string; subject: string; reason: string }>({
    severity: 'error',
    title: 'schema registry unreachable',
    message: (p) => `cannot reach the schema registry at ${p.url} for subject '${p.subject}': ${p.reason}`,
    help: () => 'check that the registry runs and PIPEC_SCHEMA_REGISTRY_URL points at it',
    explain: 'pipec could not connect to the schema registry (connection refused, DNS failure, or no answer before the timeout). Credentials in the URL are never shown in messages.',
  }),
  'registry-subject-not-found': def<{ url: string; subject: string; version: string; detail: string }>({
    severity: 'error',
    title: 'schema registry subject or version not found',
    message: (p) => `the schema registry at ${p.url} has no ${p.version === 'latest' ? `subject '${p.subject}'` : `version ${p.version} of subject '${p.subject}'`}: ${p.detail}`,
    help: () => 'check the subject name (Kafka topics usually use <topic>-value and <topic>-key) and the version',
    explain: 'The registry answered 404 for the subject or version. With the default TopicNameStrategy the value schema of topic `orders` is registered under `orders-value`.',
  }),
  'registry-unauthorized': def<{ url: string; subject: string; status: number }>({
    severity: 'error',
    title: 'schema registry refused the credentials',
    message: (p) => `the schema registry at ${p.url} answered ${p.status} for subject '${p.subject}'`,
    help: () => 'put credentials in the URL (https://user:password@host) through an environment variable or profile, never in the spec',
    explain: 'The registry requires authentication (HTTP 401) or denies access to the subject (HTTP 403). pipec sends the user and password of the URL as HTTP Basic authentication and never prints them.',
  }),
  'registry-bad-response': def<{ url: string; subject: string; detail: string }>({
    severity: 'error',
    title: 'unexpected answer from the schema registry',
    message: (p) => `the schema registry at ${p.url} gave an unexpected answer for subject '${p.subject}': ${p.detail}`,
    help: () => 'check that PIPEC_SCHEMA_REGISTRY_URL points at a Confluent-compatible schema registry, not a proxy or another service',
    explain: 'The registry answered with a status or a body that is not the Confluent Schema Registry REST protocol (e.g. an HTML page, malformed JSON, a 5xx error).',
  }),
  'registry-schema-type-unsupported': def<{ subject: string; schemaType: string }>({
    severity: 'error',
    title: 'registry schema type not supported',
    message: (p) => `subject '${p.subject}' holds a ${p.schemaType} schema; pipec reads AVRO, PROTOBUF and JSON`,
    help: () => null,
    explain: 'Confluent-compatible registries hold AVRO (the default when `schemaType` is absent), PROTOBUF and JSON schemas; other types have no mapping to SQL types.',
  }),
  // ------------------------------------------------------------------ PostgreSQL catalog
  'postgres-unreachable': def<{ dsn: string; reason: string }>({
    severity: 'error',
    title: 'PostgreSQL unreachable',
    message: (p) => `cannot read the catalog of ${p.dsn}: ${p.reason}`,
    help: () => 'check that the database runs and that dsn (usually ${PIPEC_PG_URL}) points at it',
    explain: 'pipec reads the columns, types and primary key of a `postgres-cdc` table from the database catalog at compile time. The password of the DSN is never shown.',
  }),
  'postgres-table-not-found': def<{ table: string; dsn: string; suggestion: string | null }>({
    severity: 'error',
    title: 'PostgreSQL table not found',
    message: (p) => `table '${p.table}' does not exist in ${p.dsn}${didYouMean(p.suggestion)}`,
    help: () => "write 'schema.table' when the table is not on the search_path",
    explain: "The `table` option of a `postgres-cdc` source names a table (or `schema.table`) that the database does not have. Unqualified names follow the connection's search_path (usually `public`).",
  }),
  'postgres-type-as-string': def<{ column: string; pgType: string }>({
    severity: 'warning',
    title: 'PostgreSQL type read as STRING',
    message: (p) => `column '${p.column}' has type ${p.pgType}, which has no SQL type in pipec; it is read as its text form (STRING)`,
    help: () => 'declare the column yourself, or cast it in a view of the database',
    explain: 'Logical replication sends every value in its text form. A PostgreSQL type with no counterpart among pipec types (geometric types, ranges, intervals, ...) is read as that text.',
  }),
  'postgres-numeric-unbounded': def<{ column: string }>({
    severity: 'warning',
    title: 'NUMERIC without precision',
    message: (p) => `column '${p.column}' is NUMERIC without precision and scale; read as DECIMAL(38, 18)`,
    help: () => 'give the column a precision and scale (NUMERIC(p, s)) or declare the column type in the source',
    explain: 'An unconstrained PostgreSQL NUMERIC holds any number of digits; pipec decimals need a precision and scale. It is read as DECIMAL(38, 18), as Flink CDC does; values with more digits are dead letters.',
  }),
  // ------------------------------------------------------------------ declared columns vs schema
  'schema-column-missing': def<{ column: string; schema: string; suggestion: string | null }>({
    severity: 'error',
    title: 'declared column not in the schema',
    message: (p) => `column '${p.column}' is not a field of ${p.schema}${didYouMean(p.suggestion)}`,
    help: () => 'remove the column, fix its name, or mark it METADATA FROM ... if it comes from the connector',
    explain:
      'When a source declares columns and names a schema, the columns are a projection of the schema: each must be a field of it. Names compare case-insensitively unless the column is "quoted".',
  }),
  'schema-column-type-mismatch': def<{ column: string; declared: string; actual: string; schema: string }>({
    severity: 'error',
    title: 'declared column type differs from the schema',
    message: (p) => `column '${p.column}' is declared ${p.declared} but ${p.schema} has ${p.actual}`,
    help: (p) => `declare it as ${p.actual}, or CAST it in a view`,
    explain:
      'A declared column must have the type the schema maps to (see the mapping tables in docs). pipec does not convert silently between types at the source: a narrowing would lose data and a widening would hide a schema change.',
  }),
  'schema-column-nullability': def<{ column: string; schema: string }>({
    severity: 'error',
    title: 'declared NOT NULL but the schema allows null',
    message: (p) => `column '${p.column}' is declared NOT NULL but may be null in ${p.schema}`,
    help: () => 'drop NOT NULL, or make the field required in the schema',
    explain: 'A NOT NULL column must never be null. When the schema allows a null (an Avro union with "null", a proto3 `optional`, a JSON Schema property not in `required`), records with a null would break that promise.',
  }),
} as const;
