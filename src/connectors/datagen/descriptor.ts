// The datagen source connector: generated rows for tests and demos, per-column generators in
// `fields.<column>.<attr>` options.
import { int, num, oneOf, str, COMMON_SOURCE_OPTIONS, type ConnectorDescriptor } from '../descriptor.ts';
import { resolveDatagenSource } from '../../../targets/runtime/lib/config/datagen/config.ts';

export const datagen: ConnectorDescriptor = {
  name: 'datagen',
  doc: 'Generates rows: sequences, random values or choices per column, at a rate, bounded or not.',
  source: {
    options: [
      ...COMMON_SOURCE_OPTIONS,
      { key: 'rows_per_second', type: int(1), default: 'as fast as the runner polls', doc: 'Rate of generated rows.' },
      { key: 'total_rows', type: int(0), default: 'unbounded', doc: 'Stop after this many rows (a bounded source).' },
      { key: 'seed', type: int(), default: '0', doc: 'Random seed (the same seed, the same rows).' },
      { key: 'partitions', type: int(1), default: '1', doc: 'Generated partitions (scale-out).' },
    ],
    dynamic: {
      pattern: 'fields.<column>.<attr>',
      match: /^fields\.(.+)\.([a-z_]+)$/,
      // min/max/step are checked against the column type by the checker.
      attrs: { kind: oneOf('sequence', 'random', 'choice'), min: str, max: str, values: str, step: str, null_rate: num },
      doc: "Per-column generator: kind ('sequence', 'random', 'choice'), min, max, step, values ('a,b,c'), null_rate.",
    },
    resolve: (s) => resolveDatagenSource(s.name, s.options),
  },
  targets: {
    runtime: { source: { module: 'datagen', binding: 'datagenModule' } },
    clickhouse: 'source: a plain MergeTree table you insert into',
    flink: { source: 'datagen' },
  },
};
