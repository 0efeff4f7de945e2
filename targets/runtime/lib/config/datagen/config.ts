// datagen source: the resolved configuration of its source-wide options and of its per-column
// `fields.<col>.<attr>` settings, grouped by column (their values are read against the column's
// type by the runtime's generator, as the checker already checked them).
import { OptionReader, type RawOption } from '../option-reader.ts';

export interface DatagenSourceConfig {
  connector: 'datagen';
  /** 0: as fast as the runner polls. */
  rowsPerSecond: number;
  /** null: unbounded. */
  totalRows: number | null;
  seed: number;
  partitions: number;
  /** Column → attribute (kind, min, max, step, values, null_rate) → value as written; sorted. */
  fields: Record<string, Record<string, string>>;
  templated: string[];
}

const FIELD_OPTION = /^fields\.(.+)\.([a-z_]+)$/;

function fieldsOf(opts: Record<string, RawOption>): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const key of Object.keys(opts).sort()) {
    const m = FIELD_OPTION.exec(key);
    if (m) (out[m[1]!] ??= {})[m[2]!] = opts[key]!.value;
  }
  return out;
}

export function resolveDatagenSource(name: string, opts: Record<string, RawOption>): DatagenSourceConfig {
  const r = new OptionReader(opts, `source '${name}'`);
  return {
    connector: 'datagen',
    rowsPerSecond: r.int('rows_per_second', 0, 0),
    totalRows: r.has('total_rows') ? r.int('total_rows', 0, 0) : null,
    seed: r.int('seed', 0),
    partitions: r.int('partitions', 1, 1),
    fields: fieldsOf(opts),
    templated: r.templated,
  };
}
