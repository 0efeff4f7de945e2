// A source's batch of decoded rows of one partition, handed to the runner at once
// (`SourceSink.rowBatch`) instead of one call per row: a Kafka fetch, a chunk of file lines, a
// memory slice. The batch keeps the input's order exactly; a source flushes it before anything
// else it tells the runner (a dead letter, a partition's end, a watermark), so the runner sees
// the same sequence of rows and events as row by row. Each slot remembers where its row came
// from (a line or an offset), turned into coordinates only for a dead letter the runner raises.
import type { Row } from '../ops/types.ts';
import type { Coordinates, SourceSink } from './source-types.ts';

/** Rows per batch: a batch is handed over when it is full, and at the end of every read. */
export const BATCH_ROWS = 1024;

export class RowBatch {
  private readonly rows: Row[] = [];
  private readonly where: number[] = [];
  private n = 0;
  private readonly at = (i: number): Coordinates => this.coordinates(this.where[i]!);

  /** `coordinates(where)`: the coordinates of a row added with `where` (its line, its offset). */
  constructor(
    private readonly out: SourceSink,
    private readonly p: number,
    private readonly coordinates: (where: number) => Coordinates,
  ) {}

  add(row: Row, where: number): void {
    // A sink without batches gets each row at once, while the source is at that row.
    if (this.out.rowBatch === undefined) {
      this.out.row(this.p, row);
      return;
    }
    this.rows[this.n] = row;
    this.where[this.n++] = where;
    if (this.n === BATCH_ROWS) this.flush();
  }

  /** Hands the rows added so far to the runner. */
  flush(): void {
    const n = this.n;
    if (n === 0) return;
    this.n = 0;
    this.out.rowBatch!(this.p, this.rows, 0, n, this.at);
  }
}
