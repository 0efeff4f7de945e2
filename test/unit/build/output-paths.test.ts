// `pipec build` writes and removes only inside --out (issue 12 item 2): names that become
// paths are checked (`unsafe-path-name`), the writer refuses paths that leave --out (also
// through symlinks), and cleaning removes only files a previous build's manifest lists.
// Every test runs in a temp dir holding a `victim/` folder next to the output folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { unsafePathNameReason } from '../../../src/check/path-names.ts';
import { buildSpecs } from '../../../src/build/build.ts';
import { compareOutputs, MANIFEST_NAME, OutputPathError, OutputRoot, writeOutputs } from '../../../src/build/write-outputs.ts';
import { TARGETS } from '../../../src/build/targets.ts';
import { check, diag } from '../check/helpers.ts';

const SOURCE = "CREATE SOURCE s (id BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL) WITH (connector = 'datagen', total_rows = 1);\n";
const STDOUT_SINK = "CREATE SINK out FROM s WITH (connector = 'stdout');\n";
const icebergSpec = (sink: string, policy: string): string =>
  `PIPELINE p;\n${SOURCE}CREATE CATALOG lake WITH (type = 'filesystem', warehouse = 'file:///tmp/pipec-unit/wh');\n` +
  `CREATE SINK ${sink} FROM s WITH (connector = 'iceberg', catalog = 'lake', table = 'db.t');\n` +
  `CREATE COMPACTION POLICY ${policy} ON ${sink} (EXPIRE SNAPSHOTS OLDER THAN INTERVAL '1' DAY) SCHEDULE EVERY INTERVAL '1' HOUR;\n`;

/** A project dir with `victim/precious.txt` beside it: what must survive every build. */
function sandbox(): { dir: string; victim: string; done: () => void } {
  const top = mkdtempSync(join(tmpdir(), 'pipec-paths-'));
  const dir = join(top, 'proj');
  mkdirSync(join(dir, 'specs'), { recursive: true });
  const victim = join(top, 'victim');
  mkdirSync(victim);
  writeFileSync(join(victim, 'precious.txt'), 'keep me');
  return { dir, victim, done: () => rmSync(top, { recursive: true, force: true }) };
}

const env = { get: (): string | undefined => undefined };
const allTargets = Object.values(TARGETS).filter((t) => t !== undefined);

test('unsafePathNameReason: what cannot be one path segment, and what can', () => {
  for (const bad of ['', '.', '..', '../x', 'a/b', 'a\\b', 'nul\0x', 'tab\there', 'line\nbreak', 'del\u007f', 'c1\u0085', 'CON', 'nul.json', 'Com1', 'lpt9.txt', 'a:b', 'what?', 'a*', 'pipe|d', 'trailing.', 'trailing ', 'x'.repeat(201)]) {
    assert.notEqual(unsafePathNameReason(bad), null, JSON.stringify(bad));
  }
  for (const ok of ['orders', 'orders_revenue', 'a.b', 'a-b', '...x', 'CONSOLE', 'con_x', 'Ünïcödé', '日本', 'x'.repeat(200)]) {
    assert.equal(unsafePathNameReason(ok), null, JSON.stringify(ok));
  }
});

test('check reports unsafe-path-name at the name for a pipeline, an Iceberg sink and a compaction policy', async () => {
  const p = await check(`PIPELINE "../../victim";\n${SOURCE}${STDOUT_SINK}`);
  assert.deepEqual(p.errors, ['unsafe-path-name']);
  assert.equal(diag(p, 'unsafe-path-name').span.start.line, 1);
  assert.equal(diag(p, 'unsafe-path-name').span.start.column, 10);
  const sink = await check(icebergSpec('"../../../victim"', 'ok_policy'));
  assert.deepEqual(sink.errors, ['unsafe-path-name']);
  assert.match(diag(sink, 'unsafe-path-name').message, /Iceberg sink name "..\/..\/..\/victim"/);
  assert.equal(diag(sink, 'unsafe-path-name').span.start.line, 4);
  const policy = await check(icebergSpec('lake_sink', '"../../../../victim/x"'));
  assert.deepEqual(policy.errors, ['unsafe-path-name']);
  assert.match(diag(policy, 'unsafe-path-name').message, /compaction policy name/);
  // A sink that is not Iceberg never becomes a path: any quoted name is fine there.
  const stdout = await check(`PIPELINE p;\n${SOURCE}CREATE SINK "a/b" FROM s WITH (connector = 'stdout');\n`);
  assert.deepEqual(stdout.errors, []);
  // The control character is shown escaped, never raw, in the message.
  // (NUL itself is refused earlier, by the parser: name-nul-character.)
  const ctl = await check(`PIPELINE "x\u0001y";\n${SOURCE}${STDOUT_SINK}`);
  assert.match(diag(ctl, 'unsafe-path-name').message, /"x\\u0001y".*U\+0001/);
});

test('a pipeline named after a spec file called ...pipe.sql is `..`: refused, the victim survives', async () => {
  const s = sandbox();
  try {
    writeFileSync(join(s.dir, 'specs', '...pipe.sql'), SOURCE + STDOUT_SINK);
    const r = await buildSpecs({ cwd: s.dir, env, files: ['specs/...pipe.sql'], targets: allTargets, outDir: 'generated' });
    assert.equal(r.ok, false);
    const d = r.results[0]!.diagnostics.items.find((x) => x.code === 'unsafe-path-name');
    assert.ok(d);
    assert.match(d.help ?? '', /PIPELINE statement/);
    assert.deepEqual(r.pipelines, []);
    assert.equal(readFileSync(join(s.victim, 'precious.txt'), 'utf8'), 'keep me');
  } finally {
    s.done();
  }
});

test('the writer refuses a path outside --out before touching anything (defence in depth)', async () => {
  const s = sandbox();
  try {
    const build = { outputs: new Map<string, string>([['ok/plan.txt', 'x'], ['../victim/plan.txt', 'evil']]), pipelines: ['ok'] };
    assert.throws(() => writeOutputs(s.dir, 'generated', build), OutputPathError);
    assert.equal(existsSync(join(s.dir, 'generated', 'ok')), false, 'nothing written when any path is refused');
    assert.equal(existsSync(join(s.victim, 'plan.txt')), false);
    for (const name of ['..', '../victim', '.', '', 'a/../../victim']) {
      assert.throws(() => writeOutputs(s.dir, 'generated', { outputs: new Map([[`${name}/plan.txt`, 'x']]), pipelines: [name] }), OutputPathError, name);
    }
    assert.throws(() => compareOutputs(s.dir, 'generated', build), OutputPathError);
    assert.equal(readFileSync(join(s.victim, 'precious.txt'), 'utf8'), 'keep me');
  } finally {
    s.done();
  }
});

test('the writer does not write through a symlinked folder that leads outside --out', async () => {
  const s = sandbox();
  try {
    mkdirSync(join(s.dir, 'generated'));
    symlinkSync(s.victim, join(s.dir, 'generated', 'p'));
    assert.throws(() => writeOutputs(s.dir, 'generated', { outputs: new Map([['p/precious.txt', 'overwritten']]), pipelines: ['p'] }), OutputPathError);
    assert.equal(readFileSync(join(s.victim, 'precious.txt'), 'utf8'), 'keep me');
  } finally {
    s.done();
  }
});

test('a symlinked file in the tree is replaced, not written through', async () => {
  const s = sandbox();
  try {
    mkdirSync(join(s.dir, 'generated', 'p'), { recursive: true });
    symlinkSync(join(s.victim, 'precious.txt'), join(s.dir, 'generated', 'p', 'plan.txt'));
    await writeOutputs(s.dir, 'generated', { outputs: new Map([['p/plan.txt', 'plan']]), pipelines: ['p'] });
    assert.equal(readFileSync(join(s.dir, 'generated', 'p', 'plan.txt'), 'utf8'), 'plan');
    assert.equal(readFileSync(join(s.victim, 'precious.txt'), 'utf8'), 'keep me');
  } finally {
    s.done();
  }
});

test('cleaning removes only what the previous manifest lists: user files and outside paths stay', async () => {
  const s = sandbox();
  try {
    const out = join(s.dir, 'generated');
    await writeOutputs(s.dir, 'generated', { outputs: new Map([['p/plan.txt', 'a'], ['p/iceberg/t/metadata.json', '{}']]), pipelines: ['p'] });
    const manifest = JSON.parse(readFileSync(join(out, 'p', MANIFEST_NAME), 'utf8')) as { files: string[] };
    assert.deepEqual(manifest.files, ['iceberg/t/metadata.json', 'plan.txt']);
    writeFileSync(join(out, 'p', 'notes.md'), 'mine');
    // The second build no longer writes the Iceberg table: its file goes, its emptied folders go.
    const second = await writeOutputs(s.dir, 'generated', { outputs: new Map([['p/plan.txt', 'b']]), pipelines: ['p'] });
    assert.deepEqual(second.removed, ['p/iceberg/t/metadata.json']);
    assert.equal(existsSync(join(out, 'p', 'iceberg')), false);
    assert.equal(readFileSync(join(out, 'p', 'notes.md'), 'utf8'), 'mine', 'a file no build wrote is never removed');
    assert.match(second.notes.join('\n'), /notes\.md/);
    // A tampered manifest that lists a path outside the pipeline folder removes nothing there.
    writeFileSync(join(out, 'p', MANIFEST_NAME), JSON.stringify({ files: ['../../../victim/precious.txt', '../../victim/precious.txt', 'plan.txt'] }));
    const third = await writeOutputs(s.dir, 'generated', { outputs: new Map([['p/plan.txt', 'c']]), pipelines: ['p'] });
    assert.deepEqual(third.removed, []);
    assert.equal(readFileSync(join(s.victim, 'precious.txt'), 'utf8'), 'keep me');
    // A manifest that is not one is reported, and nothing is removed.
    writeFileSync(join(out, 'p', MANIFEST_NAME), 'not json');
    const fourth = await writeOutputs(s.dir, 'generated', { outputs: new Map(), pipelines: ['p'] });
    assert.deepEqual(fourth.removed, []);
    assert.match(fourth.notes.join('\n'), /not a pipec manifest/);
    assert.equal(readFileSync(join(out, 'p', 'plan.txt'), 'utf8'), 'c');
  } finally {
    s.done();
  }
});

test('compareOutputs lists changed, missing (incl. the manifest) and extra files', async () => {
  const s = sandbox();
  try {
    const build = { outputs: new Map([['p/plan.txt', 'a'], ['p/x.sql', 'x']]), pipelines: ['p'] };
    assert.deepEqual(compareOutputs(s.dir, 'generated', build), { added: [`p/${MANIFEST_NAME}`, 'p/plan.txt', 'p/x.sql'], changed: [], removed: [] });
    await writeOutputs(s.dir, 'generated', build);
    assert.deepEqual(compareOutputs(s.dir, 'generated', build), { added: [], changed: [], removed: [] });
    writeFileSync(join(s.dir, 'generated', 'p', 'plan.txt'), 'edited');
    writeFileSync(join(s.dir, 'generated', 'p', 'extra.txt'), 'e');
    rmSync(join(s.dir, 'generated', 'p', 'x.sql'));
    assert.deepEqual(compareOutputs(s.dir, 'generated', build), { added: ['p/x.sql'], changed: ['p/plan.txt'], removed: ['p/extra.txt'] });
  } finally {
    s.done();
  }
});

test('two outputs on paths that differ only in case are an error, not an overwrite', async () => {
  const s = sandbox();
  try {
    const spec = `PIPELINE p;\n${SOURCE}CREATE CATALOG lake WITH (type = 'filesystem', warehouse = 'file:///tmp/pipec-unit/wh');\n` +
      `CREATE SINK "Lake" FROM s WITH (connector = 'iceberg', catalog = 'lake', table = 'db.a');\n` +
      `CREATE SINK "lake_" FROM s WITH (connector = 'iceberg', catalog = 'lake', table = 'db.b');\n` +
      `CREATE SINK "LAKE" FROM s WITH (connector = 'iceberg', catalog = 'lake', table = 'db.c');\n`;
    writeFileSync(join(s.dir, 'specs', 'p.pipe.sql'), spec);
    const r = await buildSpecs({ cwd: s.dir, env, files: ['specs/p.pipe.sql'], targets: allTargets, outDir: 'generated' });
    const codes = r.results[0]!.diagnostics.items.filter((d) => d.severity === 'error').map((d) => d.code);
    assert.ok(codes.includes('output-path-collision'), codes.join(', '));
    assert.deepEqual(r.pipelines, []);
  } finally {
    s.done();
  }
});

test('two pipelines whose names differ only in case are duplicate-pipeline-name (one folder on macOS/Windows)', async () => {
  const s = sandbox();
  try {
    writeFileSync(join(s.dir, 'specs', 'a.pipe.sql'), `PIPELINE "Orders";\n${SOURCE}${STDOUT_SINK}`);
    writeFileSync(join(s.dir, 'specs', 'b.pipe.sql'), `PIPELINE "orders";\n${SOURCE}${STDOUT_SINK}`);
    const r = await buildSpecs({ cwd: s.dir, env, files: ['specs/a.pipe.sql', 'specs/b.pipe.sql'], targets: [], outDir: 'generated' });
    assert.deepEqual(r.results[1]!.diagnostics.items.map((d) => d.code), ['duplicate-pipeline-name']);
    assert.deepEqual(r.pipelines, ['Orders']);
  } finally {
    s.done();
  }
});

test('property: a name the checker accepts is one folder inside --out; any relative path resolves inside or is refused', () => {
  const s = sandbox();
  try {
    const root = new OutputRoot(s.dir, 'generated');
    const pieces = ['a', 'B', '.', '..', '/', '\\', '\0', ' ', ':', '~', '%2e', '\u2028', 'é'];
    let seed = 12345;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 5000; i++) {
      const name = Array.from({ length: 1 + next(6) }, () => pieces[next(pieces.length)]).join('');
      if (unsafePathNameReason(name) === null) {
        const full = root.path(`${name}/plan.txt`);
        assert.equal(relative(root.root, full), join(name, 'plan.txt'), JSON.stringify(name));
      }
      let full: string | null = null;
      try {
        full = root.path(`${name}/x`);
      } catch (e) {
        assert.ok(e instanceof OutputPathError);
      }
      if (full !== null) {
        const r = relative(root.root, full);
        // (`...x` is a legal folder name: only a `..` segment leaves the root.)
        assert.ok(r.split('/')[0] !== '..' && !isAbsolute(r), `${JSON.stringify(name)} → ${full}`);
      }
    }
  } finally {
    s.done();
  }
});
