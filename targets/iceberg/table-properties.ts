// Iceberg table properties derived from the sink's resolved config and the compaction policies that
// maintain the table (both from the physical plan) (table spec "Table Properties" / Iceberg configuration keys).
import type { PhysicalCompaction } from '../../src/plan/physical/types.ts';
import type { IcebergSinkInput } from './sink-input.ts';

/** Commit retries: bounded, exponential backoff with jitter, as the runtime writer does. */
const COMMIT_RETRY = { 'commit.retry.num-retries': '10', 'commit.retry.min-wait-ms': '100', 'commit.retry.max-wait-ms': '60000', 'commit.retry.total-timeout-ms': '1800000' };

export function tableProperties(pipeline: string, sink: IcebergSinkInput, policies: PhysicalCompaction[]): Record<string, string> {
  const ice = sink.config;
  const props: Record<string, string> = {
    'write.format.default': 'parquet',
    'write.parquet.compression-codec': ice.compressionCodec,
    'write.target-file-size-bytes': String(ice.targetFileSizeBytes),
    'write.delete.mode': ice.writeMode,
    'write.update.mode': ice.writeMode,
    'write.merge.mode': ice.writeMode,
    ...COMMIT_RETRY,
    'write.metadata.delete-after-commit.enabled': 'true',
    'write.metadata.previous-versions-max': '100',
  };
  for (const policy of policies) {
    for (const action of policy.actions) {
      if (action.kind === 'expire_snapshots') {
        props['history.expire.max-snapshot-age-ms'] = String(action.olderThanMs);
        if (action.retainLast !== null) props['history.expire.min-snapshots-to-keep'] = String(action.retainLast);
      }
    }
  }
  props['pipec.pipeline'] = pipeline;
  props['pipec.sink'] = sink.name;
  props['pipec.commit-interval-ms'] = String(ice.commitIntervalMs);
  return Object.fromEntries(Object.entries(props).sort(([a], [b]) => a.localeCompare(b)));
}
