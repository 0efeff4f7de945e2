#!/usr/bin/env node
// The `pipec` command: loads the bundled CLI (dist/, built by `npm run build` and by npm's
// prepare/prepack scripts) and calls its entry. Works through any symlink (npx, npm link,
// node_modules/.bin, global installs): the CLI never guesses whether it is the main module.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = new URL('../dist/pipec.mjs', import.meta.url);
if (!existsSync(fileURLToPath(bundle))) {
  process.stderr.write('pipec: the CLI bundle is missing; run `npm run build` in the pipec checkout first\n');
  process.exit(2);
}
const { runCli } = await import(bundle.href);
await runCli(process.argv.slice(2));
