// Lint: at-least-once delivery (every source replays after a restart) into a ClickHouse table
// that cannot drop the duplicates: an append-only plain MergeTree without a deduplication window.
import type { IrSink } from '../../plan/ir.ts';
import type { LintRule } from '../rule.ts';

/** Engines that collapse or deduplicate rows by themselves. */
const DEDUP_ENGINE = /^(Replicated|Replacing|Collapsing|VersionedCollapsing|Aggregating|Summing)/i;

export function clickhouseCanDeduplicate(s: IrSink): boolean {
  if (s.changelog !== 'append' || (s.upsertKey !== null && s.upsertKey.length > 0)) return true;
  const engine = s.options['engine']?.value.trim();
  if (engine && DEDUP_ENGINE.test(engine)) return true;
  const window = Number(s.options['non_replicated_deduplication_window']?.value ?? '0');
  return Number.isFinite(window) && window > 0;
}

export const clickhouseDedup: LintRule = {
  code: 'clickhouse-duplicates-on-replay',
  run({ plan, index, diags }) {
    for (const s of plan.sinks) {
      if (s.connector !== 'clickhouse' || !s.clickhouse || clickhouseCanDeduplicate(s)) continue;
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
