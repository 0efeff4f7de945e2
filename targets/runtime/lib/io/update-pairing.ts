// Pairs the update rows of a changelog for keyed (upsert) sinks — Kafka (upsert-kafka),
// ClickHouse (ReplacingMergeTree). A '-U' immediately followed by the '+U' of the same upsert
// key is an update: the '+U' replaces the key's row. A '-U' followed by anything else, or by
// nothing before the sink's flush or commit, deletes its key: that is what a filter after a
// GROUP BY (HAVING ... EMIT CHANGES) leaves when a group stops passing it — the filter dropped
// the '+U', and the group's last passing row must go, as in Flink's upsert sinks and in our
// Iceberg sink. GROUP BY and changelog normalize emit a '-U' and its '+U' back to back within
// one input row, and the runner flushes only between input batches, so a real update is never
// split by a flush.
import { rowKind, type Row } from '../ops/types.ts';

/** Writes one row as the key's new value (`upsert`) or as the key's removal (`delete`). */
export type UpsertWrite = (row: Row, action: 'upsert' | 'delete') => void;

export class UpdatePairing {
  /** The '-U' waiting for its '+U': at most one row is held. */
  private held: Row | null = null;

  /**
   * `keyIdx`: the upsert key's column indexes. Null (a changelog the plan knows no key of): a
   * '-U' directly followed by any '+U' is taken as its update, as the operators emit them.
   * `write` is called for every row that comes out, in order.
   */
  constructor(
    private readonly keyIdx: readonly number[] | null,
    private readonly write: UpsertWrite,
  ) {}

  /** Takes the sink's next changelog row. */
  push(row: Row): void {
    const kind = rowKind(row);
    const held = this.held;
    if (held !== null) {
      this.held = null;
      if (kind === '+U' && (this.keyIdx === null || sameKey(held, row, this.keyIdx))) {
        this.write(row, 'upsert');
        return;
      }
      this.write(held, 'delete');
    }
    if (kind === '-U') this.held = row;
    else this.write(row, kind === '-D' ? 'delete' : 'upsert');
  }

  /** Flush / commit: a '-U' still waiting was not followed by its '+U', so its key is deleted. */
  release(): void {
    const held = this.held;
    if (held === null) return;
    this.held = null;
    this.write(held, 'delete');
  }

  /** Forgets a held row (exactly-once close: rows no checkpoint names are recomputed on resume). */
  discard(): void {
    this.held = null;
  }

  /** Whether a '-U' is waiting (tests, pending-row counts). */
  get holding(): boolean {
    return this.held !== null;
  }
}

/**
 * Whether two rows have the same values in the key columns. Runtime values are primitives in
 * canonical form (an integer is a number when safe, else a BigInt), so `===` compares them;
 * composite values (ARRAY, MAP, ROW) compare by their JSON text (a Map as its entries).
 */
export function sameKey(a: Row, b: Row, keyIdx: readonly number[]): boolean {
  for (const i of keyIdx) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (JSON.stringify(x, bigintText) !== JSON.stringify(y, bigintText)) return false;
  }
  return true;
}

const bigintText = (_k: string, v: unknown): unknown => (typeof v === 'bigint' ? `${v}n` : v instanceof Map ? [...v] : v);
