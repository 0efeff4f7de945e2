// Writes docs/connectors.md from the connector descriptors (src/connectors/docs.ts). Run by
// `npm run docs:connectors`; `--check` exits 1 when the file is stale instead of writing it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONNECTORS } from '../src/connectors/index.ts';
import { CONNECTOR_DOCS_PATH, connectorsMarkdown } from '../src/connectors/docs.ts';

const path = join(import.meta.dirname, '..', CONNECTOR_DOCS_PATH);
const text = connectorsMarkdown(CONNECTORS);
if (process.argv.includes('--check')) {
  let now = '';
  try {
    now = readFileSync(path, 'utf8');
  } catch {
    // missing: stale
  }
  if (now !== text) {
    process.stderr.write(`${CONNECTOR_DOCS_PATH} is stale: run npm run docs:connectors\n`);
    process.exit(1);
  }
} else {
  writeFileSync(path, text);
  process.stdout.write(`wrote ${CONNECTOR_DOCS_PATH}\n`);
}
