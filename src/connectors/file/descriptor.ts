// The file connector (sources and sinks; LANGUAGE.md `file`): NDJSON, CSV or Parquet files.
import { bool, oneOf, str, COMMON_SINK_OPTIONS, COMMON_SOURCE_OPTIONS, type ConnectorDescriptor } from '../descriptor.ts';
import { resolveFileSink, resolveFileSource } from '../../../targets/runtime/lib/config/file/config.ts';

export const file: ConnectorDescriptor = {
  name: 'file',
  doc: 'Reads files matching a path or glob (bounded, or followed as they grow), or writes one NDJSON file or a directory of Parquet parts.',
  source: {
    options: [
      ...COMMON_SOURCE_OPTIONS,
      { key: 'path', type: str, required: true, doc: "A path or glob, relative to the spec's directory." },
      { key: 'format', type: oneOf('ndjson', 'csv', 'parquet'), default: "by the path's extension, else ndjson", doc: 'File format.' },
      { key: 'follow', type: bool, default: 'false', doc: 'Keep reading appended lines (unbounded).' },
      { key: 'schema', type: str, doc: "Columns from a schema: 'file:<path>'." },
      { key: 'allow_empty', type: bool, default: 'false', doc: 'A bounded source matching no file fails the run unless true.' },
    ],
    resolve: (s) => resolveFileSource(s.name, s.options),
  },
  sink: {
    options: [
      ...COMMON_SINK_OPTIONS,
      { key: 'path', type: str, required: true, doc: 'The file (NDJSON) or directory (Parquet parts) written.' },
      { key: 'format', type: oneOf('ndjson', 'parquet'), default: "parquet for a .parquet path, else ndjson", doc: 'File format.' },
    ],
    resolve: (s) => resolveFileSink(s.name, s.options),
  },
  targets: {
    runtime: { source: { module: 'file-source', binding: 'fileSourceModule' }, sink: { module: 'file-sink', binding: 'fileSinkModule' } },
    clickhouse: 'source: a plain MergeTree table you insert into; sink: none',
    flink: { source: 'filesystem', sink: 'filesystem' },
  },
};
