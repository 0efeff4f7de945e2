// Changelog normalize (Flink's ChangelogNormalize): keeps the last row of every primary key
// of a changelog source and rewrites the source's changes into a complete retract stream.
// PostgreSQL sends an update's old row only under REPLICA IDENTITY FULL and a delete's old
// row as the key only otherwise; operators that compute on rows (GROUP BY retraction,
// filters, expressions) need the full old row, which this state supplies:
//   '+I' / '+U' for an unknown key → '+I';  for a known key → '-U' old, '+U' new
//   (nothing when the row did not change);  '-U' → dropped (the state has the old row);
//   '-D' → '-D' with the stored row (dropped for an unknown key);
//   TRUNCATE marker → '-D' for every stored row.
import { isTruncate, rowKind, setRowKind, type Row, type StatefulOp } from './types.ts';

export interface ChangelogNormalizeConfig {
  id: string;
  /** The primary key of a row (a Map key, as AggFns.keyOf). */
  keyOf: (row: Row) => unknown;
  out: (row: Row) => void;
}

function sameRow(a: Row, b: Row): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class ChangelogNormalizeOp implements StatefulOp {
  readonly id: string;
  private readonly rows = new Map<unknown, Row>();

  constructor(private readonly cfg: ChangelogNormalizeConfig) {
    this.id = cfg.id;
  }

  push(row: Row): void {
    if (isTruncate(row)) {
      for (const old of this.rows.values()) this.cfg.out(setRowKind(old.slice(), '-D'));
      this.rows.clear();
      return;
    }
    const kind = rowKind(row);
    if (kind === '-U') return;
    const key = this.cfg.keyOf(row);
    const old = this.rows.get(key);
    if (kind === '-D') {
      if (old === undefined) return;
      this.rows.delete(key);
      this.cfg.out(setRowKind(old.slice(), '-D'));
      return;
    }
    // Stored without a kind: the stored array is handed out only as copies.
    const now = row.slice();
    this.rows.set(key, now);
    if (old === undefined) {
      this.cfg.out(now.slice());
      return;
    }
    if (sameRow(old, now)) return;
    this.cfg.out(setRowKind(old.slice(), '-U'));
    this.cfg.out(setRowKind(now.slice(), '+U'));
  }

  advance(_wm: number): void {}

  stateSize(): number {
    return this.rows.size;
  }

  snapshot(): unknown {
    return [...this.rows];
  }

  restore(state: unknown): void {
    this.rows.clear();
    for (const [k, r] of state as [unknown, Row][]) this.rows.set(k, r);
  }
}
