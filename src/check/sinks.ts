// CREATE SINK: connector options, the input (FROM a view or source, AS SELECT, or late events
// only), the rows' schema and changelog, and the per-connector settings of IrSink.
import type { CreateSinkStmt } from '../syntax/ast.ts';
import type { IrClickHouseSink, IrColumn, IrFileSink, IrIcebergSink, IrKafkaSink, IrSink, IrSinkBase, SinkConnector, Changelog, IntervalJoinOp, WindowAggOp } from '../plan/ir.ts';
import type { Span } from '../diagnostics/span.ts';
import { T, type SqlType } from '../types/sql-type.ts';
import { suggest } from '../util/suggest.ts';
import type { Checker, Stream } from './checker.ts';
import { checkOptions, optionIdent, splitList, type CheckedOptions } from './options.ts';
import { SINK_QUERY_OPTIONS } from './option-tables.ts';
import { connectorNamed, sinkConnectorNames } from '../connectors/index.ts';
import { connectorOf } from './sources.ts';
import { planQuery } from './select.ts';
import { findColumn } from './scope.ts';
import { parsePartitionBy, parseSortBy } from './iceberg-spec.ts';
import { KAFKA_SINK_DEFAULTS } from '../../targets/runtime/lib/config/kafka/config.ts';

/** Iceberg's default `write.target-file-size-bytes` (512 MiB). */
const ICEBERG_DEFAULT_FILE_SIZE = 512 * 1024 * 1024;

export function checkSink(ck: Checker, s: CreateSinkStmt, checkpointMs: number): IrSink | null {
  const bag = ck.bag;
  const name = s.name.name;
  const connector = connectorOf(ck, 'sink', name, s.name.span, s.options, sinkConnectorNames()) as SinkConnector | null;
  const table = connector ? [...(connectorNamed(connector)?.sink?.options ?? []), ...(s.query ? SINK_QUERY_OPTIONS : [])] : [];
  const opts = connector ? checkOptions(s.options, table, `${connector} sink '${name}'`, s.name.span, bag) : null;

  // ---- input
  let input: Stream | null = null;
  let inputFailed = false;
  if (s.from) {
    const id = s.from.parts[0]!;
    const sym = s.from.parts.length === 1 ? ck.lookupRelation(id) : null;
    if (s.from.parts.length !== 1) bag.report('unknown-relation', s.from.span, { name: s.from.parts.map((p) => p.name).join('.'), suggestion: null });
    if (sym) input = ck.readRelation(sym, name, s.from.span);
    inputFailed = input === null;
  } else if (s.query) {
    const mark = ck.mark();
    const planned = planQuery(ck, s.query, name, {
      kind: 'sink',
      name,
      span: s.span,
      emit: null,
      allowedLatenessMs: 0,
      late: { kind: 'unspecified' },
      stateTtlMs: opts?.number('state_ttl') ?? null,
    });
    input = planned?.stream ?? null;
    inputFailed = input === null;
    if (!planned) ck.rollback(mark);
  }
  const lateFrom = lateSendersTo(ck, name);
  let schema: IrColumn[] = [];
  let changelog: Changelog = 'append';
  let upsertKey: string[] | null = null;
  if (input) {
    schema = input.op.schema.map((c) => ({ ...c }));
    changelog = input.op.changelog;
    upsertKey = input.op.upsertKey ? [...input.op.upsertKey] : null;
  } else if (!s.from && !s.query) {
    if (lateFrom.length === 0) bag.report('late-target-unused', s.name.span, { name });
    else {
      schema = lateSchema(ck, lateFrom[0]!);
      for (const w of lateFrom.slice(1)) {
        const other = lateSchema(ck, w);
        const same = other.length === schema.length && other.every((c, i) => c.name === schema[i]!.name && JSON.stringify(c.type) === JSON.stringify(schema[i]!.type));
        if (!same)
          bag.report('incompatible-types', s.name.span, {
            what: `the late events sent to '${name}'`,
            types: [schema, other].map((sch) => `(${sch.map((c) => c.name).join(', ')})`).join(' and '),
          });
      }
    }
  }
  if (!connector || !opts) return null;
  const known = input !== null || (!s.from && !s.query);

  // Keys in the order plan JSON has always shown them: id, name, connector, the common fields, the section, span.
  const head = { id: name, name };
  const base: Omit<IrSinkBase, 'id' | 'name' | 'span'> = {
    input: input?.op.id ?? null,
    lateFrom: lateFrom.map((o) => o.id),
    schema,
    changelog,
    upsertKey,
    options: opts.ir,
  };
  const span = s.span;
  const cols = (option: string): string[] | null => sinkColumns(ck, opts, option, schema, name, s.span, known && !inputFailed);
  // Each connector's section; null when it could not be checked (the error is reported): the
  // sink is then left out of the plan, which has errors and is not built.
  switch (connector) {
    case 'iceberg': {
      const iceberg = icebergSink(ck, opts, schema, s.span, checkpointMs, known && !inputFailed);
      return iceberg ? { ...head, connector, ...base, iceberg, span } : null;
    }
    case 'clickhouse': {
      const t = opts.string('table');
      const orderBy = opts.has('order_by') ? cols('order_by') : (upsertKey ?? []);
      if (t === undefined) return null;
      const parts = t.split('.');
      if (parts.length > 2 || parts.some((p) => p.trim() === '')) bag.report('invalid-table-name', opts.valueSpan('table', s.span), { table: t, expected: "'database.table' or 'table'" });
      const clickhouse: IrClickHouseSink = {
        table: parts.length === 1 ? `default.${t.trim()}` : t.trim(),
        orderBy: orderBy ?? [],
        partitionBy: opts.string('partition_by') ?? null,
        ttl: opts.string('ttl') ?? null,
      };
      const ddl = opts.string('ddl_table');
      if (ddl !== undefined) {
        const dp = ddl.split('.');
        if (dp.length > 2 || dp.some((p) => p.trim() === '')) bag.report('invalid-table-name', opts.valueSpan('ddl_table', s.span), { table: ddl, expected: "'database.table' or 'table'" });
        else clickhouse.ddlTable = ddl.trim();
      }
      return { ...head, connector, ...base, clickhouse, span };
    }
    case 'kafka': {
      const topic = opts.string('topic');
      const key = opts.has('key') ? cols('key') : upsertKey && upsertKey.length > 0 ? upsertKey : null;
      const acks = opts.string('acks') ?? KAFKA_SINK_DEFAULTS.acks;
      const idem = opts.boolean('enable.idempotence') ?? opts.boolean('idempotence') ?? KAFKA_SINK_DEFAULTS.idempotent;
      if (topic === undefined) return null;
      const kafka: IrKafkaSink = {
        topic,
        format: (opts.string('format') ?? KAFKA_SINK_DEFAULTS.format) as IrKafkaSink['format'],
        key,
        acks: (acks === '-1' ? 'all' : acks) as IrKafkaSink['acks'],
        idempotent: idem,
        // The defaults of the connector's resolver (targets/runtime/lib/config/kafka/config.ts), decided once.
        delivery: (opts.string('delivery') ?? KAFKA_SINK_DEFAULTS.delivery) as IrKafkaSink['delivery'],
      };
      return { ...head, connector, ...base, kafka, span };
    }
    case 'file': {
      const path = opts.string('path');
      if (path === undefined) return null;
      const file: IrFileSink = { path, format: (opts.string('format') ?? (path.toLowerCase().endsWith('.parquet') ? 'parquet' : 'ndjson')) as IrFileSink['format'] };
      return { ...head, connector, ...base, file, span };
    }
    case 'stdout':
      return { ...head, connector, ...base, span };
    default:
      // A connector of a test's own descriptor: no section of its own.
      return { ...head, connector, ...base, span } as IrSink;
  }
}

/**
 * The rows a window sends `ON LATE TO` a sink: its input's columns plus `late_by_ms`. An interval join
 * sends the join's columns, those of the late row's side filled and the other side's NULL (so every
 * column is nullable), plus `late_side` ('left' or 'right') and `late_by_ms`.
 */
function lateSchema(ck: Checker, w: WindowAggOp | IntervalJoinOp): IrColumn[] {
  if (w.op === 'interval_join') {
    return [
      ...w.schema.map((c): IrColumn => ({ ...c, type: { ...c.type, nullable: true } as SqlType })),
      { name: 'late_side', type: T.string(false), metadataFrom: null },
      { name: 'late_by_ms', type: T.bigint(false), metadataFrom: null },
    ];
  }
  const input = ck.operators.find((o) => o.id === w.inputs[0]);
  return [...(input?.schema ?? []).map((c) => ({ ...c })), { name: 'late_by_ms', type: T.bigint(false), metadataFrom: null }];
}

function sinkColumns(ck: Checker, opts: CheckedOptions, option: string, schema: IrColumn[], sink: string, span: Span, check: boolean): string[] | null {
  const text = opts.string(option);
  if (text === undefined) return null;
  const out: string[] = [];
  for (const item of splitList(text)) {
    const id = { name: optionIdent(item), quoted: item.trim().startsWith('"') };
    const c = findColumn(schema, id);
    if (c) out.push(c.name);
    else if (check) ck.bag.report('sink-column-unknown', opts.valueSpan(option, span), { option, column: item.trim(), sink, suggestion: suggest(id.name, schema.map((x) => x.name)) });
  }
  return out;
}

function icebergSink(ck: Checker, opts: CheckedOptions, schema: IrColumn[], span: Span, checkpointMs: number, check: boolean): IrIcebergSink | null {
  const bag = ck.bag;
  const catalog = opts.string('catalog');
  const table = opts.string('table');
  let catalogName = catalog === undefined ? '' : optionIdent(catalog);
  if (catalog !== undefined) {
    const id = { name: optionIdent(catalog), quoted: catalog.trim().startsWith('"') };
    const sym = ck.lookup(id);
    if (sym) catalogName = sym.name;
    if (!sym) bag.report('unknown-catalog', opts.valueSpan('catalog', span), { name: catalog, suggestion: suggest(id.name, ck.namesOf('catalog')) });
    else if (sym.kind !== 'catalog') bag.report('wrong-relation-kind', opts.valueSpan('catalog', span), { name: sym.name, kind: sym.kind, expected: 'catalog' });
  }
  if (table !== undefined && !/^[^.\s]+(\.[^.\s]+)+$/.test(table.trim()))
    bag.report('invalid-table-name', opts.valueSpan('table', span), { table, expected: "'namespace.table'" });
  let partitionBy = [] as IrIcebergSink['partitionBy'];
  const pText = opts.string('partition_by');
  if (pText !== undefined && pText.trim() !== '' && check) {
    const r = parsePartitionBy(pText, schema);
    if (r.ok) partitionBy = r.value;
    else bag.report('partition-spec-invalid', opts.valueSpan('partition_by', span), { text: pText, detail: r.detail + (r.suggestion ? ` (did you mean '${r.suggestion}'?)` : '') });
  }
  let sortBy = [] as IrIcebergSink['sortBy'];
  const sText = opts.string('sort_by');
  if (sText !== undefined && sText.trim() !== '' && check) {
    const r = parseSortBy(sText, schema);
    if (r.ok) sortBy = r.value;
    else bag.report('sort-spec-invalid', opts.valueSpan('sort_by', span), { text: sText, detail: r.detail + (r.suggestion ? ` (did you mean '${r.suggestion}'?)` : '') });
  }
  if (catalog === undefined || table === undefined) return null;
  return {
    catalog: catalogName,
    table: table.trim(),
    partitionBy,
    sortBy,
    formatVersion: opts.string('format_version') === '3' ? 3 : 2,
    targetFileSizeBytes: opts.number('target_file_size') ?? ICEBERG_DEFAULT_FILE_SIZE,
    // Without commit_interval the sink commits at every checkpoint, as Flink's Iceberg sink does.
    commitIntervalMs: opts.number('commit_interval') ?? checkpointMs,
    writeMode: (opts.string('write_mode') ?? 'copy-on-write') as IrIcebergSink['writeMode'],
    // snappy: the pipec writer runs on Node 20, whose zlib has no zstd (see targets/runtime/lib/iceberg/writer).
    compressionCodec: opts.string('compression') ?? 'snappy',
  };
}

/**
 * The window aggregates that send late rows to `sink`, indexed incrementally: operators are
 * only appended between sinks (or rolled back, which a changed operator at the last indexed
 * place shows, and then the index is rebuilt). A scan of every operator per sink was quadratic
 * in the number of statements.
 */
interface LateIndex {
  scanned: number;
  lastSeen: unknown;
  bySink: Map<string, (WindowAggOp | IntervalJoinOp)[]>;
}
const lateIndex = new WeakMap<object, LateIndex>();
function lateSendersTo(ck: { operators: readonly { op: string }[] }, sink: string): (WindowAggOp | IntervalJoinOp)[] {
  const ops = ck.operators;
  let idx = lateIndex.get(ck);
  if (!idx || idx.scanned > ops.length || (idx.scanned > 0 && ops[idx.scanned - 1] !== idx.lastSeen)) {
    idx = { scanned: 0, lastSeen: undefined, bySink: new Map() };
    lateIndex.set(ck, idx);
  }
  for (let i = idx.scanned; i < ops.length; i++) {
    const o = ops[i]!;
    if (o.op !== 'window_agg' && o.op !== 'interval_join') continue;
    const w = o as WindowAggOp | IntervalJoinOp;
    if (w.late.kind !== 'to') continue;
    const list = idx.bySink.get(w.late.sink);
    if (list) list.push(w);
    else idx.bySink.set(w.late.sink, [w]);
  }
  idx.scanned = ops.length;
  idx.lastSeen = ops[ops.length - 1];
  return idx.bySink.get(sink) ?? [];
}
