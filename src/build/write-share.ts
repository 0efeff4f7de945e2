// One thread's share of writing a build (write-build.ts): some pipelines' reviewable outputs
// under --out, then their bundles under the bundle folder, and the plain-data form in which a
// share crosses to a write worker (write-worker.ts): a library bundle that most pipelines share
// is sent once and named by number, not copied once per pipeline.
import { writeBundles } from './write-bundles.ts';
import { writeOutputs, type WriteReport } from './write-outputs.ts';

type Contents = string | Uint8Array;

export interface WriteShare {
  cwd: string;
  outDir: string;
  bundleDir: string;
  /** The share's pipelines (their manifests are written, their stale files removed). */
  pipelines: string[];
  outputs: Map<string, Contents>;
  bundles: Map<string, Contents>;
}

export function writeShare(share: WriteShare): WriteReport {
  const report = writeOutputs(share.cwd, share.outDir, share);
  writeBundles(share.cwd, share.bundleDir, share);
  return report;
}

/** A WriteShare as structured-cloneable data: contents as numbers into `texts`. */
export interface SharePacket {
  cwd: string;
  outDir: string;
  bundleDir: string;
  pipelines: string[];
  outputs: [string, Contents][];
  bundles: [string, number][];
  texts: Contents[];
}

export function packShare(share: WriteShare): SharePacket {
  // Only bundles repeat (the library bundle); outputs are one pipeline's each.
  const numbers = new Map<Contents, number>();
  const texts: Contents[] = [];
  const numberOf = (c: Contents): number => {
    let n = numbers.get(c);
    if (n === undefined) numbers.set(c, (n = texts.push(c) - 1));
    return n;
  };
  const bundles = [...share.bundles].map(([rel, c]): [string, number] => [rel, numberOf(c)]);
  return { cwd: share.cwd, outDir: share.outDir, bundleDir: share.bundleDir, pipelines: share.pipelines, outputs: [...share.outputs], bundles, texts };
}

export function unpackShare(p: SharePacket): WriteShare {
  return { cwd: p.cwd, outDir: p.outDir, bundleDir: p.bundleDir, pipelines: p.pipelines, outputs: new Map(p.outputs), bundles: new Map(p.bundles.map(([rel, n]) => [rel, p.texts[n]!])) };
}

/** What a write worker posts back: its report, or its failure with what the CLI names (code, path). */
export type WriteOutcome =
  | { kind: 'written'; report: WriteReport }
  | { kind: 'failed'; message: string; outputPath: boolean; code?: string; path?: string; stack?: string };
