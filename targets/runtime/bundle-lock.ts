// `runtime/bundle.lock.json`: what a reviewer (and `pipec build --check`) sees of a runtime
// bundle, which itself is a git-ignored build output. It pins the runtime version, a digest of
// the runtime library sources that went into the bundle, the esbuild version, the runtime
// modules (connectors, formats) the bundle carries, and the sha256 of both bundle files
// (`pipeline.mjs` and its `runtime.mjs`), so a change of any of them shows in generated/
// without committing megabytes of bundle. Deterministic: no paths outside the package, no times.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { version as esbuildVersion } from 'esbuild';
import pkg from '../../package.json' with { type: 'json' };
import { RUNTIME_FILE, type PipelineBundle } from './bundle.ts';

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

// Per library bundle (shared by every pipeline with the same runtime modules): its digest once.
const digests = new WeakMap<PipelineBundle['library'], string>();

export function bundleLock(root: string, bundle: PipelineBundle): string {
  let digest = digests.get(bundle.library);
  if (digest === undefined) digests.set(bundle.library, (digest = libraryDigest(root, bundle.inputs)));
  const lock = {
    runtime: pkg.version,
    library: `sha256:${digest}`,
    esbuild: esbuildVersion,
    modules: bundle.library.modules,
    bundle: { sha256: sha256(bundle.text), bytes: Buffer.byteLength(bundle.text) },
    libraryBundle: { file: RUNTIME_FILE, sha256: bundle.library.sha256, bytes: bundle.library.bytes },
  };
  return JSON.stringify(lock, null, 2) + '\n';
}
