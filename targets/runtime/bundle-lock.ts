// `runtime/bundle.lock.json`: what a reviewer (and `pipec build --check`) sees of a runtime
// bundle, which itself is a git-ignored build output. It pins the runtime version, a digest of
// the runtime library sources that went into the bundle, the esbuild version and the bundle's
// sha256, so a change of any of them shows in generated/ without committing megabytes of
// bundle. Deterministic: no paths outside the package, no times.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { version as esbuildVersion } from 'esbuild';
import pkg from '../../package.json' with { type: 'json' };
import type { PipelineBundle } from './bundle.ts';

export const BUNDLE_LOCK_PATH = 'runtime/bundle.lock.json';

const sha256 = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

// A build reads the same library files for every pipeline: hash each once per process.
const fileDigests = new Map<string, string>();

/**
 * Digest of pipec's own sources in the bundle (the runtime library and what it imports from
 * the compiler's tree), by path and content; third-party packages are covered by the bundle's
 * own sha256 and the lockfile.
 */
export function libraryDigest(root: string, inputs: string[]): string {
  const h = createHash('sha256');
  for (const rel of inputs) {
    if (rel.split('/').includes('node_modules') || rel.startsWith('../')) continue;
    let d = fileDigests.get(rel);
    if (d === undefined) {
      d = sha256(readFileSync(path.join(root, rel)));
      fileDigests.set(rel, d);
    }
    h.update(`${rel}\0${d}\n`);
  }
  return h.digest('hex');
}

export function bundleLock(root: string, bundle: PipelineBundle): string {
  const lock = {
    runtime: pkg.version,
    library: `sha256:${libraryDigest(root, bundle.inputs)}`,
    esbuild: esbuildVersion,
    bundle: { sha256: sha256(bundle.text), bytes: Buffer.byteLength(bundle.text) },
  };
  return JSON.stringify(lock, null, 2) + '\n';
}
