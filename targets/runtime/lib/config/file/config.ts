// file source and sink: the resolved configuration and its resolver (LANGUAGE.md `file`).
import { OptionReader, type RawOption } from '../option-reader.ts';

export interface FileSourceConfig {
  connector: 'file';
  /** A path or glob, relative to the run's base directory. */
  path: string;
  format: 'ndjson' | 'csv' | 'parquet';
  /** true: keep reading appended lines (unbounded); false: read once and finish. */
  follow: boolean;
  /** A bounded source whose path matches no file fails the run unless true. */
  allowEmpty: boolean;
  templated: string[];
}

export interface FileSinkConfig {
  connector: 'file';
  path: string;
  format: 'ndjson' | 'parquet';
  templated: string[];
}

/** Without `format`: by the path's extension (`.parquet`, `.csv`, else ndjson), as the checker does. */
export function resolveFileSource(name: string, opts: Record<string, RawOption>): FileSourceConfig {
  const r = new OptionReader(opts, `source '${name}'`);
  const p = (r.value('path') ?? '').toLowerCase();
  return {
    connector: 'file',
    path: r.text('path', 'path') ?? '',
    format: r.oneOf('format', ['ndjson', 'csv', 'parquet'] as const, p.endsWith('.parquet') ? 'parquet' : p.endsWith('.csv') ? 'csv' : 'ndjson'),
    follow: r.bool('follow', false),
    allowEmpty: r.bool('allow_empty', false),
    templated: r.templated,
  };
}

export function resolveFileSink(name: string, opts: Record<string, RawOption>): FileSinkConfig {
  const r = new OptionReader(opts, `sink '${name}'`);
  const format = r.oneOf('format', ['ndjson', 'parquet'] as const, (r.value('path') ?? '').toLowerCase().endsWith('.parquet') ? 'parquet' : 'ndjson');
  return {
    connector: 'file',
    // Without a path: `<sink>.ndjson`, or a directory named after the sink for Parquet parts.
    path: r.text('path', 'path') ?? (format === 'parquet' ? name : `${name}.ndjson`),
    format,
    templated: r.templated,
  };
}
