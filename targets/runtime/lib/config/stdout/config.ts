// stdout sink: the resolved configuration and its resolver.
import { OptionReader, type RawOption } from '../option-reader.ts';

export interface StdoutSinkConfig {
  connector: 'stdout';
  /** `table`: aligned columns; `ndjson`: one JSON object per line. */
  format: 'table' | 'ndjson';
  templated: string[];
}

export function resolveStdoutSink(name: string, opts: Record<string, RawOption>): StdoutSinkConfig {
  const r = new OptionReader(opts, `sink '${name}'`);
  return { connector: 'stdout', format: r.oneOf('format', ['table', 'ndjson'] as const, 'table'), templated: r.templated };
}
