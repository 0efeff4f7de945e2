// Lint: a ClickHouse sink delivered at-least-once (the runtime's default) with rows that have no
// key. After a restart the runtime replays what followed the last checkpoint, and those rows are
// cut into other batches than before, so their deduplication tokens differ and they are stored
// again — whatever the table is (the runtime writes into a table the user created; the plan
// cannot see its engine). Quiet when the sink is keyed (an upsert stream into a
// ReplacingMergeTree collapses replays by key) or uses delivery = 'exactly-once' (replayed
// intervals keep their tokens; the runtime warns at start if the server or table cannot
// deduplicate them).
import type { IrSink } from '../../plan/ir.ts';
import type { ConnectorLint } from '../descriptor.ts';

export function clickhouseReplaysDuplicate(s: IrSink): boolean {
  if (s.changelog !== 'append' || (s.upsertKey !== null && s.upsertKey.length > 0)) return false;
  return (s.options['delivery']?.value ?? 'at-least-once') !== 'exactly-once';
}

export const clickhouseDedup: ConnectorLint = {
  code: 'clickhouse-duplicates-on-replay',
  run({ plan, index, diags }) {
    for (const s of plan.sinks) {
      if (s.connector !== 'clickhouse' || !clickhouseReplaysDuplicate(s)) continue;
      const sources = index.upstreamSources(index.sinkFeeds(s));
      if (sources.length === 0) continue;
      diags.report('clickhouse-duplicates-on-replay', s.span, {
        sink: s.name,
        table: s.clickhouse.table,
        sources: sources.map((x) => `'${x.name}' (${x.connector})`).join(', '),
      });
    }
  },
};
