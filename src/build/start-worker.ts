// Starts one of the build's worker threads by entry name (`build-worker`, `write-worker`), from
// the CLI bundle or from the TypeScript sources alike.
import { Worker } from 'node:worker_threads';

export function startWorker(entry: 'build-worker' | 'write-worker', workerData: unknown): Worker {
  // In the CLI bundle this code sits in dist/chunks/ or dist/cli/, and each worker is its own
  // entry, dist/<entry>.mjs.
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(/\/(chunks|cli)\/[^/]+$/.test(import.meta.url) ? `../${entry}.mjs` : `./${entry}.mjs`, import.meta.url), { workerData });
  // From the sources (tests, tsx) the worker is the .ts file beside this one, and needs tsx's
  // loader, which a worker does not get from the parent's `--import tsx` on Node 20.
  const url = new URL(`./${entry}.ts`, import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(url)}); });`;
  return new Worker(boot, { eval: true, workerData, execArgv: [] });
}
