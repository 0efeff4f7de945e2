// A bounded one-partition source over records held in memory: NDJSON lines (decoded like a
// file) or already-decoded rows. Used by benchmarks and tests through RunOptions.memorySources.
import type { Row } from '../ops/types.ts';
import type { Coordinates, DecodeError, RunningSource, SourceDef, SourceSink } from './source-types.ts';
import { decodeReason } from './guarded-decode.ts';
import { RowBatch } from './row-batch.ts';

export class MemorySource implements RunningSource {
  readonly bounded = true;
  private next = 0;
  private readonly p: number;
  private readonly err: DecodeError = { column: '', reason: '' };
  private readonly batch: RowBatch;
  private readonly at = (i: number): Coordinates => ({ partition: 'memory', offset: i });

  constructor(
    readonly def: SourceDef,
    private readonly out: SourceSink,
    private readonly lines: string[] | null,
    private readonly rows: Row[] | null,
  ) {
    this.p = out.partitionAdded(`${def.name}-memory`);
    this.batch = new RowBatch(out, this.p, this.at);
  }

  private get total(): number {
    return this.lines?.length ?? this.rows?.length ?? 0;
  }

  get finished(): boolean {
    return this.next >= this.total;
  }

  async poll(budget: number): Promise<number> {
    const end = Math.min(this.total, this.next + budget * 8);
    const n0 = this.next;
    const batch = this.batch;
    if (this.rows !== null) {
      // Already a batch: a slice of the array goes over as it is.
      if (this.out.rowBatch) this.out.rowBatch(this.p, this.rows, this.next, end, this.at);
      else for (let i = this.next; i < end; i++) this.out.row(this.p, this.rows[i]!);
    } else {
      const lines = this.lines!;
      const decode = this.def.decode!;
      for (let i = this.next; i < end; i++) {
        const row = decode(JSON.parse(lines[i]!), this.err);
        if (row !== null) batch.add(row, i);
        else {
          // The rows before it first: the runner sees rows and dead letters in input order.
          batch.flush();
          this.out.dead({ partition: 'memory', offset: i }, decodeReason(this.err), lines[i]!);
        }
      }
    }
    batch.flush();
    this.next = end;
    if (this.finished) this.out.partitionDone(this.p);
    return end - n0;
  }

  position(): unknown {
    return { next: this.next };
  }

  seek(pos: unknown): void {
    this.next = (pos as { next: number }).next;
  }

  async close(): Promise<void> {}
}
