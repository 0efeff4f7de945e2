// How many threads `pipec run` uses when `--workers` is not given: one per core when the plan
// is one the workers run and its input is large enough to gain, else the one-thread engine.
// A worker costs ~0.15–0.2 s of CPU to start and parallelism comes from the files a source
// matches (each file is one partition), so small or single-file inputs stay on one thread,
// where they are fastest. The terminal's status line and `--metrics-port` exist on one thread
// only yet, so a run that shows them keeps one thread rather than losing them silently.
import { statSync } from 'node:fs';
import type { PipelineDef } from '../pipeline-types.ts';
import { matchFiles } from '../io/file-source.ts';
import type { Unsupported } from './support.ts';

/** Input below this many bytes (all files of all sources) runs on one thread. */
export const AUTO_MIN_BYTES = 64 * 1024 * 1024;

export interface AutoInputs {
  cores: number;
  /** The byte sizes of the files each source matches, by source name. */
  files: number[][];
  /** What `--workers N > 1` would refuse in this plan (support.ts). */
  refused: Unsupported[];
  /** A status line on a terminal, or a metrics endpoint: features of the one-thread engine. */
  oneThreadFeatures: boolean;
}

/** The default thread count: min(cores, the most files of any source) when every condition holds, else 1. */
export function autoWorkerCount(x: AutoInputs): number {
  if (x.cores < 2 || x.refused.length > 0 || x.oneThreadFeatures) return 1;
  const bytes = x.files.flat().reduce((a, b) => a + b, 0);
  if (bytes < AUTO_MIN_BYTES) return 1;
  const most = Math.max(0, ...x.files.map((f) => f.length));
  return Math.max(1, Math.min(x.cores, most));
}

/** The byte sizes of each file source's matched files (a source that matches nothing, or is no file source: none). */
export async function sourceFileSizes(def: PipelineDef, baseDir: string): Promise<number[][]> {
  const out: number[][] = [];
  for (const s of def.sources) {
    if (s.connector !== 'file') {
      out.push([]);
      continue;
    }
    try {
      out.push((await matchFiles(s, baseDir)).map((f) => statSync(f).size));
    } catch {
      // Unreadable or unmatched: the one-thread engine reports it as it always has.
      out.push([]);
    }
  }
  return out;
}
