// datagen source: the resolved configuration of its source-wide options. Per-column
// `fields.<col>.*` generators stay with the runtime's generator (they are typed by the column).
import { OptionReader, type RawOption } from '../option-reader.ts';

export interface DatagenSourceConfig {
  connector: 'datagen';
  /** 0: as fast as the runner polls. */
  rowsPerSecond: number;
  /** null: unbounded. */
  totalRows: number | null;
  seed: number;
  partitions: number;
  templated: string[];
}

export function resolveDatagenSource(name: string, opts: Record<string, RawOption>): DatagenSourceConfig {
  const r = new OptionReader(opts, `source '${name}'`);
  return {
    connector: 'datagen',
    rowsPerSecond: r.int('rows_per_second', 0, 0),
    totalRows: r.has('total_rows') ? r.int('total_rows', 0, 0) : null,
    seed: r.int('seed', 0),
    partitions: r.int('partitions', 1, 1),
    templated: r.templated,
  };
}
