// A bounded one-partition source over records held in memory: NDJSON lines (decoded like a
// file) or already-decoded rows. Used by benchmarks and tests through RunOptions.memorySources.
import type { Row } from '../ops/types.ts';
import type { DecodeError, RunningSource, SourceDef, SourceSink } from './source-types.ts';
import { decodeReason } from './guarded-decode.ts';

export class MemorySource implements RunningSource {
  readonly bounded = true;
  private next = 0;
  private readonly p: number;
  private readonly err: DecodeError = { column: '', reason: '' };

  constructor(
    readonly def: SourceDef,
    private readonly out: SourceSink,
    private readonly lines: string[] | null,
    private readonly rows: Row[] | null,
  ) {
    this.p = out.partitionAdded(`${def.name}-memory`);
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
    if (this.rows !== null) {
      const rows = this.rows;
      for (let i = this.next; i < end; i++) this.out.row(this.p, rows[i]!);
    } else {
      const lines = this.lines!;
      const decode = this.def.decode!;
      for (let i = this.next; i < end; i++) {
        const row = decode(JSON.parse(lines[i]!), this.err);
        if (row === null) this.out.dead({ partition: 'memory', offset: i }, decodeReason(this.err), lines[i]!);
        else this.out.row(this.p, row);
      }
    }
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
