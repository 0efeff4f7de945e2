// `@pipec/runtime` is a package of its own in place (targets/runtime/package.json, an npm
// workspace member): published alone it must work, so nothing in targets/runtime/lib may import
// a file outside targets/runtime (not even a type: its `.ts` sources are what it ships), and
// every npm package it imports must be a dependency it declares. Its subpath exports are the
// runtime modules the generated code imports (`@pipec/runtime/<module>`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { importsInText, sourceFiles } from '../../support/import-graph.ts';
import { ALL_RUNTIME_MODULES } from '../../../src/connectors/runtime-modules.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const PKG_DIR = 'targets/runtime';
const pkg = JSON.parse(readFileSync(join(ROOT, PKG_DIR, 'package.json'), 'utf8')) as {
  name: string;
  type: string;
  version: string;
  exports: Record<string, string | { types: string; default: string }>;
  files: string[];
  dependencies: Record<string, string>;
};
const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; workspaces?: string[]; dependencies: Record<string, string> };

/** The npm package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (spec: string): string => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
const builtins = new Set(builtinModules);

/** Each import of `files` (repository paths) that a package at `pkgDir` declaring `deps` cannot have. */
function strayImports(files: { path: string; text: string }[], pkgDir: string, deps: Record<string, string>): string[] {
  const bad: string[] = [];
  for (const f of files) {
    for (const imp of importsInText(f.path, f.text)) {
      const where = `${f.path}:${imp.line} imports '${imp.specifier}'`;
      if (imp.specifier.startsWith('.')) {
        const to = relative(ROOT, resolve(ROOT, dirname(f.path), imp.specifier)).split(sep).join('/');
        if (!to.startsWith(`${pkgDir}/`)) bad.push(`${where} (${to}), outside ${pkgDir}`);
      } else if (imp.specifier.startsWith('node:') || builtins.has(imp.specifier)) {
        continue;
      } else if (!Object.hasOwn(deps, packageOf(imp.specifier))) {
        bad.push(`${where}, a package ${pkgDir}/package.json does not declare`);
      }
    }
  }
  return bad;
}

test('targets/runtime/lib imports nothing outside targets/runtime, and only npm packages it declares', () => {
  const files = sourceFiles(ROOT, [`${PKG_DIR}/lib`]).map((p) => ({ path: p, text: readFileSync(join(ROOT, p), 'utf8') }));
  assert.ok(files.length > 50, 'the runtime library was found');
  assert.deepEqual(strayImports(files, PKG_DIR, pkg.dependencies), []);
});

test('the check sees a relative import that leaves the package, a type import too, and an undeclared package', () => {
  const text = [
    "import { x } from '../../../../src/util/x.ts';",
    "import type { T } from '../../../iceberg/type-map.ts';",
    "import { Kafka } from 'kafkajs';",
    "import { left } from 'left-pad';",
    "import * as fs from 'node:fs';",
    "import { y } from './y.ts';",
  ].join('\n');
  const bad = strayImports([{ path: `${PKG_DIR}/lib/io/z.ts`, text }], PKG_DIR, { kafkajs: '1' });
  assert.deepEqual(bad, [
    "targets/runtime/lib/io/z.ts:1 imports '../../../../src/util/x.ts' (src/util/x.ts), outside targets/runtime",
    "targets/runtime/lib/io/z.ts:2 imports '../../../iceberg/type-map.ts' (targets/iceberg/type-map.ts), outside targets/runtime",
    "targets/runtime/lib/io/z.ts:4 imports 'left-pad', a package targets/runtime/package.json does not declare",
  ]);
});

test('@pipec/runtime is a workspace member with one subpath export per runtime module', () => {
  assert.equal(pkg.name, '@pipec/runtime');
  assert.equal(pkg.type, 'module', 'its .ts sources are ES modules');
  assert.equal(pkg.version, rootPkg.version, 'released together with pipec');
  assert.ok(rootPkg.workspaces?.includes(PKG_DIR), 'the root package.json lists it in "workspaces"');
  assert.deepEqual(pkg.files, ['lib/']);
  const target = (k: string): string => {
    const e = pkg.exports[k];
    assert.ok(e !== undefined, `export ${k}`);
    return typeof e === 'string' ? e : e.default;
  };
  assert.equal(target('.'), './lib/index.ts');
  // Every module the compiler's table names (what generated code imports) is a subpath, and nothing else is.
  const modules = readdirSync(join(ROOT, PKG_DIR, 'lib', 'modules')).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)).sort();
  assert.deepEqual([...new Set(ALL_RUNTIME_MODULES.map((m) => m.module))].sort(), modules);
  const subpaths = Object.keys(pkg.exports).filter((k) => k !== '.' && k !== './package.json').sort();
  assert.deepEqual(subpaths, modules.map((m) => `./${m}`));
  for (const m of modules) {
    const file = target(`./${m}`);
    assert.equal(file, `./lib/modules/${m}.ts`);
    assert.ok(existsSync(join(ROOT, PKG_DIR, file)), file);
  }
  // Installed once for both: the same versions as pipec's own dependencies.
  for (const [dep, version] of Object.entries(pkg.dependencies)) assert.equal(version, rootPkg.dependencies[dep], `${dep} pinned as in the root package.json`);
});

test('each subpath gives the runtime module the compiler table names, and the entry exports start()', async () => {
  const entry = (await import(join(ROOT, PKG_DIR, 'lib', 'index.ts'))) as Record<string, unknown>;
  assert.equal(typeof entry.start, 'function');
  for (const ref of ALL_RUNTIME_MODULES) {
    const mod = (await import(join(ROOT, PKG_DIR, 'lib', 'modules', `${ref.module}.ts`))) as Record<string, { name?: string }>;
    assert.equal(mod[ref.binding]?.name, ref.module, `@pipec/runtime/${ref.module} exports ${ref.binding}`);
  }
});
