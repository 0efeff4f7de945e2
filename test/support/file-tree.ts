// Every file under a folder as relative path → contents (latin1: any bytes survive, so two
// trees compare byte for byte with assert.deepEqual). Used by the build tests that compare a
// written tree with another build's or with the library API's outputs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function fileTree(dir: string, rel = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    if (statSync(join(dir, r)).isDirectory()) for (const [k, v] of fileTree(dir, r)) out.set(k, v);
    else out.set(r, readFileSync(join(dir, r), 'latin1'));
  }
  return out;
}
