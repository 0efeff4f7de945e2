// The Prometheus alert rules a pipeline's plan calls for, as plain data: one rule per failure
// mode the runtime's `/metrics` can show (consumer lag, a stalled watermark, late events, dead
// letters, slow or stopped checkpoints, replication-slot lag, small Iceberg files), only where
// the plan has the part that can fail, with thresholds derived from the spec's own options.
// Each rule names the series it reads (`reads`), so a test can check them against a real scrape.
import type { IrSource, PlanDoc } from '../../../src/plan/ir.ts';
import { hex4, UNSAFE_CHARS } from '../../../src/util/unsafe-text.ts';

export type Severity = 'info' | 'warning' | 'critical';

export interface AlertRule {
  alert: string;
  expr: string;
  /** Prometheus duration, e.g. `5m`. */
  for: string;
  severity: Severity;
  summary: string;
  description: string;
  /** What to read first: `pipec explain <lint>` of the matching lint, else the docs section. */
  runbook: string;
  /**
   * Static labels besides `severity`: a rule per source or sink carries its name, so rules of
   * one alert stay distinct (promtool's duplicate check) and routable.
   */
  labels: Record<string, string>;
  /** Metric families the expression reads, each with the label values it selects. */
  reads: { metric: string; labels: Record<string, string> }[];
}

/** Replication-slot WAL held back before the CDC alert fires: PostgreSQL keeps it on disk. */
export const SLOT_LAG_LIMIT_BYTES = 1024 ** 3;
/** More than this share of small committed files over an hour is a small-file problem. */
export const SMALL_FILE_SHARE_LIMIT = 0.5;

const DOCS = 'docs/alerts.md';

/**
 * A name inside an annotation, which Prometheus expands as a Go template: `{{` in a name is
 * printed literally instead of starting an action.
 */
const lit = (name: string): string => name.replaceAll('{{', '{{ "{{" }}');

/**
 * A PromQL string literal (Go-style escapes, which JSON's are a subset of); line terminators,
 * controls and bidi marks as `\uXXXX`, so no name reaches the file raw.
 */
const q = (s: string): string => JSON.stringify(s).replace(UNSAFE_CHARS, hex4);
const sel = (labels: Record<string, string>): string => `{${Object.entries(labels).map(([k, v]) => `${k}=${q(v)}`).join(', ')}}`;

/** Seconds as a Prometheus duration (`90s`, `5m`, `2h`), rounded up to whole seconds. */
export function promDuration(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s % 3600 === 0) return `${s / 3600}h`;
  if (s % 60 === 0) return `${s / 60}m`;
  return `${s}s`;
}

export function alertRules(plan: PlanDoc): AlertRule[] {
  const p = plan.pipeline.name;
  const ckptS = plan.pipeline.checkpointIntervalMs / 1000;
  const rules: AlertRule[] = [];
  for (const s of plan.sources) rules.push(...sourceRules(p, s, ckptS));
  rules.push(...operatorRules(plan));
  rules.push(...checkpointRules(p, ckptS));
  rules.push(...icebergRules(plan));
  return rules;
}

function sourceRules(p: string, s: IrSource, ckptS: number): AlertRule[] {
  const labels = { pipeline: p, source: s.name };
  const rules: AlertRule[] = [];
  if (s.connector === 'kafka' || s.connector === 'postgres-cdc') {
    // Behind by more than ten checkpoints' worth (at least a minute): recovery replays that much.
    const limit = Math.max(60, 10 * ckptS);
    rules.push({
      alert: 'PipecConsumerLagHigh',
      expr: `max by (pipeline, source) (pipec_consumer_lag_seconds${sel(labels)}) > ${limit}`,
      for: '5m',
      severity: 'warning',
      summary: `pipeline ${lit(p)}: source ${lit(s.name)} is more than ${promDuration(limit)} behind its upstream`,
      description: `The source reads slower than its upstream writes (or is stuck); results are late by the lag. Threshold: 10 checkpoint intervals, at least 60 s.`,
      runbook: `${DOCS}#pipecconsumerlaghigh`,
      labels: { source: s.name },
      reads: [{ metric: 'pipec_consumer_lag_seconds', labels }],
    });
  }
  if (s.watermark) {
    // Records keep coming but the watermark stays put: an idle partition holds it back, and
    // every window waits. The look-back covers the delay and idle timeout three times over.
    const windowS = Math.max(600, 3 * ((s.watermark.delayMs + (s.watermark.idleTimeoutMs ?? 0)) / 1000));
    const w = promDuration(windowS);
    rules.push({
      alert: 'PipecWatermarkStalled',
      expr: `changes(pipec_watermark_ms${sel(labels)}[${w}]) == 0 and on (pipeline, source) rate(pipec_records_in_total${sel(labels)}[${w}]) > 0`,
      for: '1m',
      severity: 'warning',
      summary: `pipeline ${lit(p)}: the watermark of source ${lit(s.name)} has not moved for ${w} while records arrive`,
      description: `Windows on ${lit(s.name)} do not close: an idle or slow partition holds the watermark back${s.watermark.idleTimeoutMs === null ? ' (the source sets no idle_timeout)' : ''}.`,
      runbook: 'pipec explain watermark-without-idle-timeout',
      labels: { source: s.name },
      reads: [
        { metric: 'pipec_watermark_ms', labels },
        { metric: 'pipec_records_in_total', labels },
      ],
    });
  }
  if (s.connector !== 'datagen') {
    rules.push({
      alert: 'PipecDeadLetters',
      expr: `sum by (pipeline, source) (increase(pipec_dead_letters_total${sel(labels)}[5m])) > 0`,
      for: '0m',
      severity: 'warning',
      summary: `pipeline ${lit(p)}: source ${lit(s.name)} sent records to the dead-letter output`,
      description: 'Records that cannot be decoded or do not fit their declared types are set aside, not lost; read the dead-letter file for the reason of each.',
      runbook: s.schemaRef?.startsWith('registry:') ? 'pipec explain registry-compatibility-weak' : `${DOCS}#pipecdeadletters`,
      labels: { source: s.name },
      reads: [{ metric: 'pipec_dead_letters_total', labels }],
    });
  }
  if (s.connector === 'postgres-cdc') {
    rules.push({
      alert: 'PipecReplicationSlotLag',
      expr: `max by (pipeline, source) (pipec_replication_slot_lag_bytes${sel(labels)}) > ${SLOT_LAG_LIMIT_BYTES}`,
      for: '10m',
      severity: 'critical',
      summary: `pipeline ${lit(p)}: the replication slot of source ${lit(s.name)} holds back more than 1 GiB of WAL`,
      description: 'PostgreSQL keeps every WAL segment the slot has not confirmed; left alone this fills the database disk.',
      runbook: 'pipec explain cdc-without-heartbeat',
      labels: { source: s.name },
      reads: [{ metric: 'pipec_replication_slot_lag_bytes', labels }],
    });
  }
  return rules;
}

function operatorRules(plan: PlanDoc): AlertRule[] {
  const late = plan.operators.filter((o) => o.op === 'window_agg' || o.op === 'interval_join');
  if (late.length === 0) return [];
  const labels = { pipeline: plan.pipeline.name };
  const lint = late.some((o) => o.op === 'window_agg') ? 'window-late-unspecified' : 'join-late-unspecified';
  return [
    {
      alert: 'PipecLateEvents',
      expr: `sum by (pipeline, operator) (rate(pipec_late_events_total${sel(labels)}[10m])) > 0`,
      for: '10m',
      severity: 'warning',
      summary: `pipeline ${lit(plan.pipeline.name)}: operator {{ $labels.operator }} keeps receiving events behind the watermark`,
      description: 'Late events miss their window or join (they go to ON LATE TO sinks, or are dropped and counted). A steady rate means the watermark delay is shorter than the real disorder.',
      runbook: `pipec explain ${lint}`,
      labels: {},
      reads: [{ metric: 'pipec_late_events_total', labels }],
    },
  ];
}

function checkpointRules(p: string, ckptS: number): AlertRule[] {
  const labels = { pipeline: p };
  const stopped = promDuration(Math.max(300, 10 * ckptS));
  return [
    {
      alert: 'PipecCheckpointSlow',
      expr: `max by (pipeline) (pipec_checkpoint_duration_seconds${sel(labels)}) > ${round(0.8 * ckptS)}`,
      for: promDuration(Math.max(300, 3 * ckptS)),
      severity: 'warning',
      summary: `pipeline ${lit(p)}: checkpoints take more than 80 % of the ${promDuration(ckptS)} checkpoint interval`,
      description: 'Checkpoints nearly back to back leave no time for processing; state or sink commits grow faster than they can be written.',
      runbook: `${DOCS}#pipeccheckpointslow`,
      labels: {},
      reads: [{ metric: 'pipec_checkpoint_duration_seconds', labels }],
    },
    {
      alert: 'PipecCheckpointsStopped',
      expr: `increase(pipec_checkpoints_total${sel(labels)}[${stopped}]) == 0 and pipec_checkpoints_total${sel(labels)} > 0`,
      for: '0m',
      severity: 'critical',
      summary: `pipeline ${lit(p)}: no checkpoint for ${stopped}`,
      description: 'A pipeline that checkpointed before has stopped: sinks commit nothing new and a restart replays everything since the last checkpoint.',
      runbook: `${DOCS}#pipeccheckpointsstopped`,
      labels: {},
      reads: [{ metric: 'pipec_checkpoints_total', labels }],
    },
  ];
}

function icebergRules(plan: PlanDoc): AlertRule[] {
  const p = plan.pipeline.name;
  return plan.sinks
    .filter((s) => s.connector === 'iceberg')
    .map((s) => {
      const labels = { pipeline: p, sink: s.name };
      const compacted = plan.compactions.some((c) => c.sink === s.name);
      const small = `increase(pipec_iceberg_small_data_files_committed_total${sel(labels)}[1h])`;
      const all = `increase(pipec_iceberg_data_files_committed_total${sel(labels)}[1h])`;
      return {
        alert: 'PipecIcebergSmallFiles',
        expr: `${small} / ${all} > ${SMALL_FILE_SHARE_LIMIT} and ${all} >= 10`,
        for: '1h',
        severity: compacted ? 'info' : 'warning',
        summary: `pipeline ${lit(p)}: most data files sink ${lit(s.name)} commits are small`,
        description: `Over the last hour more than half of the committed data files were below 75 % of the target file size; scans slow down with every small file${compacted ? ' (a compaction policy rewrites them)' : ' and no compaction policy rewrites them'}.`,
        runbook: 'pipec explain iceberg-small-files',
        labels: { sink: s.name },
        reads: [
          { metric: 'pipec_iceberg_small_data_files_committed_total', labels },
          { metric: 'pipec_iceberg_data_files_committed_total', labels },
        ],
      } satisfies AlertRule;
    });
}

const round = (n: number): number => Math.round(n * 1000) / 1000;
