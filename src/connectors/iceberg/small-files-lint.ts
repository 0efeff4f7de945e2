// Lint: an Iceberg commit interval that, with the partitions written per commit, makes many
// small data files a day. The estimate is shown in the message.
import type { IrPartitionField, IrSink } from '../../plan/ir.ts';
import { formatCount, formatDuration } from '../../plan/print/format.ts';
import { columnCardinality, type PlanIndex } from '../../plan/plan-index.ts';
import type { ConnectorLint } from '../descriptor.ts';
import { assertNever } from '../../util/assert-never.ts';

/** More data files a day than this, without a compaction policy rewriting them, is a warning. */
export const SMALL_FILES_PER_DAY_LIMIT = 1000;

export interface FilesEstimate {
  commitsPerDay: number;
  /** Partitions written per commit (a lower bound when `exact` is false). */
  partitionsPerCommit: number;
  filesPerDay: number;
  exact: boolean;
}

/** Distinct partitions one commit of recent data writes for one partition field; null if unknown. */
function fieldFanOut(f: IrPartitionField, sink: IrSink, index: PlanIndex): number | null {
  switch (f.transform) {
    case 'bucket':
      return f.param;
    case 'identity': {
      const sc = sink.input ? index.traceColumn(sink.input, f.column) : null;
      if (sc) return columnCardinality(sc);
      return sink.schema.find((c) => c.name === f.column)?.type.kind === 'boolean' ? 2 : null;
    }
    case 'truncate':
      return null;
    // Streaming data is mostly recent: a commit touches the current period.
    case 'year':
    case 'month':
    case 'day':
    case 'hour':
      return 1;
    default:
      return assertNever(f.transform);
  }
}

export function estimateFilesPerDay(sink: IrSink, index: PlanIndex): FilesEstimate | null {
  if (sink.connector !== 'iceberg') return null;
  const ice = sink.iceberg;
  if (ice.commitIntervalMs <= 0) return null;
  const commitsPerDay = 86_400_000 / ice.commitIntervalMs;
  let partitionsPerCommit = 1;
  let exact = true;
  for (const f of ice.partitionBy) {
    const n = fieldFanOut(f, sink, index);
    if (n === null) exact = false;
    else partitionsPerCommit *= n;
  }
  return { commitsPerDay, partitionsPerCommit, filesPerDay: Math.ceil(commitsPerDay * partitionsPerCommit), exact };
}

export const icebergSmallFiles: ConnectorLint = {
  code: 'iceberg-small-files',
  run({ plan, index, diags }) {
    for (const s of plan.sinks) {
      if (s.connector !== 'iceberg' || !s.iceberg) continue;
      const compacted = plan.compactions.some((c) => c.sink === s.name && c.actions.some((a) => a.kind === 'rewrite_data_files'));
      if (compacted) continue;
      const est = estimateFilesPerDay(s, index);
      if (!est || est.filesPerDay <= SMALL_FILES_PER_DAY_LIMIT) continue;
      const atLeast = est.exact ? '' : 'at least ';
      diags.report('iceberg-small-files', s.span, {
        sink: s.name,
        interval: formatDuration(s.iceberg.commitIntervalMs),
        partitions: `${atLeast}${formatCount(est.partitionsPerCommit)} partition${est.partitionsPerCommit === 1 ? '' : 's'}`,
        filesPerDay: `${atLeast}${formatCount(est.filesPerDay)}`,
      });
    }
  },
};
