// The CLI and paths, as users hit them: every command takes relative and absolute spec paths
// from any working directory (issue 13.4); `pipec build` never writes or removes outside --out
// (issue 12.2); commands without a path use pipec.yaml's `specs:` folders and name a file
// that is not a spec as such (13.8); `check` reports the targets' warnings too (13.9).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pipec, repoRoot } from './run-cli.ts';

/** A copy of the project's specs and pipec.yaml in a temp dir, plus `sub/` to run from. */
function project(): { dir: string; sub: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-paths-cli-'));
  cpSync(join(repoRoot, 'specs'), join(dir, 'specs'), { recursive: true });
  cpSync(join(repoRoot, 'pipec.yaml'), join(dir, 'pipec.yaml'));
  mkdirSync(join(dir, 'sub'));
  return { dir, sub: join(dir, 'sub'), done: () => rmSync(dir, { recursive: true, force: true }) };
}

const codes = (stderr: string): string[] => [...stderr.matchAll(/^(?:error|warning)\[([a-z0-9-]+)\]/gm)].map((m) => m[1]!);
const errorCodes = (stderr: string): string[] => [...stderr.matchAll(/^error\[([a-z0-9-]+)\]/gm)].map((m) => m[1]!);

test('every command takes a relative and an absolute spec path from another working directory', () => {
  const p = project();
  try {
    const rel = '../specs/quickstart.pipe.sql';
    const abs = join(p.dir, 'specs', 'quickstart.pipe.sql');
    const iceberg = ['../specs/orders_revenue.pipe.sql', join(p.dir, 'specs', 'orders_revenue.pipe.sql')];
    const cases: [string, (f: string, i: string) => string[]][] = [
      ['check', (f) => ['check', f]],
      ['build --check', (f) => ['build', f, '--check', '--out', join(p.dir, 'generated')]],
      ['plan', (f) => ['plan', f]],
      ['diff', (f) => ['diff', f, f]],
      ['fmt --to yaml', (f) => ['fmt', '--to', 'yaml', f]],
      ['compact', (_f, i) => ['compact', i]],
    ];
    for (const [name, args] of cases) {
      const a = pipec(args(rel, iceberg[0]!), { cwd: p.sub });
      const b = pipec(args(abs, iceberg[1]!), { cwd: p.sub });
      for (const r of [a, b]) {
        assert.doesNotMatch(r.stderr, /file-not-found|not-a-spec-file|internal error/, `${name}: ${r.stderr}`);
      }
      // Same outcome, same output: the absolute path is named like the relative one.
      assert.equal(b.status, a.status, `${name}: ${a.stderr}\n---\n${b.stderr}`);
      assert.equal(b.stdout, a.stdout, name);
      // (build --check's last line repeats the command's own arguments, which differ by design.)
      const norm = (t: string): string => t.replaceAll(p.dir, '<dir>').replace(/^run `pipec build.*$/m, '');
      assert.equal(norm(b.stderr), norm(a.stderr), name);
    }
    // The outcomes themselves, worked out from what each command is for.
    assert.equal(pipec(['check', abs], { cwd: p.sub }).status, 0);
    assert.match(pipec(['plan', abs], { cwd: p.sub }).stdout, /quickstart/);
    assert.match(pipec(['diff', rel, abs], { cwd: p.sub }).stdout, /impact: compatible/);
    assert.doesNotMatch(pipec(['diff', rel, abs], { cwd: p.sub }).stdout, /generated .*changed/, 'one file named two ways is the same file');
    assert.match(pipec(['fmt', '--to', 'yaml', abs], { cwd: p.sub }).stdout, /^pipeline: quickstart/m);
    // build writes to a relative and to an absolute --out, reading specs by absolute path.
    const built = pipec(['build', join(p.dir, 'specs'), '--out', 'out-rel'], { cwd: p.sub });
    assert.equal(built.status, 0, built.stderr);
    assert.ok(existsSync(join(p.sub, 'out-rel', 'quickstart', 'plan.txt')));
    assert.equal(pipec(['build', '../specs', '--check', '--out', join(p.sub, 'out-rel')], { cwd: p.sub }).status, 0);
    // run: the quickstart's datagen source is bounded; its file sink lands next to the spec either way.
    for (const f of [rel, abs]) {
      rmSync(join(p.dir, 'specs', 'out'), { recursive: true, force: true });
      const r = pipec(['run', f], { cwd: p.sub });
      assert.equal(r.status, 0, r.stderr);
      assert.ok(readFileSync(join(p.dir, 'specs', 'out', 'quickstart', 'page_stats_1m.ndjson'), 'utf8').length > 0);
    }
    const explain = pipec(['explain', 'unsafe-path-name'], { cwd: p.sub });
    assert.equal(explain.status, 0);
    assert.match(explain.stdout, /outside its output folder/);
  } finally {
    p.done();
  }
});

test('pipec build never removes or writes outside --out, whatever the names', () => {
  const p = project();
  try {
    const victim = join(p.dir, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'precious.txt'), 'keep me');
    const src = "CREATE SOURCE s (id BIGINT NOT NULL) WITH (connector = 'datagen', total_rows = 1);\n";
    const evil = join(p.dir, 'evil');
    mkdirSync(evil);
    writeFileSync(join(evil, 'a.pipe.sql'), `PIPELINE "../victim";\n${src}CREATE SINK out FROM s WITH (connector = 'stdout');\n`);
    writeFileSync(join(evil, '...pipe.sql'), `${src}CREATE SINK out FROM s WITH (connector = 'stdout');\n`);
    writeFileSync(
      join(evil, 'b.pipe.sql'),
      `PIPELINE b;\n${src}CREATE CATALOG lake WITH (type = 'filesystem', warehouse = 'file:///tmp/pipec-cli/wh');\n` +
        `CREATE SINK "../../../victim" FROM s WITH (connector = 'iceberg', catalog = 'lake', table = 'db.t');\n`,
    );
    for (const spec of ['evil/a.pipe.sql', 'evil/...pipe.sql', 'evil/b.pipe.sql']) {
      const r = pipec(['build', spec, '--out', 'generated'], { cwd: p.dir });
      assert.equal(r.status, 1, spec);
      assert.deepEqual(errorCodes(r.stderr), ['unsafe-path-name'], `${spec}: ${r.stderr}`);
      assert.equal(readFileSync(join(victim, 'precious.txt'), 'utf8'), 'keep me', spec);
      assert.equal(existsSync(join(victim, 'plan.txt')), false, spec);
      // check says the same: a CI gate catches it before any build.
      assert.deepEqual(errorCodes(pipec(['check', spec], { cwd: p.dir }).stderr), ['unsafe-path-name']);
    }
    // A normal build next to a user's file in the output folder: the file survives rebuilds.
    assert.equal(pipec(['build', '--out', 'generated'], { cwd: p.dir }).status, 0);
    writeFileSync(join(p.dir, 'generated', 'quickstart', 'README.md'), 'my notes');
    const again = pipec(['build', '--out', 'generated'], { cwd: p.dir });
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /left in place/);
    assert.equal(readFileSync(join(p.dir, 'generated', 'quickstart', 'README.md'), 'utf8'), 'my notes');
    // --check names it as extra.
    const stale = pipec(['build', '--check', '--out', 'generated'], { cwd: p.dir });
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /extra\s+generated\/quickstart\/README\.md/);
  } finally {
    p.done();
  }
});

test('without a path, check and build use the specs: folders of pipec.yaml, from any folder of the project', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-default-'));
  try {
    mkdirSync(join(dir, 'pipelines'));
    mkdirSync(join(dir, 'fixtures'));
    mkdirSync(join(dir, 'deep', 'er'), { recursive: true });
    cpSync(join(repoRoot, 'specs', 'quickstart.pipe.sql'), join(dir, 'pipelines', 'quickstart.pipe.sql'));
    writeFileSync(join(dir, 'fixtures', 'broken.pipe.sql'), 'CREATE SOURCE oops;\n');
    writeFileSync(join(dir, 'pipec.yaml'), 'specs: [pipelines]\n');
    for (const cwd of [dir, join(dir, 'deep', 'er')]) {
      const r = pipec(['check'], { cwd });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /checked 1 spec: ok/);
    }
    const b = pipec(['build', '--out', join(dir, 'gen')], { cwd: join(dir, 'deep') });
    assert.equal(b.status, 0, b.stderr);
    assert.ok(existsSync(join(dir, 'gen', 'quickstart', 'plan.txt')));
    // Without the key the default is specs/; a missing default folder is named, with what to do (exit 2, a usage error).
    writeFileSync(join(dir, 'pipec.yaml'), 'profiles: {}\n');
    const none = pipec(['check'], { cwd: dir });
    assert.equal(none.status, 2);
    assert.match(none.stderr, /no paths given and no specs\/ folder here \(set `specs:` in pipec\.yaml/);
    writeFileSync(join(dir, 'pipec.yaml'), 'specs: 3\n');
    assert.match(pipec(['check'], { cwd: dir }).stderr, /'specs' must be a folder or a list of folders/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file that is not .pipe.sql or .pipe.yaml is named as such, not parsed as YAML', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-notspec-'));
  try {
    writeFileSync(join(dir, 'query.sql'), "PIPELINE p;\nCREATE SOURCE s (id BIGINT) WITH (connector = 'datagen');\n");
    for (const args of [['check', 'query.sql'], ['build', join(dir, 'query.sql')], ['plan', 'query.sql'], ['run', 'query.sql'], ['fmt', 'query.sql']]) {
      const r = pipec(args, { cwd: dir });
      assert.equal(r.status, 1, args.join(' '));
      assert.match(r.stderr, /not-a-spec-file|not a \.pipe\.sql or \.pipe\.yaml file/, `${args.join(' ')}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /yaml-|CREATE SOURCE s/, `${args.join(' ')}: no YAML errors and no excerpt of the file`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('check reports the targets\' warnings like build does; --target picks the targets', () => {
  const p = project();
  try {
    const check = pipec(['check', 'specs'], { cwd: p.dir });
    const build = pipec(['build', 'specs', '--out', 'gen'], { cwd: p.dir });
    assert.equal(check.status, 0, check.stderr);
    const warnings = codes(build.stderr).sort();
    assert.ok(warnings.some((c) => c.startsWith('clickhouse-')), 'the specs have ClickHouse target warnings');
    assert.deepEqual(codes(check.stderr).sort(), warnings);
    assert.equal(existsSync(join(p.dir, 'generated')), false, 'check writes nothing');
    assert.equal(pipec(['check', 'specs', '--deny-warnings'], { cwd: p.dir }).status, 1);
    // clickhouse-no-watermark comes from the ClickHouse target's pass (targets/clickhouse), not
    // from the lint: it is there with the ClickHouse target and gone without it.
    assert.ok(codes(check.stderr).includes('clickhouse-no-watermark'));
    const runtimeOnly = codes(pipec(['check', 'specs', '--target', 'runtime'], { cwd: p.dir }).stderr);
    assert.ok(!runtimeOnly.includes('clickhouse-no-watermark') && runtimeOnly.length < warnings.length, runtimeOnly.join(', '));
    // This project's pipec.yaml adds the opt-in Flink target: without it, its flink-* warnings go.
    assert.ok(warnings.some((c) => c.startsWith('flink-')), 'pipec.yaml targets: [all, flink] is the default');
    assert.deepEqual(codes(pipec(['check', 'specs', '--target', 'clickhouse'], { cwd: p.dir }).stderr).sort(), warnings.filter((c) => !c.startsWith('flink-')));
    assert.equal(pipec(['check', 'specs', '--target', 'nope'], { cwd: p.dir }).status, 2);
  } finally {
    p.done();
  }
});

test('pipec build into an --out that is a file says which path, not "internal error"', () => {
  const p = project();
  try {
    writeFileSync(join(p.dir, 'out-file'), 'not a folder');
    const r = pipec(['build', 'specs/quickstart.pipe.sql', '--out', 'out-file'], { cwd: p.dir });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /pipec build: cannot write .*out-file.*ENOTDIR/);
    assert.doesNotMatch(r.stderr, /internal error/);
    assert.equal(readFileSync(join(p.dir, 'out-file'), 'utf8'), 'not a folder');
  } finally {
    p.done();
  }
});
