// A worker thread of `pipec run --workers N` when pipec runs from its TypeScript sources (tests,
// benchmarks under tsx): tsx's loader does not reach worker threads by itself, so register it
// here, then load the real entry (run-worker.ts). The bundled CLI uses dist/run-worker.mjs.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./run-worker.ts', import.meta.url).href);
