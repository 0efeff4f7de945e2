// Whether a ClickHouse table drops an insert whose insert_deduplication_token it has already
// seen — what exactly-once delivery relies on when a restart re-inserts an interval. Decided at
// open from the table's engine and CREATE statement and the server's MergeTree defaults:
//   Replicated*/Shared* MergeTree: deduplicate unless replicated_deduplication_window = 0;
//   other *MergeTree: only with non_replicated_deduplication_window > 0 (default 0);
//   anything else (Distributed, Buffer, Null, ...): cannot tell from here.

/** The MergeTree settings the decision reads (table-level value first, then the server default). */
export const DEDUP_SETTINGS = ['non_replicated_deduplication_window', 'replicated_deduplication_window', 'replicated_deduplication_window_seconds'] as const;

export interface TableDedup {
  /** true: deduplicates; false: does not; null: cannot tell (engine not a MergeTree). */
  deduplicates: boolean | null;
  /** How many recent insert tokens the table remembers (when known). */
  window: number | null;
  /** Why not (or why unknown), phrased for a warning; what to change. */
  reason: string;
}

/** `name = value` in the SETTINGS clause of a CREATE TABLE statement. */
function tableSetting(createQuery: string, name: string): string | null {
  const m = new RegExp(`\\b${name}\\s*=\\s*'?(\\d+)`).exec(createQuery);
  return m ? m[1]! : null;
}

export function tableDedup(table: string, engine: string, createQuery: string, serverDefaults: Record<string, string>): TableDedup {
  const setting = (name: string): number | null => {
    const v = tableSetting(createQuery, name) ?? serverDefaults[name] ?? null;
    return v === null ? null : Number(v);
  };
  if (/^(Replicated|Shared)\w*MergeTree$/.test(engine)) {
    const window = setting('replicated_deduplication_window');
    if (window === 0) return { deduplicates: false, window, reason: `${table} (${engine}) sets replicated_deduplication_window = 0` };
    const seconds = setting('replicated_deduplication_window_seconds');
    const kept = seconds === null ? '' : ` (tokens are forgotten after replicated_deduplication_window_seconds = ${seconds}: a restart later than that may insert a pending interval again)`;
    return { deduplicates: true, window, reason: `${table} (${engine}) deduplicates inserts${kept}` };
  }
  if (/MergeTree$/.test(engine)) {
    const window = setting('non_replicated_deduplication_window') ?? 0;
    if (window > 0) return { deduplicates: true, window, reason: `${table} (${engine}) keeps the last ${window} insert tokens` };
    return {
      deduplicates: false,
      window: 0,
      reason: `${table} is a ${engine} without non_replicated_deduplication_window, which ignores insert_deduplication_token: ALTER TABLE ${table} MODIFY SETTING non_replicated_deduplication_window = 100 (or use a Replicated* engine)`,
    };
  }
  return { deduplicates: null, window: null, reason: `${table} is a ${engine} table: whether its inserts are deduplicated depends on the tables behind it` };
}
