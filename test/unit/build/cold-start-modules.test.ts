// Cold start (issue 14.5): a `pipec check` of a spec that names no schema file must not load the
// schema libraries (avsc, protobufjs, pg, ajv: most of the compiler's code by size), which src/schema
// imports on first use; nor ajv for a `.pipe.yaml` (its validator is compiled at build time). The CLI is bundled as `npm run build` bundles it (scripts/bundle.mjs's
// options, plus a metafile), run on a datagen → file spec with a hook that records every module
// the process loads, and each loaded chunk's inputs are read from the metafile. A spec with an
// Avro file schema is the control: the same check does load avsc there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { cliBuildOptions } from '../../../scripts/bundle.mjs';
import { format } from '../../../src/api.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const HEAVY = ['avsc', 'protobufjs', 'pg', 'pg-protocol', 'pg-logical-replication', 'ajv'];

/** Packages (node_modules/<name>) whose code is in the chunks the process loaded. */
function packagesLoaded(loaded: string[], outdir: string, meta: Metafile): Set<string> {
  const found = new Set<string>();
  for (const file of loaded) {
    const out = meta.outputs[relative(ROOT, file).split('\\').join('/')];
    assert.ok(out || !file.startsWith(outdir), `a loaded chunk the metafile does not list: ${file}`);
    for (const input of Object.keys(out?.inputs ?? {})) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (m) found.add(m[1]!);
    }
  }
  return found;
}

test('a cold check of a datagen → file spec loads no schema library; one with an Avro schema loads avsc', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-cold-'));
  try {
    const outdir = join(dir, 'dist');
    const opts = cliBuildOptions(outdir);
    const result = await build({ ...opts, write: true, metafile: true, sourcemap: false });
    const meta = result.metafile!;
    // Output paths in the metafile are relative to absWorkingDir (the checkout).
    const hook = join(dir, 'hook.mjs');
    const log = join(dir, 'loaded.txt');
    writeFileSync(
      hook,
      [
        "import { appendFileSync } from 'node:fs';",
        "import { fileURLToPath } from 'node:url';",
        `export async function load(url, context, next) { if (url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, fileURLToPath(url) + '\\n'); return next(url, context); }`,
      ].join('\n'),
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(register, `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hook).href)});`);
    const project = join(dir, 'project');
    const run = (spec: string): Set<string> => {
      rmSync(log, { force: true });
      const cli = pathToFileURL(join(outdir, 'pipec.mjs')).href;
      const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, '--input-type=module', '-e', `const { runCli } = await import(${JSON.stringify(cli)}); await runCli(['check', ${JSON.stringify(spec)}]);`], { cwd: project, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return packagesLoaded(readFileSync(log, 'utf8').trim().split('\n'), outdir, meta);
    };
    spawnSync('mkdir', ['-p', project]);
    copyFileSync(join(ROOT, 'specs', 'quickstart.pipe.sql'), join(project, 'quickstart.pipe.sql'));
    const yamlForm = format({ path: 'quickstart.pipe.sql', text: readFileSync(join(ROOT, 'specs', 'quickstart.pipe.sql'), 'utf8'), to: 'yaml' }).text!;
    writeFileSync(join(project, 'quickstart.pipe.yaml'), yamlForm.replace('pipeline: quickstart', 'pipeline: quickstart_yaml'));
    copyFileSync(join(ROOT, 'test', 'fixtures', 'schemas', 'avro', 'all-types.avsc'), join(project, 'all-types.avsc'));
    writeFileSync(
      join(project, 'avro.pipe.sql'),
      `PIPELINE avro_in;\nCREATE SOURCE s WITH (connector = 'kafka', topic = 't', brokers = 'localhost:9092', format = 'avro', schema = 'file:all-types.avsc');\nCREATE SINK out FROM s WITH (connector = 'stdout');\n`,
    );

    const plain = run('quickstart.pipe.sql');
    assert.ok(plain.has('chevrotain'), 'the hook sees the bundled packages of the loaded chunks');
    assert.deepEqual(HEAVY.filter((p) => plain.has(p)), []);
    // The YAML form is validated by the schema validator compiled at build time: no ajv either.
    assert.deepEqual(HEAVY.filter((p) => run('quickstart.pipe.yaml').has(p)), []);
    assert.ok(run('avro.pipe.sql').has('avsc'), 'a spec with an Avro schema file loads avsc');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
