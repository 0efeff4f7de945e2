// What an Iceberg sink records in a checkpoint, and what it reads back from the table's
// snapshot summaries to know which checkpoints are already in the table. Upsert sinks add
// their delete files / replaced files / touched keys to each batch (optional fields, so
// append progress of earlier versions still reads).
import { encodeState, decodeState } from '../codec.ts';
import type { DataFile } from './writer/manifests.ts';
import type { TableMetadata } from './writer/metadata-json.ts';
import type { UpsertParts } from './upsert-window.ts';

/** Data files closed by one checkpoint. */
export interface Batch {
  /** The sink's checkpoint sequence number (continues the table's numbering for this sink). */
  seq: number;
  files: DataFile[];
  /** `ctx.sourcePositions()` when the checkpoint was taken: goes into the snapshot summary. */
  positions: Record<string, unknown>;
  /** Upsert/retract sinks: the rest of the batch's changes (`files` holds its new rows). */
  upsert?: Omit<UpsertParts, 'files'>;
}

export interface Progress {
  /** The last sequence number handed to a checkpoint. */
  seq: number;
  /** Batches recorded by checkpoints but not yet committed to the table, oldest first. */
  pending: Batch[];
}

export const SUMMARY = {
  pipeline: 'pipec.pipeline',
  sink: 'pipec.sink',
  seq: 'pipec.checkpoint-seq',
  positions: 'pipec.source-positions',
  /** Scale-out only: the member that committed the snapshot (absent for a single process). */
  member: 'pipec.member',
} as const;

export function encodeProgress(p: Progress): unknown {
  return { v: 1, seq: p.seq, pending: encodeState(p.pending) };
}

export function decodeProgress(raw: unknown): Progress | null {
  if (raw === null || raw === undefined) return null;
  const r = raw as { v?: number; seq?: number; pending?: unknown };
  if (r.v !== 1 || typeof r.seq !== 'number') throw new Error('the checkpoint holds Iceberg sink progress of an unknown version');
  return { seq: r.seq, pending: decodeState(r.pending) as Batch[] };
}

/**
 * The highest checkpoint sequence number any snapshot of this pipeline's sink committed (0:
 * none). Scaled out, every member numbers its own checkpoints and commits to the same table,
 * so only the snapshots of `member` count: another member's higher seq says nothing about
 * this member's batches. A single process (`member` null) counts the snapshots without a
 * member, which are all snapshots a table had before scale-out.
 */
export function committedSeq(meta: TableMetadata, pipeline: string, sink: string, member: string | null = null): number {
  let max = 0;
  for (const s of meta.snapshots ?? []) {
    const sum = s.summary ?? {};
    if (sum[SUMMARY.pipeline] !== pipeline || sum[SUMMARY.sink] !== sink) continue;
    if ((sum[SUMMARY.member] ?? null) !== member) continue;
    const n = Number(sum[SUMMARY.seq]);
    if (Number.isFinite(n) && n > max) max = n;
  }
  return max;
}
