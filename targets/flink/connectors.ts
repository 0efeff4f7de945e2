// Sources and sinks as Flink tables: one function per connector that maps pipec's resolved
// connector config (the physical plan's, src/plan/physical/: every default applied once, as the
// runtime gets it) onto the Flink connector's options (`kafka`/`upsert-kafka`, `postgres-cdc` of
// Flink CDC, `filesystem`, `datagen`, `print`, `jdbc` for ClickHouse; Iceberg through an Iceberg
// catalog). The raw options are read only for what the config has no field for (datagen's
// per-column generators, whether a consumer group or slot was given). Values keep their `${VAR}`
// references as written, so no secret or machine-specific value lands in the script. Differences
// from the runtime are reported at the source or sink.
import type { IrCatalog, IrOption, IrSink, IrSource, PlanDoc } from '../../src/plan/ir.ts';
import type { PhysicalSink, PhysicalSource, PhysicalSourceFormat } from '../../src/plan/physical/types.ts';
import type { SinkConfig, SourceConfig } from '../runtime/lib/config/config-types.ts';
import type { DiagnosticBag } from '../../src/diagnostics/bag.ts';
import { ident, interval, str } from './sql-text.ts';
import { flinkType } from './types.ts';
import { flinkPath } from './spec-paths.ts';
import { durationParts } from '../runtime/lib/config/durations.ts';

export type With = [string, string][];

/** An option as written (with `${VAR}` kept), else undefined. */
const opt = (o: Record<string, IrOption>, key: string): string | undefined => o[key]?.template ?? o[key]?.value;

export const withClause = (w: With): string => `WITH (\n${w.map(([k, v]) => `  ${str(k)} = ${str(v)}`).join(',\n')}\n)`;

// ---------------------------------------------------------------- sources

export interface SourceTable {
  columns: string[];
  with: With;
}

/** A source's `CREATE TEMPORARY TABLE` from its physical lowering (config, value format, topic); null when Flink cannot read it (reported). */
export function sourceTable(plan: PlanDoc, s: IrSource, phys: PhysicalSource, bag: DiagnosticBag): SourceTable | null {
  const config = phys.config;
  const columns = config.connector === 'datagen' ? datagenColumns(s, config, bag) : payloadColumns(s, bag);
  if (!columns) return null;
  if (s.watermark) columns.push(`WATERMARK FOR ${ident(s.watermark.column)} AS ${ident(s.watermark.column)} - ${interval(s.watermark.delayMs)}`);
  if (s.primaryKey?.length) columns.push(`PRIMARY KEY (${s.primaryKey.map(ident).join(', ')}) NOT ENFORCED`);
  const w = sourceWith(plan, s, phys, bag);
  return w ? { columns, with: w } : null;
}

/**
 * Kafka record metadata pipec and Flink's Kafka connector both have, by pipec's key. Flink casts a
 * metadata value to the declared type (its `timestamp` is TIMESTAMP_LTZ(3), read in the session's
 * UTC zone as pipec's TIMESTAMP is). pipec's `key` (the record key as text) has no Flink metadata.
 */
const KAFKA_METADATA: Record<string, string> = { offset: 'offset', partition: 'partition', timestamp: 'timestamp', topic: 'topic' };

function payloadColumns(s: IrSource, bag: DiagnosticBag): string[] | null {
  const cols: string[] = [];
  for (const c of s.columns) {
    if (c.metadataFrom === null) {
      cols.push(`${ident(c.name)} ${flinkType(c.type)}`);
      continue;
    }
    const key = s.connector === 'kafka' ? KAFKA_METADATA[c.metadataFrom] : undefined;
    if (key === undefined) {
      bag.report('flink-format-unsupported', s.span, { source: s.name, format: `${s.connector} with METADATA FROM '${c.metadataFrom}'`, reason: `Flink's ${s.connector} connector has no such metadata` });
      return null;
    }
    // VIRTUAL: read-only, as in pipec (a sink never writes a source's metadata back).
    cols.push(`${ident(c.name)} ${flinkType(c.type, false)} METADATA FROM ${str(key)} VIRTUAL`);
  }
  return cols;
}

function sourceWith(plan: PlanDoc, s: IrSource, phys: PhysicalSource, bag: DiagnosticBag): With | null {
  const c = phys.config;
  switch (c.connector) {
    case 'kafka':
      return kafkaSource(plan, s, c, phys, bag);
    case 'postgres-cdc':
      bag.report('flink-connector-unavailable', s.span, { what: `source '${s.name}'`, connector: 'postgres-cdc (Flink CDC)', reason: "Flink CDC 3.5.0, the newest release, needs Flink 1.20's SourceFunction, removed in Flink 2.0" });
      return postgresCdc(plan, s, c);
    case 'file': {
      const format = c.format === 'ndjson' ? 'json' : c.format;
      if (format === 'json') bag.report('flink-dead-letters', s.span, { source: s.name });
      const w: With = [['connector', 'filesystem'], ['path', flinkPath(c.path)], ['format', format]];
      if (c.follow) w.push(['source.monitor-interval', '1 s']);
      return w;
    }
    case 'datagen':
      return datagenWith(s, c);
  }
}

/** The value format's options, from the physical plan's lowering (kind, schema reference). */
function formatOptions(s: IrSource, format: PhysicalSourceFormat | null, bag: DiagnosticBag, prefix = ''): With | null {
  switch (format?.kind ?? null) {
    case 'json':
    case null:
      bag.report('flink-dead-letters', s.span, { source: s.name });
      return [[`${prefix}format`, 'json']];
    case 'debezium-json':
      bag.report('flink-dead-letters', s.span, { source: s.name });
      return [[`${prefix}format`, 'debezium-json']];
    case 'avro':
      if (format?.schema?.startsWith('registry:')) return [[`${prefix}format`, 'avro-confluent'], ['avro-confluent.url', '${PIPEC_SCHEMA_REGISTRY_URL}']];
      bag.report('flink-format-unsupported', s.span, { source: s.name, format: 'avro', reason: 'without a schema registry Flink has no writer schema for the records' });
      return null;
    case 'protobuf':
      bag.report('flink-format-unsupported', s.span, { source: s.name, format: 'protobuf', reason: "Flink's protobuf format needs a Java class compiled from the .proto file" });
      return null;
    default:
      bag.report('flink-format-unsupported', s.span, { source: s.name, format: format?.kind ?? 'none', reason: 'Kafka records in this format have no Flink decoder' });
      return null;
  }
}

function kafkaSource(plan: PlanDoc, s: IrSource, c: Extract<SourceConfig, { connector: 'kafka' }>, phys: PhysicalSource, bag: DiagnosticBag): With | null {
  const format = formatOptions(s, phys.format, bag);
  if (!format) return null;
  const startup = c.startup;
  const w: With = [
    ['connector', 'kafka'],
    ['topic', c.topic],
    ['properties.bootstrap.servers', c.brokers ?? '${PIPEC_KAFKA_BROKERS}'],
    // A group given in the spec is used as written; the default is never the runtime's
    // (c.groupId, pipec-<p>-<src>) nor the ClickHouse target's: the two would split the partitions.
    // phys.topic.groupId: the group as the spec gave it, null when not given.
    ['properties.group.id', phys.topic?.groupId ? c.groupId : `pipec-${plan.pipeline.name}-${s.name}-flink`],
    ['scan.startup.mode', startup === 'earliest' ? 'earliest-offset' : startup === 'latest' ? 'latest-offset' : 'group-offsets'],
  ];
  if (startup === 'committed') w.push(['properties.auto.offset.reset', 'earliest']);
  // A watermark per record, as the runtime's (FLIP-296): Flink's default emits it every 200 ms,
  // so which events are late would depend on how fast Flink reads the topic.
  if (s.watermark) w.push(['scan.watermark.emit.strategy', 'on-event']);
  // No key.fields: pipec's `key` only says which columns the topic is keyed by; every column is
  // read from the record's value, as the runtime reads it (Flink would decode them from the key).
  return [...w, ...format];
}

/** `postgres://user:password@host:port/db` (as written, `${VAR}`s kept) → Flink CDC's separate options. */
function postgresCdc(plan: PlanDoc, s: IrSource, c: Extract<SourceConfig, { connector: 'postgres-cdc' }>): With {
  const dsn = c.dsn ?? '';
  const m = /^postgres(?:ql)?:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^:/?]*)(?::([^/?]*))?\/([^?]*)/.exec(dsn);
  const [schema, table] = c.table.includes('.') ? c.table.split('.', 2) : ['public', c.table];
  const w: With = [
    ['connector', 'postgres-cdc'],
    ['hostname', m?.[3] ?? ''],
    ['port', m?.[4] ?? '5432'],
    ['username', decodeURIComponent(m?.[1] ?? '')],
    ['password', decodeURIComponent(m?.[2] ?? '')],
    ['database-name', m?.[5] ?? ''],
    ['schema-name', schema!],
    ['table-name', table!],
    // A slot given in the spec as resolved (c.slot); the default is never the runtime's slot.
    ['slot.name', s.options['slot'] !== undefined ? c.slot : `pipec_${plan.pipeline.name}_${s.name}_flink`.toLowerCase().replace(/[^a-z0-9_]/g, '_')],
    ['decoding.plugin.name', 'pgoutput'],
    ['scan.startup.mode', c.snapshot === 'never' ? 'latest-offset' : 'initial'],
  ];
  // Only a publication given in the spec: the runtime's default one is created by the runtime.
  if (s.options['publication'] !== undefined) w.push(['debezium.publication.name', c.publication]);
  return w;
}

/**
 * Datagen: a hidden row counter `__row` drives every sequence column (timestamps included, which
 * Flink's datagen cannot sequence) as a computed column, so sequences equal pipec's; random
 * columns use Flink's generator, choice columns pick by a random index.
 */
/** A datagen column's settings (the resolved config's `fields`) and its kind, defaulted as the runtime's generator does. */
function datagenField(cfg: Extract<SourceConfig, { connector: 'datagen' }>, c: IrSource['columns'][number]): { kind: string; get: (attr: string) => string | undefined } {
  const f = cfg.fields[c.name] ?? {};
  const get = (attr: string): string | undefined => (Object.hasOwn(f, attr) ? f[attr] : undefined);
  return { kind: get('kind') ?? (c.type.kind === 'timestamp' ? 'sequence' : 'random'), get };
}

function datagenColumns(s: IrSource, cfg: Extract<SourceConfig, { connector: 'datagen' }>, bag: DiagnosticBag): string[] {
  const cols = ['`__row` BIGINT'];
  const random: string[] = [];
  for (const c of s.columns) {
    const { kind, get } = datagenField(cfg, c);
    const min = get('min');
    const step = get('step');
    if (kind === 'sequence') {
      if (c.type.kind === 'timestamp') {
        // The runtime generator's defaults: from 2024-01-01 00:00:00, one row's interval at the rate (else 1 ms).
        const start = Date.parse((min ?? '2024-01-01 00:00:00').replace(' ', 'T') + 'Z');
        const stepMs = step ? durationMs(step) : cfg.rowsPerSecond > 0 ? Math.max(1, Math.round(1000 / cfg.rowsPerSecond)) : 1;
        cols.push(`${ident(c.name)} AS CAST(TO_TIMESTAMP_LTZ(${start} + \`__row\` * ${stepMs}, 3) AS ${flinkType(c.type, false)})`);
      } else {
        cols.push(`${ident(c.name)} AS CAST(${min ?? '0'} + \`__row\` * ${step ?? '1'} AS ${flinkType(c.type, false)})`);
      }
    } else if (kind === 'choice') {
      const values = (get('values') ?? '').split(',');
      cols.push(`\`__choice_${c.name}\` INT`);
      cols.push(`${ident(c.name)} AS CASE \`__choice_${c.name}\` ${values.map((v, i) => `WHEN ${i} THEN ${str(v)}`).join(' ')} END`);
      random.push(c.name);
    } else {
      cols.push(`${ident(c.name)} ${flinkType(c.type)}`);
      random.push(c.name);
    }
  }
  if (random.length) bag.report('flink-datagen-values', s.span, { source: s.name, columns: random.join(', ') });
  return cols;
}

function datagenWith(s: IrSource, c: Extract<SourceConfig, { connector: 'datagen' }>): With {
  const total = c.totalRows;
  const w: With = [['connector', 'datagen']];
  if (total !== null) w.push(['number-of-rows', String(total)]);
  // 0: as fast as it can, Flink's default too.
  if (c.rowsPerSecond > 0) w.push(['rows-per-second', String(c.rowsPerSecond)]);
  w.push(['fields.__row.kind', 'sequence'], ['fields.__row.start', '0'], ['fields.__row.end', total !== null ? String(total - 1) : '9223372036854775806']);
  for (const col of s.columns) {
    const { kind, get } = datagenField(c, col);
    if (kind === 'sequence') continue;
    const name = col.name;
    if (kind === 'choice') {
      const n = (get('values') ?? '').split(',').length;
      w.push([`fields.__choice_${name}.kind`, 'random'], [`fields.__choice_${name}.min`, '0'], [`fields.__choice_${name}.max`, String(n - 1)]);
      continue;
    }
    w.push([`fields.${name}.kind`, 'random']);
    const min = get('min');
    const max = get('max');
    if (min !== undefined && col.type.kind !== 'string') w.push([`fields.${name}.min`, min]);
    if (max !== undefined && col.type.kind !== 'string') w.push([`fields.${name}.max`, max]);
    const nulls = get('null_rate');
    if (nulls !== undefined) w.push([`fields.${name}.null-rate`, nulls]);
  }
  return w;
}

/** A datagen step (`30 ms`, `2 s`) in milliseconds, read as the checker reads durations. */
function durationMs(text: string): number {
  const d = durationParts(text);
  return d ? Math.round(d.amount * d.unitMs) : 1000;
}

// ---------------------------------------------------------------- sinks

/** pipec writes DECIMAL as plain JSON numbers (650.00); Flink's json format would write 6.5E+2. */
const PLAIN_DECIMALS: [string, string] = ['json.encode.decimal-as-plain-number', 'true'];

/** A sink's `CREATE TEMPORARY TABLE`; sinkTable gives null for Iceberg (a catalog table) and for a sink Flink cannot write (reported). */
export interface SinkTable {
  columns: string[];
  with: With;
}

/** The sink's primary key on Flink: its upsert key when it takes changes; null for an append sink. */
export const sinkKey = (p: PhysicalSink): string[] | null => (p.changelog !== 'append' && p.upsertKey?.length ? p.upsertKey : null);

export function sinkTable(s: IrSink, p: PhysicalSink, bag: DiagnosticBag): SinkTable | null {
  const columns = s.schema.map((c) => `${ident(c.name)} ${flinkType(c.type)}`);
  const key = sinkKey(p);
  if (key) columns.push(`PRIMARY KEY (${key.map(ident).join(', ')}) NOT ENFORCED`);
  const c: SinkConfig = p.config;
  switch (c.connector) {
    case 'kafka': {
      const brokers = c.brokers ?? '${PIPEC_KAFKA_BROKERS}';
      if (key) return { columns, with: [['connector', 'upsert-kafka'], ['topic', c.topic], ['properties.bootstrap.servers', brokers], ['key.format', 'json'], ['value.format', 'json'], ['value.json.encode.decimal-as-plain-number', 'true']] };
      const w: With = [['connector', 'kafka'], ['topic', c.topic], ['properties.bootstrap.servers', brokers]];
      if (c.delivery === 'exactly-once') {
        w.push(['sink.transactional-id-prefix', c.transactionalId]);
        // Flink's producer asks for 1 h transactions; a broker's default transaction.max.timeout.ms
        // is 15 min and refuses more, so the job could not start on a default broker.
        w.push(['properties.transaction.timeout.ms', '900000']);
      }
      w.push(['sink.delivery-guarantee', c.delivery]);
      const keyKind = kafkaKey(p);
      if (keyKind === 'text') {
        const col = s.schema.find((x) => x.name === c.keyColumns[0]);
        if (col && !TEXT_EXACT_KEYS.has(col.type.kind)) bag.report('flink-kafka-key-text', s.span, { sink: s.name, column: col.name, type: col.type.kind.toUpperCase() });
        // The runtime's key of one column is its value as text: a hidden STRING column `__key`
        // (CAST in the INSERT) written with the raw format, left out of the value.
        columns.unshift(`${ident(KEY_COLUMN)} STRING`);
        w.push(['key.format', 'raw'], ['key.fields', KEY_COLUMN], ['value.format', 'json'], ['value.fields-include', 'EXCEPT_KEY'], ['value.json.encode.decimal-as-plain-number', 'true']);
      } else if (keyKind === 'object') {
        // Several key columns: a JSON object of them on both targets.
        w.push(['key.format', 'json'], ['key.fields', c.keyColumns.join(';')], ['value.format', 'json'], ['value.json.encode.decimal-as-plain-number', 'true']);
      } else {
        w.push(['format', 'json'], PLAIN_DECIMALS);
      }
      return { columns, with: w };
    }
    case 'file':
      bag.report('flink-sink-delivery', s.span, { sink: s.name, runtime: 'exactly-once into one file', flink: 'exactly-once into part files of a directory named by the path' });
      // c.path: the runtime's, `<sink>.ndjson` (or `<sink>` for Parquet parts) when not given.
      if (p.changelog !== 'append') {
        // Flink's filesystem sink takes a changelog only through a changelog format: debezium-json
        // ({before, after, op}) where the runtime writes flat rows with an `op` field. Parquet has none.
        const parquet = c.format === 'parquet';
        bag.report('flink-file-sink-changes', s.span, { sink: s.name, changelog: p.changelog, flink: parquet ? 'Parquet has no changelog form in Flink, so the Flink script leaves the sink out' : 'the Flink script writes them as Debezium JSON ({before, after, op} per change)' });
        if (parquet) return null;
        return { columns, with: [['connector', 'filesystem'], ['path', flinkPath(c.path)], ['format', 'debezium-json'], ['debezium-json.encode.decimal-as-plain-number', 'true']] };
      }
      if (c.format === 'parquet') return { columns, with: [['connector', 'filesystem'], ['path', flinkPath(c.path)], ['format', 'parquet']] };
      return { columns, with: [['connector', 'filesystem'], ['path', flinkPath(c.path)], ['format', 'json'], PLAIN_DECIMALS] };
    case 'stdout':
      return { columns, with: [['connector', 'print']] };
    case 'clickhouse': {
      bag.report('flink-connector-unavailable', s.span, { what: `sink '${s.name}'`, connector: 'jdbc connector for ClickHouse', reason: 'flink-connector-jdbc 4.0.0-2.0 has no ClickHouse dialect' });
      bag.report('flink-sink-delivery', s.span, { sink: s.name, runtime: 'deduplicated by insert tokens', flink: 'at-least-once through the JDBC connector' });
      const table = c.database === '' ? c.table : `${c.database}.${c.table}`;
      const w: With = [['connector', 'jdbc'], ['url', clickhouseJdbcUrl(c.url ?? '${PIPEC_CLICKHOUSE_URL}')], ['table-name', table]];
      // Without user/password the runtime reads PIPEC_CLICKHOUSE_USER/PASSWORD at start, else
      // `default` and none: the JDBC driver's own defaults are the same.
      if (c.user !== null) w.push(['username', c.user]);
      if (c.password !== null) w.push(['password', c.password]);
      return { columns, with: w };
    }
    case 'iceberg':
      return null;
  }
}

/**
 * The ClickHouse HTTP URL the runtime takes (`http(s)://host:port`, also behind a `${VAR}` such as
 * the default `${PIPEC_CLICKHOUSE_URL}`) as the ClickHouse JDBC driver's URL,
 * `jdbc:clickhouse:<http(s) URL>`: the protocol stays (https included), and a placeholder becomes
 * a JDBC URL once substituted. A `jdbc:` URL is kept.
 */
export function clickhouseJdbcUrl(url: string): string {
  if (url.startsWith('jdbc:')) return url;
  if (/^https?:\/\//.test(url) || url.startsWith('${')) return `jdbc:clickhouse:${url}`;
  return `jdbc:clickhouse://${url}`;
}

/** Key types whose Flink CAST AS STRING is the runtime's key text. */
const TEXT_EXACT_KEYS = new Set(['string', 'tinyint', 'smallint', 'int', 'bigint', 'boolean', 'decimal']);

/** The hidden column that carries a one-column Kafka key as text (see kafkaKey). */
export const KEY_COLUMN = '__key';

/**
 * How an append Kafka sink's key is written, as the runtime writes it: one column → its value as
 * text (`text`: exact for strings, integers and booleans, whose CAST AS STRING is the runtime's
 * text); several → a JSON object (`object`); none → no key.
 */
export function kafkaKey(p: PhysicalSink): 'text' | 'object' | null {
  const key = p.config.connector === 'kafka' ? p.config.keyColumns : [];
  if (sinkKey(p)) return null;
  if (key.length === 0) return null;
  return key.length === 1 ? 'text' : 'object';
}

// ---------------------------------------------------------------- Iceberg catalogs and tables

export function catalogWith(c: IrCatalog): With {
  const o = (k: string) => opt(c.options, k);
  switch (c.type) {
    case 'filesystem':
      return [['type', 'iceberg'], ['catalog-type', 'hadoop'], ['warehouse', flinkPath(o('warehouse') ?? '')]];
    case 'rest': {
      const w: With = [['type', 'iceberg'], ['catalog-type', 'rest'], ['uri', o('uri') ?? '']];
      if (o('warehouse')) w.push(['warehouse', flinkPath(o('warehouse')!)]);
      if (o('credential')) w.push(['credential', o('credential')!]);
      if (o('token')) w.push(['token', o('token')!]);
      return w;
    }
    case 'sql': {
      const w: With = [['type', 'iceberg'], ['catalog-impl', 'org.apache.iceberg.jdbc.JdbcCatalog'], ['uri', jdbcUri(o('uri') ?? '')], ['warehouse', flinkPath(o('warehouse') ?? '')]];
      if (o('user')) w.push(['jdbc.user', o('user')!]);
      if (o('password')) w.push(['jdbc.password', o('password')!]);
      return w;
    }
  }
}

/** pipec's SQL-catalog URIs (`sqlite:///x.db`, `postgresql://...`) as JDBC URLs. */
function jdbcUri(uri: string): string {
  if (uri.startsWith('jdbc:')) return uri;
  const sqlite = /^sqlite:\/\/\/?(.*)$/.exec(uri);
  if (sqlite) return `jdbc:sqlite:${sqlite[1]}`;
  return `jdbc:${uri.replace(/^postgres:/, 'postgresql:')}`;
}

/** The Iceberg table's DDL when Flink can declare its partitioning; null (reported) otherwise. */
export function icebergTableDdl(s: IrSink, p: PhysicalSink, table: string, bag: DiagnosticBag): string | null {
  if (p.config.connector !== 'iceberg' || p.table?.kind !== 'iceberg') return null;
  const ice = p.config;
  const spec = p.table.partitionSpec;
  if (spec.some((f) => f.transform !== 'identity')) {
    bag.report('flink-iceberg-partition-transform', s.span, { sink: s.name, table: ice.table });
    return null;
  }
  const cols = s.schema.map((c) => `  ${ident(c.name)} ${flinkType(c.type)}`);
  const key = sinkKey(p);
  if (key) cols.push(`  PRIMARY KEY (${key.map(ident).join(', ')}) NOT ENFORCED`);
  const parts = spec.length ? `\nPARTITIONED BY (${spec.map((f) => ident(f.column)).join(', ')})` : '';
  const w: With = [['format-version', String(ice.formatVersion)], ['write.target-file-size-bytes', String(ice.targetFileSizeBytes)]];
  if (key) w.push(['write.upsert.enabled', 'true']);
  if (ice.writeMode === 'merge-on-read') w.push(['write.delete.mode', 'merge-on-read'], ['write.update.mode', 'merge-on-read']);
  return `CREATE TABLE IF NOT EXISTS ${table} (\n${cols.join(',\n')}\n)${parts}\n${withClause(w)};`;
}

