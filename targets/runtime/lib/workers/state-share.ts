// Checkpoint state of a `--workers N` run in the single-threaded format: the workers' shares are
// merged when a checkpoint is taken and split again on resume, so a checkpoint does not remember
// how many workers wrote it (resume with another N, or with --workers 1). File positions and
// partition clocks are keyed by file; a window aggregate's state is keyed by group key, and the
// key's owner is `ownerOf` (key-hash.ts), a session aggregate's by PARTITION BY key, a GROUP
// BY's by group key, an interval join's by join key (both sides). The
// snapshots' shapes are the operators' own (ops/window-agg.ts and ops/session-agg.ts
// `snapshot()`); test/unit/runtime/workers-state.test.ts holds them together.
import { ownerOf } from './key-hash.ts';

type Acc = unknown[];
export interface WindowSnapshot {
  wm: number;
  seq: number;
  panes: [number, [unknown, unknown[], Acc][]][];
  pending: [number, number][];
}

/**
 * One window snapshot from the workers' own: each key lives in one worker, so the panes' groups
 * are a disjoint union; every worker saw the same watermarks (the minimum over all senders), so
 * they agree on the windows still open (taken as a union all the same).
 */
export function mergeWindowSnapshots(shares: WindowSnapshot[]): WindowSnapshot {
  const panes = new Map<number, [unknown, unknown[], Acc][]>();
  const pending = new Map<string, [number, number]>();
  let wm = Number.POSITIVE_INFINITY;
  let seq = 0;
  for (const s of shares) {
    if (s.wm < wm) wm = s.wm;
    seq += s.seq;
    for (const [p, groups] of s.panes) {
      const into = panes.get(p);
      if (into) into.push(...groups);
      else panes.set(p, [...groups]);
    }
    for (const w of s.pending) pending.set(`${w[0]}:${w[1]}`, w);
  }
  if (shares.length === 0) wm = Number.NEGATIVE_INFINITY;
  const byTime = (a: [number, number], b: [number, number]): number => a[1] - b[1] || a[0] - b[0];
  return { wm, seq, panes: [...panes].sort((a, b) => a[0] - b[0]), pending: [...pending.values()].sort(byTime) };
}

/** Worker `index`'s share of a (merged) window snapshot: the groups whose key it owns. */
export function windowShare(s: WindowSnapshot, index: number, n: number): WindowSnapshot {
  return {
    wm: s.wm,
    seq: s.seq,
    panes: s.panes.map(([p, groups]) => [p, groups.filter(([key]) => ownerOf(key, n) === index)]),
    pending: s.pending,
  };
}

export interface SessionSnapshot {
  wm: number;
  seq: number;
  sessionSeq: number;
  /** PARTITION BY key → its open sessions (SessionAggOp's own encoding of each). */
  parts: [unknown, unknown[]][];
}

/**
 * One session snapshot from the workers' own: a partition key's sessions live in one worker
 * (sessions merge only within a key), so the partitions are a disjoint union. The counters
 * are summed: each is then at least every worker's, and they only order timers and mark
 * changed bounds.
 */
export function mergeSessionSnapshots(shares: SessionSnapshot[]): SessionSnapshot {
  let wm = shares.length === 0 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  let seq = 0;
  let sessionSeq = 0;
  const parts: [unknown, unknown[]][] = [];
  for (const s of shares) {
    if (s.wm < wm) wm = s.wm;
    seq += s.seq;
    sessionSeq += s.sessionSeq;
    parts.push(...s.parts);
  }
  return { wm, seq, sessionSeq, parts };
}

/** Worker `index`'s share of a (merged) session snapshot: the partitions whose key it owns. */
export function sessionShare(s: SessionSnapshot, index: number, n: number): SessionSnapshot {
  return { ...s, parts: s.parts.filter(([pk]) => ownerOf(pk, n) === index) };
}

export interface GroupSnapshot {
  seq: number;
  /** Group key → its values, accumulators, last touch (processing time) and row count: GroupAggOp's own. */
  groups: [unknown, unknown[], unknown[], number, number?][];
}

/**
 * One GROUP BY snapshot from the workers' own: each group key lives in one worker. The groups
 * are put in order of their last touch, the order a state TTL expires them in one thread.
 */
export function mergeGroupSnapshots(shares: GroupSnapshot[]): GroupSnapshot {
  const groups = shares.flatMap((s) => s.groups);
  groups.sort((a, b) => a[3] - b[3]);
  return { seq: shares.reduce((n, s) => n + s.seq, 0), groups };
}

/** Worker `index`'s share of a (merged) GROUP BY snapshot: the groups whose key it owns. */
export function groupShare(s: GroupSnapshot, index: number, n: number): GroupSnapshot {
  return { seq: s.seq, groups: s.groups.filter(([key]) => ownerOf(key, n) === index) };
}

export interface JoinSnapshot {
  wm: number;
  lastCleanup: number;
  /** Join key → the buffered rows of that side (IntervalJoinOp's own encoding). */
  left: [unknown, unknown[]][];
  right: [unknown, unknown[]][];
}

/**
 * One interval-join snapshot from the workers' own: both sides' rows of one join key live in one
 * worker (a left row's key and a matching right row's key are the same value, or the join would
 * not match them in one thread), so each side's keys are a disjoint union.
 */
export function mergeJoinSnapshots(shares: JoinSnapshot[]): JoinSnapshot {
  const low = (xs: number[]): number => (xs.length === 0 ? Number.NEGATIVE_INFINITY : Math.min(...xs));
  return { wm: low(shares.map((s) => s.wm)), lastCleanup: low(shares.map((s) => s.lastCleanup)), left: shares.flatMap((s) => s.left), right: shares.flatMap((s) => s.right) };
}

/** Worker `index`'s share of a (merged) interval-join snapshot: both sides' keys it owns. */
export function joinShare(s: JoinSnapshot, index: number, n: number): JoinSnapshot {
  const mine = ([key]: [unknown, unknown[]]): boolean => ownerOf(key, n) === index;
  return { ...s, left: s.left.filter(mine), right: s.right.filter(mine) };
}

/** How each partitioned operator kind's state is merged into one thread's and split again. */
export const OPERATOR_STATE: Record<'windowAgg' | 'sessionAgg' | 'groupAgg' | 'intervalJoin', { merge(shares: unknown[]): unknown; share(state: unknown, index: number, n: number): unknown }> = {
  windowAgg: { merge: (x) => mergeWindowSnapshots(x as WindowSnapshot[]), share: (st, i, n) => windowShare(st as WindowSnapshot, i, n) },
  sessionAgg: { merge: (x) => mergeSessionSnapshots(x as SessionSnapshot[]), share: (st, i, n) => sessionShare(st as SessionSnapshot, i, n) },
  groupAgg: { merge: (x) => mergeGroupSnapshots(x as GroupSnapshot[]), share: (st, i, n) => groupShare(st as GroupSnapshot, i, n) },
  intervalJoin: { merge: (x) => mergeJoinSnapshots(x as JoinSnapshot[]), share: (st, i, n) => joinShare(st as JoinSnapshot, i, n) },
};

/** A file source's position: per file (path relative to the spec), where the next line starts. */
export type FilePositions = Record<string, unknown>;

/** A partition clock's snapshot (watermarks.ts `SourceClock.snapshot`). */
export interface ClockSnapshot {
  wm: number;
  parts: [string, number, boolean][];
}

/** The source's clock from the workers' clocks: their partitions side by side, the lowest watermark. */
export function mergeClocks(shares: ClockSnapshot[]): ClockSnapshot {
  const held = shares.filter((s) => s.parts.length > 0);
  return {
    wm: held.length === 0 ? Number.NEGATIVE_INFINITY : Math.min(...held.map((s) => s.wm)),
    parts: shares.flatMap((s) => s.parts).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
  };
}

/** A worker's clock on resume: only the partitions it owns (another's would hold its watermark back forever). */
export function clockShare(s: ClockSnapshot, owns: (partition: string) => boolean): ClockSnapshot {
  return { wm: s.wm, parts: s.parts.filter(([id]) => owns(id)) };
}

/** The partitions' positions from the workers': each file's entry from the worker that owns it. */
export function mergePositions(shares: FilePositions[]): FilePositions {
  const all: FilePositions = {};
  for (const s of shares) Object.assign(all, s);
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
