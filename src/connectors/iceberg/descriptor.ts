// The iceberg sink connector (docs/iceberg-sink.md): snapshots committed at checkpoints into a
// table of a declared catalog. The checker resolves the table settings (IrIcebergSink: the
// catalog, partition and sort specs need the schema); the resolver restates them as the config.
import { duration, oneOf, size, str, COMMON_SINK_OPTIONS, type ConnectorDescriptor } from '../descriptor.ts';
import type { IcebergSinkConfig } from '../../../targets/runtime/lib/config/iceberg/config.ts';
import { icebergBucketNonKey, icebergIdentityHighCardinality } from './partitioning-lints.ts';
import { icebergSmallFiles } from './small-files-lint.ts';

export const iceberg: ConnectorDescriptor = {
  name: 'iceberg',
  doc: 'Writes Parquet data files into an Iceberg table (format v2 or v3) and commits a snapshot at checkpoints; upserts as equality deletes.',
  sink: {
    options: [
      ...COMMON_SINK_OPTIONS,
      { key: 'catalog', type: str, required: true, doc: 'A catalog declared with CREATE CATALOG.' },
      { key: 'table', type: str, required: true, doc: '`namespace.table`.' },
      { key: 'partition_by', type: str, doc: "Partition spec: 'day(ts), bucket[16](id)', identity, year, month, day, hour, bucket, truncate." },
      { key: 'sort_by', type: str, doc: "Sort order: 'col [asc|desc] [nulls first|last], ...'." },
      { key: 'format_version', type: oneOf('2', '3'), default: '2', doc: 'Iceberg table format version.' },
      { key: 'target_file_size', type: size, default: '512 MiB', doc: 'write.target-file-size-bytes.' },
      { key: 'commit_interval', type: duration, default: 'the checkpoint interval', doc: 'Snapshots commit at checkpoints at most this often.' },
      { key: 'write_mode', type: oneOf('copy-on-write', 'merge-on-read'), default: 'copy-on-write', doc: 'write.delete/update/merge.mode.' },
      { key: 'compression', type: oneOf('snappy', 'gzip', 'uncompressed'), default: 'snappy', doc: 'Parquet compression codec.' },
    ],
    resolve: (s): IcebergSinkConfig => {
      const i = s.connector === 'iceberg' ? s.iceberg : null;
      return {
        connector: 'iceberg',
        catalog: i?.catalog ?? '',
        table: i?.table ?? '',
        formatVersion: i?.formatVersion ?? 2,
        targetFileSizeBytes: i?.targetFileSizeBytes ?? 0,
        commitIntervalMs: i?.commitIntervalMs ?? 0,
        writeMode: i?.writeMode ?? 'copy-on-write',
        compressionCodec: i?.compressionCodec ?? 'snappy',
        partitionBy: (i?.partitionBy ?? []).map((p) => (p.param !== null ? `${p.transform}[${p.param}](${p.column})` : p.transform === 'identity' ? p.column : `${p.transform}(${p.column})`)),
        sortBy: (i?.sortBy ?? []).map((f) => `${f.column} ${f.direction} nulls ${f.nulls}`),
        templated: [],
      };
    },
  },
  lints: [icebergSmallFiles, icebergIdentityHighCardinality, icebergBucketNonKey],
  targets: {
    runtime: { sink: { module: 'iceberg', binding: 'icebergModule' } },
    iceberg: 'table metadata with write.format.default = parquet, write.parquet.compression-codec, write.target-file-size-bytes, write.{delete,update,merge}.mode, commit retries and history.expire.* from compaction policies',
    flink: { sink: 'iceberg' },
  },
};
