// The messages between a parallel build's main thread (build-parallel.ts) and its workers
// (build-worker.ts): plain, structured-cloneable data only.
import type { DiagnosticBagData } from '../diagnostics/bag.ts';
import type { Diagnostic } from '../diagnostics/diagnostic.ts';
import type { Span } from '../diagnostics/span.ts';
import type { EmittedFile, TargetName } from '../plan/physical/target-api.ts';

/** The worker's `workerData`. */
export interface WorkerInput {
  files: string[];
  cwd: string;
  outDir: string;
  env: Record<string, string | undefined>;
  targets: TargetName[];
  diagnosticsOnly: boolean;
  /** The index of the next spec to take (one Int32, shared by every thread of the build). */
  next: Int32Array;
}

/** A text sent earlier by the same worker, by number. */
export interface SharedText {
  shared: number;
}

export type FromWorker =
  | {
      kind: 'spec';
      index: number;
      path: string;
      diagnostics: DiagnosticBagData;
      pipeline: { name: string; at: Span } | null;
      planText: string;
      emissions: { files: (Omit<EmittedFile, 'contents'> & { contents: string | Uint8Array | SharedText })[]; diagnostics: Diagnostic[] }[];
      /** Texts first sent with this message: number → text. */
      shared: [number, string][];
    }
  | { kind: 'failed'; message: string; stack: string | undefined }
  | { kind: 'done' };
