// Source tables: Kafka engine tables (or their insertable stand-ins), the dead-letter table of each
// topic, Debezium CDC into ReplacingMergeTree, watermark tables, and the nearest form for file/datagen.
import type { IrColumn, IrSource, SqlType } from '../../src/plan/ir.ts';
import type { PlanValue, SourceTopic } from '../../src/plan/physical/types.ts';
import { T } from '../../src/types/sql-type.ts';
import { assertNever } from '../../src/util/assert-never.ts';
import { addStmt, ensureDatabase, selectFrom, tableRel, type EmitContext, type Rel } from './model.ts';
import { comment, ident, qualified, str } from './sql-text.ts';
import { chBaseType, chType, lostNullability, TIME_ZONE } from './types.ts';

/** Kafka engine virtual columns, with the ordinary columns that stand in for them in insertable mode. */
export const KAFKA_VIRTUALS: readonly { name: string; type: string; fallback: string }[] = [
  { name: '_topic', type: 'String', fallback: "''" },
  { name: '_key', type: 'String', fallback: "''" },
  { name: '_partition', type: 'UInt64', fallback: '0' },
  { name: '_offset', type: 'UInt64', fallback: '0' },
  { name: '_timestamp_ms', type: `Nullable(DateTime64(3, '${TIME_ZONE}'))`, fallback: 'NULL' },
  { name: '_error', type: 'String', fallback: "''" },
  { name: '_raw_message', type: 'String', fallback: "''" },
];

/** `METADATA FROM '<key>'` → Kafka virtual column. */
const METADATA: Readonly<Record<string, string>> = {
  topic: '_topic',
  key: '_key',
  partition: '_partition',
  offset: '_offset',
  timestamp: '_timestamp_ms',
};

const OK_ROW = `(length(${ident('_error')}) = 0)`;

export function emitSource(ctx: EmitContext, src: IrSource): Rel | null {
  ensureDatabase(ctx, ctx.db);
  for (const c of src.columns) reportLostNulls(ctx, src, c);
  switch (src.connector) {
    case 'kafka':
      return kafkaSource(ctx, src);
    case 'postgres-cdc':
      return cdcSource(ctx, src);
    case 'file':
    case 'datagen':
      return plainSource(ctx, src);
    default:
      return assertNever(src);
  }
}

function reportLostNulls(ctx: EmitContext, src: IrSource, c: IrColumn): void {
  const paths = lostNullability(c.type, c.name);
  if (paths.length) ctx.bag.report('clickhouse-nullable-composite', src.span, { column: c.name, paths: paths.join(', ') });
}

function columnDefs(cols: { name: string; type: string; extra?: string }[]): string {
  return cols.map((c) => `    ${ident(c.name)} ${c.type}${c.extra ?? ''}`).join(',\n');
}

/**
 * A topic-backed table: the Kafka engine table (or its insertable MergeTree stand-in) `<table>`, and the
 * Null-engine table `<table>__stream` with the same payload plus the virtual columns as ordinary ones, which
 * every downstream view reads. One materialized view copies `<table>` into `<table>__stream`; it is the only
 * view on the Kafka table and is emitted last (ctx.ignitions), so the engine starts consuming only when every
 * view that must see its rows exists. Returns the qualified name of the stream table.
 */
function topicTable(ctx: EmitContext, src: IrSource, table: string, payload: { name: string; type: string }[], format: { name: string; settings: [string, string][] }): string {
  kafkaTable(ctx, src, table, payload, format);
  const from = qualified(ctx.db, table);
  const stream = qualified(ctx.db, `${table}__stream`);
  const mv = qualified(ctx.db, `${table}__stream_mv`);
  const cols = [...payload, ...KAFKA_VIRTUALS.map((v) => ({ name: v.name, type: v.type }))];
  addStmt(
    ctx,
    'pipeline',
    [`${table}__stream: the rows of ${table}, fanned out to the views below (filled last, when they all exist)`],
    `CREATE TABLE IF NOT EXISTS ${stream}\n(\n${columnDefs(cols)}\n)\nENGINE = Null`,
    `DROP TABLE IF EXISTS ${stream}`,
  );
  ctx.ignitions.push({
    role: 'pipeline',
    comments: [
      `consumption of ${table} starts here: the Kafka engine consumes once a view is attached, so this only view on it comes`,
      'after every view downstream of it and none of them misses a row',
    ],
    sql: `CREATE MATERIALIZED VIEW IF NOT EXISTS ${mv} TO ${stream}\nAS SELECT ${cols.map((c) => ident(c.name)).join(', ')}\nFROM ${from}`,
    drop: `DROP VIEW IF EXISTS ${mv}`,
  });
  return stream;
}

/** The Kafka engine clause (or the insertable MergeTree) of a topic-backed table. */
function kafkaTable(ctx: EmitContext, src: IrSource, table: string, payload: { name: string; type: string }[], format: { name: string; settings: [string, string][] }): void {
  const name = qualified(ctx.db, table);
  const t = topicOf(ctx, src);
  const topic = t.topic.text;
  const virtualNames = new Set(KAFKA_VIRTUALS.map((v) => v.name));
  for (const c of payload) if (virtualNames.has(c.name)) ctx.bag.report('clickhouse-reserved-column', src.span, { source: src.name, column: c.name });
  if (ctx.sourceMode === 'insertable') {
    const cols = [...payload, ...KAFKA_VIRTUALS.map((v) => ({ name: v.name, type: v.type, extra: ` DEFAULT ${v.fallback}` }))];
    addStmt(
      ctx,
      'source',
      [`source ${src.name}: insertable stand-in for Kafka topic ${topic} (virtual columns are ordinary columns here)`],
      `CREATE TABLE IF NOT EXISTS ${name}\n(\n${columnDefs(cols)}\n)\nENGINE = MergeTree\nORDER BY tuple()`,
      `DROP TABLE IF EXISTS ${name}`,
    );
    return;
  }
  // Every setting whose value comes from the environment goes to the named collection, never here.
  const fromEnv = (k: string, v: PlanValue | null): [string, PlanValue][] => (v && v.envVars.length ? [[k, v]] : []);
  const secret: [string, PlanValue][] = [
    ['kafka_broker_list', t.brokers],
    ...format.settings.filter(([k]) => k === 'format_avro_schema_registry_url').map(([k]) => [k, t.registryUrl] as [string, PlanValue]),
    ...fromEnv('kafka_topic_list', t.topic),
    ...fromEnv('kafka_group_name', t.groupId),
  ];
  const inCollection = new Set(secret.filter(([, v]) => v.envVars.length).map(([k]) => k));
  const plainSettings: [string, string][] = [];
  const collected: [string, string][] = [];
  for (const [k, v] of secret) {
    if (v.envVars.length) collected.push([k, v.text]);
    else plainSettings.push([k, str(v.text)]);
  }
  let engine = 'Kafka';
  const comments = [`source ${src.name}: Kafka topic ${topic}, format ${format.name}`];
  const startup = t.startup;
  // The Kafka engine resumes from the group's committed offsets; where a new group starts is librdkafka's
  // auto.offset.reset, a server-level setting (<kafka><auto_offset_reset>), not a table setting.
  if (startup === 'earliest' || startup === 'latest') comments.push(`startup = '${startup}': set <kafka><auto_offset_reset>${startup === 'earliest' ? 'smallest' : 'largest'}</auto_offset_reset></kafka> in the server config for a new consumer group`);
  if (collected.length) {
    const vars = [...new Set(secret.flatMap(([, o]) => o.envVars))];
    let coll = 'pipec_' + vars.map((v) => v.replace(/^PIPEC_/, '').toLowerCase()).join('__');
    const existing = ctx.collections.get(coll);
    // Same variables for different settings: the collection is specific to this source.
    if (existing && JSON.stringify(existing) !== JSON.stringify(collected)) coll = `${coll}__${src.name}`;
    ctx.collections.set(coll, collected);
    engine = `Kafka(${ident(coll)})`;
    comments.push(`connection settings come from named collection ${coll} (see the header), never from this file`);
  }
  const settings: [string, string][] = [
    ...plainSettings,
    ...(inCollection.has('kafka_topic_list') ? [] : ([['kafka_topic_list', str(topic)]] as [string, string][])),
    ...(inCollection.has('kafka_group_name') ? [] : ([['kafka_group_name', str(t.groupId?.text ?? defaultGroup(ctx, src))]] as [string, string][])),
    ['kafka_format', str(format.name)],
    ...format.settings.filter(([k]) => k !== 'format_avro_schema_registry_url'),
    ['kafka_num_consumers', String(t.consumers)],
    // Bad records become rows with _error set (routed to the dead-letter table), never a stuck consumer.
    ['kafka_handle_error_mode', "'stream'"],
  ];
  addStmt(
    ctx,
    'source',
    comments,
    `CREATE TABLE IF NOT EXISTS ${name}\n(\n${columnDefs(payload)}\n)\nENGINE = ${engine}\nSETTINGS\n${settings.map(([k, v]) => `    ${k} = ${v}`).join(',\n')}`,
    `DROP TABLE IF EXISTS ${name}`,
  );
}

/** A value the Kafka engine decoded as text but pipec could not read (a bad TIMESTAMP). */
interface BadValue {
  cond: string;
  reason: string;
}

function deadLetters(ctx: EmitContext, src: IrSource, stream: string, badValues: BadValue[] = []): void {
  const dlq = qualified(ctx.db, `${src.name}__dead_letters`);
  const mv = qualified(ctx.db, `${src.name}__dead_letters_mv`);
  addStmt(
    ctx,
    'pipeline',
    [`dead letters of ${src.name}: records that could not be decoded, with the reason and their coordinates`],
    `CREATE TABLE IF NOT EXISTS ${dlq}\n(\n${columnDefs([
      { name: 'topic', type: 'String' },
      { name: 'partition', type: 'UInt64' },
      { name: 'offset', type: 'UInt64' },
      { name: 'timestamp', type: `Nullable(DateTime64(3, '${TIME_ZONE}'))` },
      { name: 'key', type: 'String' },
      { name: 'raw_message', type: 'String' },
      { name: 'error', type: 'String' },
    ])}\n)\nENGINE = MergeTree\nORDER BY (${['topic', 'partition', 'offset'].map(ident).join(', ')})`,
    `DROP TABLE IF EXISTS ${dlq}`,
  );
  const hasError = `length(${ident('_error')}) > 0`;
  const error = badValues.length
    ? `multiIf(${hasError}, ${ident('_error')}, ${badValues.map((b) => `${b.cond}, ${b.reason}`).join(', ')}, '')`
    : ident('_error');
  const pairs: [string, string][] = [['topic', ident('_topic')], ['partition', ident('_partition')], ['offset', ident('_offset')], ['timestamp', ident('_timestamp_ms')], ['key', ident('_key')], ['raw_message', ident('_raw_message')], ['error', error]];
  addStmt(
    ctx,
    'pipeline',
    [],
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${mv} TO ${dlq}\nAS SELECT ${pairs.map(([o, v]) => `${v} AS ${ident(o)}`).join(', ')}\nFROM ${stream}\nWHERE ${[hasError, ...badValues.map((b) => b.cond)].join(' OR ')}`,
    `DROP VIEW IF EXISTS ${mv}`,
  );
}

function kafkaSource(ctx: EmitContext, src: IrSource): Rel | null {
  const format = kafkaFormat(ctx, src);
  if (!format) return null;
  const payload = src.columns.filter((c) => c.metadataFrom === null);
  // JSON timestamps may be epoch-millisecond numbers (LANGUAGE.md), which ClickHouse's JSON reader
  // takes as seconds: such columns are read as text and converted here, bad values become dead letters.
  const textTimes = new Map<string, { expr: string; bad: BadValue }>();
  if (format.name === 'JSONEachRow') for (const c of payload) if (c.type.kind === 'timestamp') textTimes.set(c.name, jsonTimestamp(c.name, c.type));
  // JSON carries BYTES as base64 text (LANGUAGE.md, as Flink's JSON format): the String column
  // holds that text in the Kafka table and the decoded bytes downstream.
  const textBytes = new Map<string, { expr: string; bad: BadValue }>();
  if (format.name === 'JSONEachRow') for (const c of payload) if (c.type.kind === 'bytes') textBytes.set(c.name, jsonBytes(c.name, c.type));
  const stream = topicTable(ctx, src, src.name, payload.map((c) => ({ name: c.name, type: textTimes.has(c.name) ? (c.type.nullable ? 'Nullable(String)' : 'String') : chType(c.type) })), format);
  const decoded = new Map([...textTimes, ...textBytes]);
  deadLetters(ctx, src, stream, [...decoded.values()].map((t) => t.bad));
  const rel = tableRel(stream, payload, 'stream', [src.id]);
  rel.cols = new Map();
  for (const c of src.columns) {
    rel.types.set(c.name, c.type);
    if (c.metadataFrom === null) rel.cols.set(c.name, decoded.get(c.name)?.expr ?? ident(c.name));
    else {
      const v = METADATA[c.metadataFrom];
      if (!v) {
        ctx.bag.report('clickhouse-operator-unsupported', src.span, { operator: `metadata column '${c.name}'`, reason: `the Kafka engine has no virtual column for '${c.metadataFrom}'` });
        continue;
      }
      rel.cols.set(c.name, `CAST(${ident(v)} AS ${chType(c.type)})`);
    }
  }
  rel.where = [OK_ROW, ...[...decoded.values()].map((t) => `(NOT ${t.bad.cond})`)];
  emitWatermarkTable(ctx, src, rel, ident('_partition'));
  return rel;
}

/** A TIMESTAMP read from JSON text: digits are epoch milliseconds, anything else an ISO-8601 or SQL timestamp. */
function jsonTimestamp(name: string, t: SqlType): { expr: string; bad: BadValue } {
  const raw = ident(name);
  const p = t.kind === 'timestamp' ? t.precision : 3;
  const parsed = `if(match(${raw}, '^-?[0-9]+$'), CAST(fromUnixTimestamp64Milli(toInt64OrNull(${raw}), '${TIME_ZONE}') AS Nullable(DateTime64(${p}, '${TIME_ZONE}'))), parseDateTime64BestEffortOrNull(${raw}, ${p}, '${TIME_ZONE}'))`;
  const cond = t.nullable ? `(${raw} IS NOT NULL AND ${parsed} IS NULL)` : `(${parsed} IS NULL)`;
  // assumeNotNull cannot fail on the rows the filter drops; CAST(NULL AS non-Nullable) would.
  const expr = t.nullable ? parsed : `assumeNotNull(${parsed})`;
  return { expr, bad: { cond, reason: `concat('cannot read TIMESTAMP column ', ${str(name)}, ' from ', ${t.nullable ? `assumeNotNull(${raw})` : raw})` } };
}

/**
 * A BYTES value read from JSON base64 text. tryBase64Decode gives '' for text that is not
 * base64, which then is a dead letter (base64Decode would throw and stop the consumer).
 */
function jsonBytes(name: string, t: SqlType): { expr: string; bad: BadValue } {
  const raw = ident(name);
  const expr = `tryBase64Decode(${raw})`;
  const notBase64 = `(${raw} != '' AND ${expr} = '')`;
  const cond = t.nullable ? `(${raw} IS NOT NULL AND ${notBase64})` : notBase64;
  return { expr, bad: { cond, reason: `concat('cannot read BYTES column ', ${str(name)}, ' as base64 from ', ${t.nullable ? `assumeNotNull(${raw})` : raw})` } };
}

function kafkaFormat(ctx: EmitContext, src: IrSource): { name: string; settings: [string, string][] } | null {
  // The value format as the physical plan lowered it (PhysicalSource.format): never the options.
  const format = ctx.physical.sources.find((p) => p.id === src.id)?.format ?? null;
  const fmt = format?.kind ?? 'json';
  const ref = format?.schema ?? '';
  const bad = (reason: string): null => {
    ctx.bag.report('clickhouse-format-unsupported', src.span, { source: src.name, format: fmt, reason });
    return null;
  };
  switch (fmt) {
    case 'json':
    case 'ndjson':
      // best_effort reads ISO-8601 as well as 'YYYY-MM-DD HH:MM:SS[.fff]' (LANGUAGE.md, JSON values).
      // Declared columns may be a projection of the messages' fields (LANGUAGE.md): skip the others.
      return { name: 'JSONEachRow', settings: [['date_time_input_format', "'best_effort'"], ['input_format_skip_unknown_fields', '1']] };
    case 'avro':
      if (!ref.startsWith('registry:')) return bad('plain Avro messages need the schema inline; ClickHouse reads Confluent-framed Avro through a schema registry');
      return { name: 'AvroConfluent', settings: [['format_avro_schema_registry_url', '']] };
    case 'protobuf': {
      const m = /^file:(?:.*\/)?([^/#]+\.proto)#(.+)$/.exec(ref);
      if (!m) return bad("ClickHouse's Protobuf format needs a .proto file and message name (schema = 'file:x.proto#Message'), not a registry subject");
      // The .proto file must be copied into the server's format_schema_path.
      return { name: 'Protobuf', settings: [['kafka_schema', str(`${m[1]}:${m[2]}`)]] };
    }
    case 'debezium-json':
      return { name: 'JSONAsString', settings: [] };
    case 'csv':
    case 'parquet':
      return bad('messages of a Kafka topic are decoded one by one; this format is meant for files');
    default:
      return assertNever(fmt);
  }
}

/** The source's topic as the physical plan resolved it (PhysicalSource.topic): never the options. */
function topicOf(ctx: EmitContext, src: IrSource): SourceTopic {
  const t = ctx.physical.sources.find((p) => p.id === src.id)?.topic;
  if (!t) throw new Error(`clickhouse: source '${src.name}' has no topic in the physical plan`);
  return t;
}

/**
 * The consumer group when the spec names none. It differs from the runtime's default
 * (`pipec-<pipeline>-<source>`): a ClickHouse server and a `pipec run` of the same spec in one
 * group would split the topic's partitions between them and each see only part of it.
 */
function defaultGroup(ctx: EmitContext, src: IrSource): string {
  return `pipec-${ctx.plan.pipeline.name}-${src.name}-clickhouse`;
}


/** PostgreSQL CDC: Debezium JSON topic → ReplacingMergeTree(_version, _is_deleted) keyed by the primary key. */
function cdcSource(ctx: EmitContext, src: IrSource): Rel | null {
  const raw = `${src.name}__debezium`;
  const rawStream = topicTable(ctx, src, raw, [{ name: 'raw', type: 'String' }], { name: 'JSONAsString', settings: [] });
  deadLetters(ctx, src, rawStream);
  const payload = src.columns.filter((c) => c.metadataFrom === null);
  const table = qualified(ctx.db, src.name);
  const key = src.primaryKey?.length ? src.primaryKey : payload.slice(0, 1).map((c) => c.name);
  const keyTypes = new Set(key);
  const cols = [
    ...payload.map((c) => ({ name: c.name, type: keyTypes.has(c.name) ? chBaseType(c.type) : chType(c.type) })),
    { name: '_version', type: 'UInt64' },
    { name: '_is_deleted', type: 'UInt8' },
  ];
  addStmt(
    ctx,
    'pipeline',
    [
      `source ${src.name}: PostgreSQL CDC read from Debezium topic ${topicOf(ctx, src).topic.text} (JSON converter, decimal.handling.mode=string)`,
      'ReplacingMergeTree(_version, _is_deleted): a key keeps its row of the highest version, the WAL position (LSN)',
      'of the change, so replays and reordering within Kafka cannot bring back an old version; a delete keeps the',
      "key's last row flagged _is_deleted = 1, which FINAL hides. Read it with SELECT ... FINAL.",
    ],
    `CREATE TABLE IF NOT EXISTS ${table}\n(\n${columnDefs(cols)}\n)\nENGINE = ReplacingMergeTree(${ident('_version')}, ${ident('_is_deleted')})\nORDER BY (${key.map(ident).join(', ')})`,
    `DROP TABLE IF EXISTS ${table}`,
  );
  const side = `if(JSONExtractString(${DOC}, 'op') = 'd', 'before', 'after')`;
  // The event document is extracted once, in a subquery the materialized view still triggers on.
  const rawRel = tableRel(`(SELECT ${DOC_EXPR} AS ${DOC}, ${ident('_error')} FROM ${rawStream})`, [], 'stream', [src.id]);
  for (const c of payload) rawRel.cols.set(c.name, debeziumField(side, c.name, c.type));
  rawRel.cols.set('_version', `JSONExtractUInt(${DOC}, 'source', 'lsn')`);
  rawRel.cols.set('_is_deleted', `toUInt8(JSONExtractString(${DOC}, 'op') = 'd')`);
  // Tombstones and heartbeats carry no op.
  rawRel.where = [OK_ROW, `(JSONExtractString(${DOC}, 'op') IN ('c', 'r', 'u', 'd'))`];
  const mv = qualified(ctx.db, `${src.name}__mv`);
  addStmt(ctx, 'pipeline', [], `CREATE MATERIALIZED VIEW IF NOT EXISTS ${mv} TO ${table}\nAS ${selectFrom(rawRel)}`, `DROP VIEW IF EXISTS ${mv}`);
  ctx.bag.report('clickhouse-populate-risk', src.span, { table: `${ctx.db}.${src.name}` });
  const rel = tableRel(table, payload, 'stream', [src.id]);
  rel.changelog = { version: ident('_version'), deleted: ident('_is_deleted') };
  return rel;
}

/** The Debezium event: the message itself, or its `payload` when the converter adds schemas. */
const DOC_EXPR = `if(JSONHas(${ident('raw')}, 'payload'), JSONExtractRaw(${ident('raw')}, 'payload'), ${ident('raw')})`;
const DOC = ident('__doc');

/**
 * Debezium JSON value of a column (time.precision.mode=adaptive): TIMESTAMP(0-3) as epoch milliseconds,
 * TIMESTAMP(4-6) as epoch microseconds, TIMESTAMPTZ as an ISO-8601 string, DATE as epoch days.
 */
function debeziumField(side: string, name: string, t: SqlType): string {
  const at = (type: string): string => `JSONExtract(${DOC}, ${side}, ${str(name)}, ${str(type)})`;
  switch (t.kind) {
    case 'timestamp':
      if (t.ltz) return `CAST(parseDateTime64BestEffortOrNull(${at('Nullable(String)')}, ${t.precision}, '${TIME_ZONE}') AS ${chType(t)})`;
      return `CAST(${t.precision <= 3 ? 'fromUnixTimestamp64Milli' : 'fromUnixTimestamp64Micro'}(${at('Nullable(Int64)')}, '${TIME_ZONE}') AS ${chType(t)})`;
    case 'date':
      return `CAST(addDays(toDate32('1970-01-01'), ${at('Nullable(Int32)')}) AS ${chType(t)})`;
    default:
      return at(chType(t));
  }
}

/** file / datagen: ClickHouse cannot read them; the nearest form is a plain table you insert into. */
function plainSource(ctx: EmitContext, src: IrSource): Rel {
  ctx.bag.report('clickhouse-source-connector-unsupported', src.span, { source: src.name, connector: src.connector });
  const payload = src.columns.filter((c) => c.metadataFrom === null);
  const name = qualified(ctx.db, src.name);
  addStmt(
    ctx,
    'source',
    [`source ${src.name}: ClickHouse cannot read '${src.connector}' sources; insert its rows into this table`],
    `CREATE TABLE IF NOT EXISTS ${name}\n(\n${columnDefs(payload.map((c) => ({ name: c.name, type: chType(c.type) })))}\n)\nENGINE = MergeTree\nORDER BY tuple()`,
    `DROP TABLE IF EXISTS ${name}`,
  );
  const rel = tableRel(name, payload, 'stream', [src.id]);
  emitWatermarkTable(ctx, src, rel, '0');
  return rel;
}

/**
 * Largest event time and last arrival per Kafka partition: the stand-in for a watermark. Read views
 * take the minimum over partitions (LANGUAGE.md), dropping partitions idle for idle_timeout.
 */
function emitWatermarkTable(ctx: EmitContext, src: IrSource, rel: Rel, partition: string): void {
  const wm = src.watermark;
  if (!wm || !rel.cols.has(wm.column)) return;
  const table = qualified(ctx.db, `${src.name}__watermark`);
  const mv = qualified(ctx.db, `${src.name}__watermark_mv`);
  const ts = T.timestamp(3, false);
  const tt = chType(ts);
  addStmt(
    ctx,
    'pipeline',
    [`watermark of ${src.name}: per partition, the largest ${wm.column} seen and when rows last arrived (ClickHouse has no watermark)`],
    `CREATE TABLE IF NOT EXISTS ${table}\n(\n${columnDefs([
      { name: 'partition', type: 'UInt64' },
      { name: 'max_event_time', type: `SimpleAggregateFunction(max, ${tt})` },
      { name: 'last_seen', type: `SimpleAggregateFunction(max, ${tt})` },
    ])}\n)\nENGINE = AggregatingMergeTree\nORDER BY ${ident('partition')}`,
    `DROP TABLE IF EXISTS ${table}`,
  );
  const time = rel.cols.get(wm.column)!;
  const r: Rel = {
    ...rel,
    cols: new Map([
      ['partition', `CAST(${partition} AS UInt64)`],
      ['max_event_time', `CAST(${time} AS ${tt})`],
      ['last_seen', `now64(3, ${str(TIME_ZONE)})`],
    ]),
    types: new Map([
      ['partition', T.bigint(false)],
      ['max_event_time', ts],
      ['last_seen', ts],
    ]),
    where: [...rel.where, `(${time} IS NOT NULL)`],
  };
  addStmt(ctx, 'pipeline', [], `CREATE MATERIALIZED VIEW IF NOT EXISTS ${mv} TO ${table}\nAS ${selectFrom(r)}`, `DROP VIEW IF EXISTS ${mv}`);
}

/**
 * SQL for the watermark (epoch ms) of the given sources, or null when none has one: per source the
 * minimum over partitions of the largest event time, minus the delay. With idle_timeout, partitions
 * without rows for that long drop out, and when all are idle it follows processing time (LANGUAGE.md).
 */
export function watermarkMs(ctx: EmitContext, sourceIds: string[]): string | null {
  const parts: string[] = [];
  for (const id of sourceIds) {
    const src = ctx.plan.sources.find((s) => s.id === id);
    if (!src?.watermark) continue;
    const table = qualified(ctx.db, `${src.name}__watermark`);
    const perPartition = `SELECT max(${ident('max_event_time')}) AS m, max(${ident('last_seen')}) AS seen FROM ${table} GROUP BY ${ident('partition')}`;
    const idle = src.watermark.idleTimeoutMs;
    const ms = (x: string): string => `toUnixTimestamp64Milli(${x})`;
    const value =
      idle === null
        ? ms('min(m)')
        : `if(countIf(${ACTIVE(idle)}) = 0, greatest(${ms('max(m)')}, ${ms(`now64(3, ${str(TIME_ZONE)})`)}), ${ms(`minIf(m, ${ACTIVE(idle)})`)})`;
    parts.push(`(SELECT ${value} - ${src.watermark.delayMs} FROM (${perPartition}))`);
  }
  if (!parts.length) return null;
  return parts.length === 1 ? parts[0]! : `least(${parts.join(', ')})`;
}

const ACTIVE = (idleMs: number): string => `seen >= subtractMilliseconds(now64(3, ${str(TIME_ZONE)}), ${idleMs})`;
