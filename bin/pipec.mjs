#!/usr/bin/env node
// The `pipec` command: loads the bundled CLI (built by `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../dist/pipec.mjs', import.meta.url));
if (!existsSync(bundle)) {
  process.stderr.write('pipec: the CLI bundle is missing; run `npm run build` in the pipec checkout first\n');
  process.exit(2);
}
await import(bundle);
