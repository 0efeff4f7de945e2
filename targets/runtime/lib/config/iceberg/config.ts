// iceberg sink: the resolved configuration. The checker already resolves the Iceberg table
// settings (IrIcebergSink, defaults of docs/iceberg-sink.md); this restates them under the
// `connector` discriminant so every sink has one resolved config.
export interface IcebergSinkConfig {
  connector: 'iceberg';
  catalog: string;
  /** `namespace.table`. */
  table: string;
  formatVersion: 2 | 3;
  targetFileSizeBytes: number;
  /** Snapshots commit at checkpoints at most this often (default: the checkpoint interval). */
  commitIntervalMs: number;
  writeMode: 'copy-on-write' | 'merge-on-read';
  compressionCodec: string;
  partitionBy: string[];
  sortBy: string[];
  templated: string[];
}
