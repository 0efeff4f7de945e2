// Exactly-once delivery of the ClickHouse sink: what a checkpoint records per interval, the
// deterministic insert tokens, and the crash test hook.
//
// Why the tokens reproduce: an interval is fixed once commit() fsyncs it (its lines and row
// count), the checkpoint records (run, seq, rows, batch_size, positions), and batches are cut
// from the file by count — so after a restart batch i of interval seq has the same rows and the
// same token as before the crash. `run` is a random id chosen on a fresh start (no checkpoint)
// and kept by every checkpoint after it: a pipeline started over (checkpoint dir removed) on the
// same input reaches the same seqs and positions, and must not have its rows dropped as
// duplicates of the earlier run's.
import { createHash, randomUUID } from 'node:crypto';

export interface ClickHouseIntervalProgress {
  delivery: 'exactly-once';
  run: string;
  /** The last interval handed to a checkpoint (0: none yet). */
  seq: number;
  /** Its lines, relative to the checkpoint dir; null when it had no rows. */
  file: string | null;
  rows: number;
  /** Rows per insert when it was staged (a changed batch_size must not change the cut). */
  batchSize: number;
  /** Every source's position when the interval closed (JSON text): what its rows end at. */
  positions: string;
  /** Last `_version` written (changelog sinks). */
  version?: number;
}

export function eosProgress(p: unknown): ClickHouseIntervalProgress | null {
  return p !== null && typeof p === 'object' && (p as { delivery?: unknown }).delivery === 'exactly-once' ? (p as ClickHouseIntervalProgress) : null;
}

export const newRunId = (): string => randomUUID();

export interface TokenScope {
  pipeline: string;
  sink: string;
  /** `database.table`. */
  table: string;
  /**
   * Scale-out: the member id (`ConnectorContext.member`). Members of one pipeline run the same
   * sink into the same table with their own interval numbers; members restored from one
   * checkpoint share `run`, so without it equal (seq, batch, positions) would make one
   * member's batch a "duplicate" of another's, and the table would drop it. Null/absent: one
   * process, and the token is exactly what it was before scale-out (restores stay valid).
   */
  member?: string | null;
}

/** Parts that set a member's tokens apart; none for a single process (tokens as before). */
export function memberParts(member: string | null | undefined): string[] {
  return member === undefined || member === null ? [] : ['pipec-member', member];
}

/** The token of batch `index` of interval `p`: the same on every (re)insert of that batch. */
export function eosToken(scope: TokenScope, p: ClickHouseIntervalProgress, index: number): string {
  const parts = [...memberParts(scope.member), 'pipec-eos', scope.pipeline, scope.sink, scope.table, p.run, String(p.seq), String(index), p.positions];
  const h = createHash('sha256').update(parts.join('\0'));
  return `pipec-${h.digest('hex').slice(0, 40)}`;
}

/**
 * Test hook (`PIPEC_TEST_CLICKHOUSE_CRASH`): die like a SIGKILL while publishing the N-th
 * interval of this process (`@N`, default 1) —
 *   before-inserts  the checkpoint is durable, nothing inserted;
 *   after-insert    the first batch acknowledged by the server but not yet recorded as done;
 *   after-inserts   every batch acknowledged, the last one not yet recorded as done.
 */
export type CrashPoint = { at: 'before-inserts' | 'after-insert' | 'after-inserts'; nth: number };

export function crashPoint(env: Record<string, string | undefined>): CrashPoint | null {
  const [at, nth] = (env.PIPEC_TEST_CLICKHOUSE_CRASH ?? '').split('@');
  if (at !== 'before-inserts' && at !== 'after-insert' && at !== 'after-inserts') return null;
  return { at, nth: Number(nth ?? 1) || 1 };
}
