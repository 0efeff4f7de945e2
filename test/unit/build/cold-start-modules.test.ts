// Cold start (issue 14.5): a `pipec check` of a spec that names no schema file must not run the
// schema libraries (avsc, protobufjs, pg, ajv: most of the compiler's code by size), which
// src/schema imports on first use; nor ajv for a `.pipe.yaml` (its validator is compiled at build
// time); nor the runtime library's clients (kafkajs, the ClickHouse client), which only `run` needs.
// The CLI is one CommonJS script (scripts/bundle.mjs) in which esbuild wraps every module reached
// through a dynamic import in a lazy initialiser named by the module's path; it is built with
// scripts/bundle.mjs's options, run through bin/pipec.mjs on a datagen → file spec under V8
// coverage, and the initialisers that ran name the packages whose code ran (with the packages
// the script leaves in node_modules, whose own files show in the coverage). A spec with an Avro
// file schema is the control: the same check does run avsc there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { cliBuildOptions } from '../../../scripts/bundle.mjs';
import { format } from '../../../src/api.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const HEAVY = ['avsc', 'protobufjs', 'pg', 'pg-protocol', 'pg-logical-replication', 'ajv', 'kafkajs', '@clickhouse/client'];

interface Coverage {
  result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
}

const PACKAGE = /node_modules\/((?:@[^/]+\/)?[^/]+)\//;

/**
 * Packages (node_modules/<name>) whose code ran, per the coverage files in `dir`: a module
 * initialiser in `script` that ran, or a file of the package's own (those the script requires
 * from node_modules) with a function that ran.
 */
function packagesRun(dir: string, script: string): Set<string> {
  const found = new Set<string>();
  let seen = false;
  for (const f of readdirSync(dir)) {
    const cov = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Coverage;
    for (const s of cov.result) {
      const own = PACKAGE.exec(s.url);
      if (own) {
        if (s.functions.some((fn) => fn.ranges[0]!.count > 0)) found.add(own[1]!);
        continue;
      }
      if (s.url !== script && s.url !== `file://${script}`) continue;
      seen = true;
      for (const fn of s.functions) {
        const m = PACKAGE.exec(fn.functionName);
        if (m && fn.ranges[0]!.count > 0) found.add(m[1]!);
      }
    }
  }
  assert.ok(seen, `no coverage of ${script}`);
  return found;
}

test('a cold check of a datagen → file spec runs no schema library nor runtime client; one with an Avro schema runs avsc', async () => {
  // Inside the checkout (tmp/ is git-ignored): the script requires some packages from node_modules.
  mkdirSync(join(ROOT, 'tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, 'tmp', 'cold-start-'));
  try {
    // The layout bin/pipec.mjs expects: bin/ next to dist/cli/pipec-<hex>.cjs.
    mkdirSync(join(dir, 'bin'));
    copyFileSync(join(ROOT, 'bin', 'pipec.mjs'), join(dir, 'bin', 'pipec.mjs'));
    const result = await build({ ...cliBuildOptions(join(dir, 'dist', 'cli')), sourcemap: false });
    const script = join(dir, 'dist', 'cli', 'pipec-0123456789abcdef.cjs');
    mkdirSync(join(dir, 'dist', 'cli'), { recursive: true });
    writeFileSync(script, result.outputFiles!.find((f: { path: string }) => f.path.endsWith('.cjs'))!.contents);
    const project = join(dir, 'project');
    const run = (spec: string): Set<string> => {
      const cov = mkdtempSync(join(dir, 'cov-'));
      const r = spawnSync(process.execPath, [join(dir, 'bin', 'pipec.mjs'), 'check', spec], { cwd: project, encoding: 'utf8', env: { ...process.env, NODE_V8_COVERAGE: cov } });
      assert.equal(r.status, 0, r.stderr);
      return packagesRun(cov, script);
    };
    mkdirSync(project);
    copyFileSync(join(ROOT, 'specs', 'quickstart.pipe.sql'), join(project, 'quickstart.pipe.sql'));
    const yamlForm = format({ path: 'quickstart.pipe.sql', text: readFileSync(join(ROOT, 'specs', 'quickstart.pipe.sql'), 'utf8'), to: 'yaml' }).text!;
    writeFileSync(join(project, 'quickstart.pipe.yaml'), yamlForm.replace('pipeline: quickstart', 'pipeline: quickstart_yaml'));
    copyFileSync(join(ROOT, 'test', 'fixtures', 'schemas', 'avro', 'all-types.avsc'), join(project, 'all-types.avsc'));
    writeFileSync(
      join(project, 'avro.pipe.sql'),
      `PIPELINE avro_in;\nCREATE SOURCE s WITH (connector = 'kafka', topic = 't', brokers = 'localhost:9092', format = 'avro', schema = 'file:all-types.avsc');\nCREATE SINK out FROM s WITH (connector = 'stdout');\n`,
    );

    const plain = run('quickstart.pipe.sql');
    assert.ok(plain.has('chevrotain') && plain.has('yaml'), 'the coverage shows the packages a check runs');
    assert.deepEqual(HEAVY.filter((p) => plain.has(p)), []);
    // The YAML form is validated by the schema validator compiled at build time: no ajv either.
    assert.deepEqual(HEAVY.filter((p) => run('quickstart.pipe.yaml').has(p)), []);
    assert.ok(run('avro.pipe.sql').has('avsc'), 'a spec with an Avro schema file runs avsc');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
