// State fingerprints: one hash per part of a pipeline that holds checkpointed state (a source's
// position and clock, a stateful operator, a sink's commit progress), named by a stable uid —
// the plan's id of that part (`revenue_1m/window`: owner view + role; a source or sink by its
// id). Each hash covers exactly what decides the layout and meaning of that part's state
// (operator kind, key expressions and types, accumulators, window, join sides and the rows they
// buffer, a source's identity), never what only shapes rows after the state (filters and
// projections downstream, sink columns) nor spans or comments. The runtime target writes these
// into the generated module and every checkpoint; a run resumes when every part finds its own
// fingerprint (targets/runtime/lib/state-compat.ts), and `pipec diff` reads the same two maps
// through the same check — which is why "compatible" and "resumes" cannot disagree.
// This is Flink's operator uid + savepoint compatibility, computed from the plan.
import { createHash } from 'node:crypto';
import type { IrColumn, IrExpr, IrOperator, IrOption, IrSink, IrSource, PlanDoc } from './ir.ts';
import { consumerMap, liveOperators } from './graph.ts';

/**
 * Bumped when the runtime changes how any operator encodes its state: every fingerprint
 * changes with it, so a checkpoint of the older encoding is refused instead of misread.
 */
export const STATE_ENCODING = 1;

/** Fingerprints by uid, per kind of part (the checkpoint keeps the same three maps). */
export interface StateFingerprints {
  sources: Record<string, string>;
  operators: Record<string, string>;
  sinks: Record<string, string>;
}

/** The uid of the changelog normalize the runtime puts after a scan (its state: last row per key). */
export const normalizeUid = (scanId: string): string => `${scanId}/normalize`;

/** JSON with object keys sorted: two plans that mean the same give the same text. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

const hash = (what: unknown): string => createHash('sha256').update(canonicalJson({ encoding: STATE_ENCODING, what })).digest('hex').slice(0, 16);

/**
 * Changelog sources something computes on (not only copies columns to a sink, not only a
 * temporal join, which keeps its own versioned state): a changelog's old rows may be key-only
 * (PostgreSQL without REPLICA IDENTITY FULL), so their rows must pass a changelog normalize
 * (last row per primary key) first. Decided here so the runtime and the fingerprints agree.
 */
export function sourcesNeedingNormalize(plan: PlanDoc, ops: IrOperator[] = liveOperators(plan)): IrSource[] {
  const srcById = new Map(plan.sources.map((s) => [s.id, s]));
  const consumers = consumerMap(ops);
  const computes = (id: string): boolean =>
    (consumers.get(id) ?? []).some((c) =>
      c.op === 'project' ? c.exprs.some((x) => x.expr.kind !== 'col' && x.expr.kind !== 'lit') || computes(c.id) : c.op === 'union' ? computes(c.id) : c.op !== 'temporal_join',
    );
  const out: IrSource[] = [];
  for (const o of ops) {
    if (o.op !== 'scan') continue;
    const s = srcById.get(o.source);
    if (s?.changelog === 'changelog' && computes(o.id) && !out.includes(s)) out.push(s);
  }
  return out;
}

/** The sources the runtime normalizes: those of sourcesNeedingNormalize with a primary key (the others are refused). */
export function normalizedSources(plan: PlanDoc, ops: IrOperator[] = liveOperators(plan)): Set<string> {
  return new Set(sourcesNeedingNormalize(plan, ops).filter((s) => s.primaryKey?.length).map((s) => s.id));
}

const cols = (cs: IrColumn[]): unknown => cs.map((c) => [c.name, c.type, c.metadataFrom]);
const typedExprs = (xs: IrExpr[]): unknown => xs;

/** What a source's position and clock mean: where it reads (options as written, not their values) and its event time. */
function sourceState(s: IrSource): unknown {
  const opts: Record<string, string> = {};
  for (const [k, o] of Object.entries(s.options) as [string, IrOption][]) opts[k] = o.template;
  return {
    connector: s.connector,
    format: s.format,
    options: opts,
    watermark: s.watermark && { column: s.watermark.column, delayMs: s.watermark.delayMs },
    changelog: s.changelog,
  };
}

/** What a sink's commit progress means: where it writes and how (not its columns, nor the filter or projection feeding it). */
function sinkState(s: IrSink): unknown {
  return {
    connector: s.connector,
    changelog: s.changelog,
    upsertKey: s.upsertKey,
    // The same keys (null for another connector's) as when the IR had nullable sections: fingerprints of existing checkpoints stay valid.
    file: s.connector === 'file' ? s.file : null,
    kafka: s.connector === 'kafka' ? { topic: s.kafka.topic, delivery: s.kafka.delivery } : null,
    clickhouse: s.connector === 'clickhouse' ? { table: s.clickhouse.table } : null,
    iceberg: s.connector === 'iceberg' ? { catalog: s.iceberg.catalog, table: s.iceberg.table, formatVersion: s.iceberg.formatVersion } : null,
  };
}

/**
 * Every state fingerprint of the plan, by uid. Only live parts count (the runtime builds
 * nothing else): a view no sink reads holds no state.
 */
export function stateFingerprints(plan: PlanDoc): StateFingerprints {
  const ops = liveOperators(plan);
  const byId = new Map(plan.operators.map((o) => [o.id, o]));
  const srcById = new Map(plan.sources.map((s) => [s.id, s]));
  const normalized = normalizedSources(plan, ops);
  // The rows an operator buffers are its input's rows: their columns decide the state's layout.
  // A scan's rows are the source's used columns (projection pruning follows the sinks' SELECTs),
  // plus what the runtime appends (watermark column, primary key of a normalized source).
  const rowsOf = (id: string): unknown => {
    const o = byId.get(id)!;
    if (o.op !== 'scan') return { columns: cols(o.schema) };
    const s = srcById.get(o.source)!;
    return { source: s.id, used: s.usedColumns.map((n) => [n, s.columns.find((c) => c.name === n)?.type ?? null]), watermark: s.watermark?.column ?? null, key: s.primaryKey, normalized: normalized.has(s.id) };
  };
  const inputKind = (o: IrOperator): string => byId.get(o.inputs[0]!)?.changelog ?? 'append';
  const aggs = (o: IrOperator & { op: 'window_agg' | 'group_agg' }): unknown => ({
    keys: o.groupKeys.map((k) => typedExprs([k.expr])),
    // Accumulators by position, fn, argument and type; their output names are not state.
    aggregates: o.aggregates.map((a) => [a.fn, a.arg, a.type]),
    retracting: inputKind(o) !== 'append',
  });

  const operators: Record<string, string> = {};
  const used = new Set<string>();
  for (const o of ops) {
    switch (o.op) {
      case 'scan':
        used.add(o.source);
        if (normalized.has(o.source)) operators[normalizeUid(o.id)] = hash({ kind: 'normalize', key: srcById.get(o.source)!.primaryKey, rows: rowsOf(o.id) });
        break;
      case 'window_agg':
        operators[o.id] = hash({ kind: 'window_agg', window: o.window, time: o.windowTimeColumn, panes: o.paneMs, emit: o.emit, ...(aggs(o) as object) });
        break;
      case 'group_agg':
        operators[o.id] = hash({ kind: 'group_agg', ...(aggs(o) as object) });
        break;
      case 'interval_join':
        operators[o.id] = hash({
          kind: 'interval_join',
          joinType: o.joinType,
          left: { keys: typedExprs(o.leftKeys), time: o.leftTime, rows: rowsOf(o.inputs[0]!) },
          right: { keys: typedExprs(o.rightKeys), time: o.rightTime, rows: rowsOf(o.inputs[1]!) },
          bounds: [o.lowerMs, o.upperMs],
          residual: o.residual,
        });
        break;
      case 'temporal_join':
        operators[o.id] = hash({
          kind: 'temporal_join',
          joinType: o.joinType,
          left: { keys: typedExprs(o.leftKeys), asOf: o.asOfColumn, rows: rowsOf(o.inputs[0]!) },
          right: { keys: o.rightKeys, rows: rowsOf(o.inputs[1]!) },
          residual: o.residual,
        });
        break;
      case 'filter':
      case 'project':
      case 'union':
        break;
    }
  }
  const sources: Record<string, string> = {};
  for (const s of plan.sources) if (used.has(s.id)) sources[s.id] = hash({ kind: 'source', ...(sourceState(s) as object) });
  const sinks: Record<string, string> = {};
  for (const s of plan.sinks) sinks[s.id] = hash({ kind: 'sink', ...(sinkState(s) as object) });
  return { sources, operators, sinks };
}
