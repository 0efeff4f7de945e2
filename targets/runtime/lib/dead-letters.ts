// The dead-letter file of a run (engine.ts): records a source could not decode, one NDJSON line
// each, opened on the first dead letter or, on resume, where the checkpoint left it. Dead letters
// are a record for people, not output: a file changed since the checkpoint (cleared, say) is
// continued where it now ends, with a warning, never padded to the recorded length.
import * as path from 'node:path';
import { TruncatingFile, type FileProgress } from './io/sinks.ts';

export class DeadLetterFile {
  readonly path: string;
  private readonly file: TruncatingFile;
  private opened = false;
  /** Where the file stood at the checkpoint resumed from (null: start afresh). */
  private resumedAt: FileProgress | null = null;

  /** Members of a scaled-out pipeline may share a base directory: each writes its own file. */
  constructor(
    baseDir: string,
    pipeline: string,
    configured: string | undefined,
    member: string | null,
    private readonly warn: (message: string) => void,
  ) {
    this.path = path.resolve(baseDir, configured ?? (member ? `${pipeline}.${member}.dead-letters.ndjson` : `${pipeline}.dead-letters.ndjson`));
    this.file = new TruncatingFile(this.path, 'the dead-letter file');
  }

  get isOpen(): boolean {
    return this.opened;
  }

  /** Resuming: the file continues at the checkpoint's progress (opened now when it had any). */
  resume(progress: FileProgress | null): void {
    this.resumedAt = progress;
    if (progress !== null) this.open();
  }

  append(line: string): void {
    this.open();
    this.file.append(line);
  }

  /** What a checkpoint records (null while nothing was written). */
  progress(): FileProgress | null {
    return this.opened ? this.file.progress() : null;
  }

  flush(): void {
    if (this.opened) this.file.flush();
  }

  close(): void {
    if (this.opened) this.file.close();
  }

  private open(): void {
    if (this.opened) return;
    const why = this.resumedAt === null ? null : this.file.mismatch(this.resumedAt);
    if (why !== null) {
      this.warn(`the dead-letter file ${this.path} changed since the last checkpoint (${why}); new dead letters go after what it holds now`);
      this.resumedAt = { bytes: this.file.size() };
    }
    this.file.open(this.resumedAt?.bytes ?? null);
    this.opened = true;
  }
}
