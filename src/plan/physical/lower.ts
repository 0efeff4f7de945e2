// PlanDoc → PhysicalPlan: the decisions every target used to take in private (which operators
// run, where a changelog normalize goes, which sources get a commit-time version clock, when a
// GROUP BY emits '-U', pane sizes, partition keys, watermark paths, sink commit points and the
// resolved connector configurations). Pure and deterministic.
import type { IrOperator, IrOption, IrSource, PlanDoc } from '../ir.ts';
import { exprText } from '../print/expr.ts';
import { paneSize } from '../optimize/pane-sizes.ts';
import { sourcesNeedingNormalize } from '../state-fingerprints.ts';
import { columnIndex, consumerMap, liveOperators, scaleOutOf } from '../graph.ts';
import { assertNever } from '../../util/assert-never.ts';
import { OptionReader } from '../../../targets/runtime/lib/config/option-reader.ts';
import { commitPoint, physicalCatalog, physicalCompaction, sinkConfig, sinkTable, sourceConfig, sourceTopic } from './connector-configs.ts';
import { PHYSICAL_VERSION, type PhysicalOperator, type PhysicalPlan, type PhysicalSource, type PhysicalSourceFormat, type VersionClock } from './types.ts';

/** Name of the added version-time column: not a SQL identifier, so it never meets a user column. */
export const VERSION_COLUMN = '$version_ts';

/** When a versioned source without WATERMARK counts as caught up after its last change. */
export const DEFAULT_VERSION_IDLE_MS = 5000;

export function lowerPlan(plan: PlanDoc): PhysicalPlan {
  const unsupported: PhysicalPlan['unsupported'] = [];
  const opById = new Map(plan.operators.map((o) => [o.id, o]));
  const srcById = new Map(plan.sources.map((s) => [s.id, s]));

  // Liveness and changelog normalize are decided once, in state-fingerprints.ts, so the state
  // the runtime checkpoints and the fingerprints `pipec diff` compares can never disagree.
  const ops = liveOperators(plan);
  const live = new Set(ops.map((o) => o.id));
  const liveSources = new Set(ops.flatMap((o) => (o.op === 'scan' ? [o.source] : [])));
  const consumers = consumerMap(ops);
  const consumersOf = (id: string): IrOperator[] => consumers.get(id) ?? [];
  const normalized = new Set<string>();
  for (const s of sourcesNeedingNormalize(plan, ops)) {
    if (!s.primaryKey?.length) unsupported.push({ what: 'a computation over a changelog source without PRIMARY KEY', name: s.name, span: s.span });
    else normalized.add(s.id);
  }

  // Version clocks: a changelog source joined directly as a versioned table without WATERMARK
  // gets its change commit time as version time (Flink's op_ts recipe, made the default).
  const clocks = new Map<string, VersionClock>();
  for (const o of ops) {
    if (o.op !== 'temporal_join') continue;
    const r = opById.get(o.inputs[1]!)!;
    if (r.timeColumn !== null) continue;
    const s = r.op === 'scan' ? srcById.get(r.source) : undefined;
    const meta = s?.changelog !== 'changelog' ? null : s.connector === 'postgres-cdc' ? 'commit_ts' : s.connector === 'kafka' ? 'timestamp' : null;
    if (!s || meta === null) {
      unsupported.push({
        what: 'a temporal join against a view without event time (declare a WATERMARK on the changelog source, or join the source itself: its commit time is then the version time)',
        name: o.id,
        span: o.span,
      });
      continue;
    }
    const idle = new OptionReader(s.options, `source '${s.name}'`).durationMs('idle_timeout', 0);
    clocks.set(s.id, { column: VERSION_COLUMN, meta, idleTimeoutMs: idle > 0 ? idle : DEFAULT_VERSION_IDLE_MS });
  }

  // '-U' before '+U': a GROUP BY whose input retracts, or one a consumer needs retractions from.
  const needsUpdateBefore = (id: string): boolean =>
    plan.sinks.some((s) => s.input === id && s.changelog === 'retract') ||
    consumersOf(id).some((c) => (c.op === 'project' ? c.changelog === 'retract' || needsUpdateBefore(c.id) : true));

  // Watermark paths: which sources' watermarks reach each operator.
  const wmFrom = new Map<string, string[]>();
  for (const o of plan.operators) {
    const from = o.op === 'scan' ? (srcById.get(o.source)?.watermark || clocks.has(o.source) ? [o.source] : []) : [...new Set(o.inputs.flatMap((i) => wmFrom.get(i) ?? []))].sort();
    wmFrom.set(o.id, from);
  }

  const sources = plan.sources.map((s): PhysicalSource => lowerSource(s, liveSources.has(s.id), normalized.has(s.id), clocks.get(s.id) ?? null, plan.pipeline.name, plan.pipeline.options));
  const operators = plan.operators.map(
    (o): PhysicalOperator => ({
      id: o.id,
      op: o.op,
      inputs: [...o.inputs],
      source: o.op === 'scan' ? o.source : null,
      live: live.has(o.id),
      changelog: o.changelog,
      partitionKey: partitionKey(o),
      stateBound: o.stateBound,
      paneMs: o.op === 'window_agg' ? paneMs(o) : null,
      updateBefore: o.op === 'group_agg' && live.has(o.id) && (opById.get(o.inputs[0]!)?.changelog !== 'append' || needsUpdateBefore(o.id)),
      watermarkFrom: wmFrom.get(o.id) ?? [],
    }),
  );
  const sinks = plan.sinks.map((s) => {
    const config = sinkConfig(s, plan.pipeline.name);
    return { id: s.id, name: s.name, connector: s.connector, input: s.input, lateFrom: [...s.lateFrom], changelog: s.changelog, upsertKey: s.upsertKey, config, commit: commitPoint(config), table: sinkTable(s) };
  });
  return {
    physicalVersion: PHYSICAL_VERSION,
    pipeline: {
      name: plan.pipeline.name,
      checkpointIntervalMs: plan.pipeline.checkpointIntervalMs,
      scaleOut: scaleOutOf(plan),
      deadLetterPath: plan.pipeline.options['dead_letter_path']?.value ?? null,
      parallelism: Number(plan.pipeline.options['parallelism']?.value ?? '1'),
    },
    sources,
    operators,
    sinks,
    catalogs: plan.catalogs.map(physicalCatalog),
    compactions: plan.compactions.map(physicalCompaction),
    unsupported,
  };
}

/** The value format as decoded: Avro/Protobuf with a `file:` schema are plain values, else the Confluent wire format. */
function sourceFormat(s: IrSource): PhysicalSourceFormat | null {
  if (s.format === null) return null;
  const binary = s.format === 'avro' || s.format === 'protobuf';
  const plain = s.schemaRef !== null && s.schemaRef.trim().startsWith('file:');
  return { kind: s.format, wire: binary ? (plain ? 'plain' : 'confluent') : null, schema: s.schemaRef };
}

function lowerSource(s: IrSource, live: boolean, normalized: boolean, clock: VersionClock | null, pipeline: string, pipelineOptions: Record<string, IrOption>): PhysicalSource {
  // Row layout: the used columns, plus the watermark column when pruned away.
  const cols = s.usedColumns.map((n) => s.columns[columnIndex(s.columns, n)]!).filter(Boolean);
  if (s.watermark && columnIndex(cols, s.watermark.column) < 0) {
    const wc = s.columns[columnIndex(s.columns, s.watermark.column)];
    if (wc) cols.push(wc);
  }
  // The normalize keys rows by the primary key, used or not.
  if (normalized) for (const k of s.primaryKey!) if (columnIndex(cols, k) < 0) cols.push(s.columns[columnIndex(s.columns, k)]!);
  const names = cols.map((c) => c.name);
  if (clock) names.push(clock.column);
  const watermark = s.watermark
    ? { column: s.watermark.column, delayMs: s.watermark.delayMs, idleTimeoutMs: s.watermark.idleTimeoutMs }
    : clock
      ? { column: clock.column, delayMs: 0, idleTimeoutMs: clock.idleTimeoutMs }
      : null;
  return {
    id: s.id,
    name: s.name,
    connector: s.connector,
    live,
    config: sourceConfig(s, pipeline),
    rowColumns: names,
    normalize: normalized ? { key: [...s.primaryKey!] } : null,
    versionClock: clock,
    watermark,
    topic: sourceTopic(s, pipelineOptions),
    format: sourceFormat(s),
  };
}

/** What the operator's state is keyed by (a distributed engine's shuffle key). */
function partitionKey(o: IrOperator): string[] | null {
  switch (o.op) {
    case 'scan':
    case 'filter':
    case 'project':
    case 'union':
      return null;
    case 'window_agg': {
      // A SESSION's sessions form per PARTITION BY key; without one, one session sequence runs
      // over every row (whatever the GROUP BY keys), so nothing may split it: not keyed.
      const keys = o.window.kind === 'session' ? o.window.partitionBy : o.groupKeys.map((k) => k.name);
      return keys.length > 0 ? [...keys] : null;
    }
    case 'group_agg':
      return o.groupKeys.length > 0 ? o.groupKeys.map((k) => k.name) : null;
    case 'interval_join':
      return o.leftKeys.map((l, i) => `${exprText(l, true)} = ${exprText(o.rightKeys[i]!, true)}`);
    case 'temporal_join':
      return o.leftKeys.map((l, i) => `${exprText(l, true)} = right.${o.rightKeys[i]!}`);
    default:
      return assertNever(o);
  }
}

/** The optimizer's pane size (optimize/pane-sizes.ts); when absent, the same rule. */
function paneMs(o: IrOperator & { op: 'window_agg' }): number | null {
  return o.paneMs !== null && o.paneMs > 0 ? o.paneMs : paneSize(o.window);
}
