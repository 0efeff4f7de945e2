// pipec as a user installs it: `npm pack` of this checkout, installed with `npm install -D` into
// a temporary project that holds only a `pipelines/` folder, then `npx pipec check`, `build`,
// `build --check` (fresh → 0, stale → 1), `run`, the built bundle under plain `node`, and the
// same CLI through node_modules/.bin and through another symlink (npm link, global installs).
//
// Offline: npm ci leaves the dependencies' tarballs in the npm cache but not their registry
// metadata, so the project gets a lockfile seeded with pipec's own pinned production
// dependencies (what `npm install` would resolve them to), and npm installs from the cache.
// --ignore-scripts: better-sqlite3 (only the SQLite Iceberg catalog needs it) would otherwise be
// compiled from source offline, ~13 min on this machine; esbuild works without its postinstall.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bundleLibrary } from '../../targets/runtime/bundle.ts';
import { ALL_RUNTIME_MODULES } from '../../src/connectors/runtime-modules.ts';
import { repoRoot } from './run-cli.ts';

const SPEC = `PIPELINE gen;
CREATE SOURCE nums (
  id BIGINT NOT NULL,
  ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  connector = 'datagen', total_rows = 100, seed = 1,
  fields.id.kind = 'sequence',
  fields.ts.kind = 'sequence', fields.ts.min = '2026-01-01 00:00:00', fields.ts.step = '1 s'
);
CREATE SINK out FROM nums WITH (connector = 'stdout', format = 'ndjson');
`;

// A child npm must not inherit the settings of an `npm test` that started this run.
const cleanEnv = (): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k)) env[k] = v;
  return { ...env, NO_COLOR: '1', npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
};

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function sh(cmd: string, args: string[], cwd: string, timeout = 300_000): Run {
  const r = spawnSync(cmd, args, { cwd, env: cleanEnv(), encoding: 'utf8', timeout });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** ids of an NDJSON stdout sink's rows. */
const ids = (stdout: string): number[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => (JSON.parse(l) as { id: number }).id);

test('npm pack → npm install -D in a fresh project → npx pipec check/build/build --check/run', { timeout: 900_000 }, async (t) => {
  const started = Date.now();
  const lap = (what: string): void => t.diagnostic(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const root = mkdtempSync(join(tmpdir(), 'pipec-pkg-'));
  try {
    // 1. Pack (prepare builds dist/ first). Only what runs ships.
    const packed = sh('npm', ['pack', '--json', '--pack-destination', root], repoRoot);
    assert.equal(packed.status, 0, packed.stderr);
    const info = (JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[])[0]!;
    const shipped = new Set(info.files.map((f) => f.path));
    for (const f of ['bin/pipec.mjs', 'dist/api.mjs', 'dist/types/src/api.d.ts', 'package.json', 'targets/runtime/lib/index.ts']) assert.ok(shipped.has(f), `${f} is in the package`);
    // The CLI script (bin/pipec.mjs finds it by its name) and its code cache, made by prepare.
    assert.equal([...shipped].filter((f) => /^dist\/cli\/pipec-[0-9a-f]+\.cjs$/.test(f)).length, 1, 'one CLI script ships');
    assert.ok([...shipped].some((f) => /^dist\/cli\/pipec-[0-9a-f]+\..+\.cache$/.test(f)), 'the code cache ships');
    for (const f of shipped) assert.ok(!/^(test|generated|specs|dist\/bundles)\/|\.map$/.test(f), `${f} should not ship`);
    // Every pipec source a runtime bundle reads at build time ships (the whole library, every
    // connector, so a pipeline that uses one a test here does not still finds its files).
    const all = await bundleLibrary(ALL_RUNTIME_MODULES.map((m) => m.module));
    const own = all.inputs.filter((f) => !f.split('/').includes('node_modules') && !f.startsWith('../'));
    assert.ok(own.length > 10);
    assert.deepEqual(own.filter((f) => !shipped.has(f)), [], 'runtime library files missing from package.json "files"');
    lap('packed');

    // 2. A project with only its own specs.
    const proj = join(root, 'proj');
    mkdirSync(join(proj, 'pipelines'), { recursive: true });
    writeFileSync(join(proj, 'pipelines', 'gen.pipe.sql'), SPEC);
    writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', private: true }, null, 2));
    const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const packages: Record<string, unknown> = { '': { name: 'user-project', version: '1.0.0' } };
    for (const [k, v] of Object.entries(lock.packages)) if (k !== '' && !v.dev) packages[k] = v;
    writeFileSync(join(proj, 'package-lock.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2));
    const install = sh('npm', ['install', '-D', '--offline', '--prefer-offline', '--ignore-scripts', join(root, info.filename)], proj);
    assert.equal(install.status, 0, install.stderr);
    lap('installed');

    // 3. npx pipec, as a CI step would run it.
    const npx = (...args: string[]): Run => sh('npx', ['pipec', ...args], proj, 120_000);
    const version = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version as string;
    assert.equal(npx('--version').stdout, `pipec ${version}\n`);
    const check = npx('check', 'pipelines');
    assert.equal(check.status, 0, check.stderr);
    assert.match(check.stderr, /checked 1 spec: ok/);
    const missing = npx('check', 'pipelines/nope.pipe.sql');
    assert.equal(missing.status, 1, 'a missing file fails (through a symlink it once exited 0)');
    const build = npx('build', 'pipelines');
    assert.equal(build.status, 0, build.stderr);
    for (const f of ['plan.txt', 'runtime/pipeline.gen.mjs', 'runtime/bundle.lock.json']) assert.ok(existsSync(join(proj, 'generated', 'gen', f)), f);
    assert.ok(!existsSync(join(proj, 'generated', 'gen', 'runtime', 'pipeline.mjs')), 'no bundle in generated/');
    const bundle = join(proj, 'dist', 'bundles', 'gen', 'pipeline.mjs');
    assert.ok(existsSync(bundle));
    assert.equal(npx('build', 'pipelines', '--check').status, 0);
    lap('check + build');

    // 4. run, and the bundle under plain node in a folder without node_modules.
    const expected = Array.from({ length: 100 }, (_, i) => i);
    const run = npx('run', 'pipelines/gen.pipe.sql');
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(ids(run.stdout), expected);
    const bare = join(root, 'bare');
    mkdirSync(bare);
    // The bundle folder is self-contained: pipeline.mjs and the runtime.mjs it imports.
    for (const f of readdirSync(dirname(bundle))) copyFileSync(join(dirname(bundle), f), join(bare, f));
    const plain = sh(process.execPath, ['pipeline.mjs'], bare, 120_000);
    assert.equal(plain.status, 0, plain.stderr);
    assert.deepEqual(ids(plain.stdout), expected);
    lap('run');

    // 5. A changed spec makes generated/ stale: exit 1, naming the file.
    writeFileSync(join(proj, 'pipelines', 'gen.pipe.sql'), SPEC.replace('total_rows = 100', 'total_rows = 50'));
    const stale = npx('build', 'pipelines', '--check');
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /changed\s+generated\/gen\/runtime\/pipeline\.gen\.mjs/);

    // 6. The same CLI through node_modules/.bin (a symlink) and a link elsewhere (npm link, global).
    const link = join(root, 'pipec-link');
    symlinkSync(join(proj, 'node_modules', 'pipec', 'bin', 'pipec.mjs'), link);
    for (const entry of [join(proj, 'node_modules', '.bin', 'pipec'), link]) {
      const viaCheck = sh(entry, ['build', 'pipelines', '--check'], proj, 120_000);
      assert.equal(viaCheck.status, 1, `${entry}: stale tree → 1`);
      assert.match(viaCheck.stderr, /is stale/);
      const viaRun = sh(entry, ['run', 'pipelines/gen.pipe.sql'], proj, 120_000);
      assert.equal(viaRun.status, 0, viaRun.stderr);
      assert.deepEqual(ids(viaRun.stdout), expected.slice(0, 50));
    }
    lap('symlinks');

    // 7. The library API through the package's own entry: a spec from an in-memory string,
    // nothing written; and its types check in a TypeScript consumer.
    writeFileSync(
      join(proj, 'use-api.mjs'),
      `import { build, check, explain } from 'pipec';
const spec = ${JSON.stringify(SPEC)};
const r = await build({ sources: { 'mem/gen.pipe.sql': spec }, targets: ['runtime'] });
const bad = await check({ sources: { 'mem/bad.pipe.sql': spec.replace('FROM nums', 'FROM numz') } });
console.log(JSON.stringify({ ok: r.ok, outputs: Object.keys(r.outputs), bundles: Object.keys(r.bundles), plans: Object.keys(r.plans),
  gen: r.outputs['gen/runtime/pipeline.gen.mjs'], bad: bad.diagnostics.map((d) => [d.code, d.span.file, d.span.start.line]), title: explain(bad.diagnostics[0].code).title }));
`,
    );
    const api = sh(process.execPath, ['use-api.mjs'], proj, 120_000);
    assert.equal(api.status, 0, api.stderr);
    const out = JSON.parse(api.stdout) as { ok: boolean; outputs: string[]; bundles: string[]; plans: string[]; gen: string; bad: [string, string, number][]; title: string };
    assert.equal(out.ok, true);
    assert.deepEqual(out.outputs, ['gen/alerts.yaml', 'gen/plan.txt', 'gen/runtime/bundle.lock.json', 'gen/runtime/pipeline.gen.mjs']);
    assert.deepEqual(out.bundles, ['gen/pipeline.mjs', 'gen/runtime.mjs']);
    assert.deepEqual(out.plans, ['gen']);
    assert.match(out.gen, /Generated by pipec from mem\/gen\.pipe\.sql/);
    assert.ok(out.bad.length >= 1);
    assert.equal(out.bad[0]![1], 'mem/bad.pipe.sql');
    assert.equal(out.bad[0]![2], 11, 'the line of FROM numz');
    assert.ok(out.title.length > 0);
    // generated/gen/ is still the CLI's build of pipelines/gen.pipe.sql: build() wrote nothing.
    assert.match(readFileSync(join(proj, 'generated', 'gen', 'runtime', 'pipeline.gen.mjs'), 'utf8'), /from pipelines\/gen\.pipe\.sql/);
    writeFileSync(
      join(proj, 'consumer.mts'),
      `import { build, format, type BuildResult, type Diagnostic } from 'pipec';
const r: BuildResult = await build({ sources: { 'a.pipe.sql': 'PIPELINE a;' }, env: { X: '1' }, targets: ['clickhouse'] });
const first: Diagnostic | undefined = r.diagnostics[0];
const text: string | null = format({ path: 'a.pipe.sql', text: 'PIPELINE a;', to: 'yaml' }).text;
// @ts-expect-error not a target
await build({ targets: ['spark'] });
export { first, text };
`,
    );
    const tsc = sh(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'consumer.mts'], proj, 180_000);
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    lap('library API');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
