// Layering held by a test (issue 15.5): which folder may import which, following the phase
// order of DESIGN.md / STYLE.md ("phases talk through one serializable IR; a target never
// reaches into the parser; the parser never knows a target"), read from the real import graph
// of grammar/, src/ and targets/. Also: no import cycle between any two folders, and the
// runtime library (shipped as source, bundled into pipelines without the compiler) reaches at
// run time only files the npm package ships.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  folderCycles,
  cyclesOf,
  importsInText,
  layerOf,
  layeringViolations,
  readImportGraph,
  sourceFiles,
  valueClosure,
  type ImportEdge,
  type Layers,
} from '../support/import-graph.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const TREE = ['grammar', 'src', 'targets'];

/** Leaves every layer may use: helpers, the diagnostics API, the SQL type model. */
const LEAVES = ['src/util', 'src/diagnostics', 'src/types'];

/**
 * The allowed-imports matrix, bottom (leaves) to top (the CLI). A layer may import itself and
 * what `may` lists; `mayTypes` only through erased `import type` (nothing of it is bundled).
 */
export const LAYERS: Layers = {
  // ---- leaves
  'src/util': { may: [], why: 'src/util holds leaf helpers every layer uses; it imports nothing of the tree.' },
  // Code the compiler runs as well as the shipped runtime library lives in the runtime package
  // (@pipec/runtime, targets/runtime), which imports nothing outside itself: the compiler
  // imports it from there, never the other way round.
  'targets/runtime/lib/shared': {
    may: [],
    why: 'the schema registry client, redaction and state fingerprints are run by the compiler and the runtime library; they import only Node and npm packages.',
  },
  'targets/runtime/lib/config': {
    may: [],
    why: 'connector option resolvers are pure data functions, shared by the checker, the lowering and the runtime library (bundles ship them).',
  },
  'targets/runtime/lib/iceberg/writer': {
    may: [],
    why: 'the Iceberg writer runs in pipeline bundles and in `pipec compact`; it imports nothing of the compiler or the rest of the runtime library.',
  },
  'src/diagnostics': { may: ['src/util'], why: 'the diagnostics API is below every phase.' },
  'src/types': { may: ['src/util'], why: 'the SQL type model is part of the IR and below every phase.' },
  // ---- front end
  grammar: { may: [], why: 'grammar/ is the pure language definition (lexer, parser); the driver and the AST live in src/syntax.' },
  'src/syntax': { may: ['grammar', ...LEAVES], why: 'the front ends know the grammar, never the checker, the plan or a target.' },
  'src/schema': {
    may: ['src/syntax', 'targets/runtime/lib/shared', ...LEAVES],
    why: 'schema sources map external schemas into the type model for the checker; they know no plan.',
  },
  // ---- the IR and the phases that make and read it
  'src/plan': { may: [...LEAVES], why: 'the plan IR is plain data below the phases; it must not know the AST it was made from.' },
  'src/plan/optimize': { may: ['src/plan', ...LEAVES], why: 'optimizer passes are PlanDoc → PlanDoc.' },
  'src/plan/print': { may: ['src/plan', ...LEAVES], why: 'the printers read the plan only.' },
  'src/plan/physical': {
    may: ['src/plan', 'src/plan/print', 'src/plan/optimize', 'src/connectors', 'targets/runtime/lib/config', ...LEAVES],
    why: 'the lowering reads the checked plan (and prints its expressions) and resolves connector options with the shared resolvers.',
  },
  'src/connectors': {
    may: ['src/plan', 'src/plan/print', 'targets/runtime/lib/config', ...LEAVES],
    why: 'connector descriptors read the checked plan (their resolvers and lints); the config resolvers the runtime library ships import nothing of the tree (the last test holds that).',
  },
  'src/check': {
    may: ['src/syntax', 'src/schema', 'src/plan', 'src/connectors', 'targets/runtime/lib/shared', 'targets/runtime/lib/config', ...LEAVES],
    why: 'the checker turns the AST into the plan; it runs before the lints and never calls them.',
  },
  'src/lint': {
    may: ['src/plan', 'src/plan/optimize', 'src/plan/print', 'src/connectors', ...LEAVES],
    why: 'lints read the checked plan only (shared plan queries live in src/plan; constant folding and the printers are pure functions of it), and run the lints of the connector descriptors.',
  },
  // ---- targets: the IR, its physical lowering (with the Target interface) and the diagnostics API only (STYLE.md 1)
  'targets/clickhouse': { may: ['src/plan', 'src/plan/physical', ...LEAVES], why: 'a target reads only the plan IR, its physical plan and the diagnostics API.' },
  'targets/flink': { may: ['src/plan', 'src/plan/physical', 'src/plan/print', 'targets/runtime/lib/config', ...LEAVES], why: 'a target reads only the plan IR, its physical plan and the diagnostics API (and the plan printer\'s duration format).' },
  // Its writer lives in the runtime package (targets/runtime/lib/iceberg/writer/), which pipeline bundles run.
  'targets/iceberg': { may: ['src/plan', 'src/plan/physical', 'targets/runtime/lib/iceberg/writer', ...LEAVES], why: 'a target reads only the plan IR, its physical plan and the diagnostics API (and writes tables with the writer).' },
  'targets/runtime': {
    may: ['targets/runtime/codegen', 'targets/runtime/lib', 'src/plan', 'src/plan/physical', 'src/connectors', 'package.json', ...LEAVES],
    why: 'the runtime target reads only the plan IR, its physical plan and the diagnostics API.',
  },
  'targets/runtime/codegen': {
    may: ['targets/runtime/lib', 'targets/runtime/lib/config', 'targets/iceberg', 'src/plan', 'src/plan/physical', 'src/connectors', ...LEAVES],
    why: 'runtime codegen reads the plan IR (and the Iceberg table layout it writes to), never a phase.',
  },
  'targets/runtime/lib': {
    may: ['targets/runtime/lib/shared', 'targets/runtime/lib/config', 'targets/runtime/lib/iceberg/writer'],
    why: 'the runtime library is the package @pipec/runtime, shipped as source and bundled into pipelines without the compiler: it imports nothing outside targets/runtime.',
  },
  // ---- drivers and entry points
  'src/build': {
    may: ['src/syntax', 'src/schema', 'src/check', 'src/lint', 'src/plan', 'src/plan/optimize', 'src/plan/print', 'src/plan/physical', 'src/connectors', 'targets/clickhouse', 'targets/flink', 'targets/iceberg', 'targets/runtime', 'targets/runtime/lib/shared', 'targets/runtime/lib/config', 'targets/runtime/lib/iceberg/writer', ...LEAVES],
    why: 'the driver knows every phase and every target, and nothing above it.',
  },
  'src/test-runner': {
    may: ['src/build', 'src/syntax', 'src/plan', 'targets/runtime', 'targets/runtime/codegen', 'targets/runtime/lib', 'targets/clickhouse', 'targets/flink', ...LEAVES],
    why: '`pipec test` compiles through the driver and runs the real runtime (its generated code, its runner) with scripted connectors, the ClickHouse target\'s DDL on chdb and the Flink target\'s script on PyFlink.',
  },
  'src/api.ts': {
    may: ['src/build', 'src/syntax', 'src/plan', 'src/plan/physical', 'src/plan/print', ...LEAVES],
    why: 'the library API calls the driver and exposes the IR, the target names and the formatter.',
  },
  'src/cli': {
    may: ['src/build', 'src/api.ts', 'src/test-runner', 'src/plan/print', 'src/diagnostics', 'src/util', 'package.json'],
    why: 'the CLI calls src/build (and src/api.ts), prints with the diagnostics renderer and the plan printers; never a phase or a target.',
  },
  'package.json': { may: [], why: 'package.json is data.' },
};

let read: ImportEdge[] | null = null;
/** Parsing every file takes seconds: read once for all the tests of this file. */
function graph(): ImportEdge[] {
  read ??= readImportGraph(ROOT, TREE);
  return read;
}
const layer = (f: string): string => layerOf(f, LAYERS) ?? f;

test('every import between folders follows the allowed-imports matrix', () => {
  const bad = layeringViolations(graph(), LAYERS);
  assert.deepEqual(bad, [], `wrong-way imports:\n  ${bad.join('\n  ')}`);
});

test('no import cycle between any two layers', () => {
  const cycles = folderCycles(graph(), layer);
  assert.deepEqual(cycles, [], cycles.join('\n'));
});

test('the matrix itself is acyclic and names only layers it defines', () => {
  const arrows = new Map(Object.entries(LAYERS).map(([k, v]) => [k, new Set([...v.may, ...(v.mayTypes ?? [])])]));
  for (const [k, s] of arrows) for (const t of s) assert.ok(t in LAYERS, `${k} names an unknown layer ${t}`);
  assert.deepEqual(cyclesOf(arrows.keys(), arrows), []);
});

test('every source file belongs to a layer', () => {
  const orphans = sourceFiles(ROOT, TREE).filter((f) => layerOf(f, LAYERS) === null);
  assert.deepEqual(orphans, [], 'add these folders to LAYERS in test/unit/layering.test.ts');
});

test('what the runtime library runs is in the npm package and is not the compiler', () => {
  const edges = graph();
  const lib = sourceFiles(ROOT, ['targets/runtime/lib']);
  const files: string[] = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).files;
  const shipped = (f: string): boolean => files.some((p) => (p.endsWith('/') ? f.startsWith(p) : f === p));
  const compilerLayers = new Set(['src/syntax', 'src/schema', 'src/check', 'src/lint', 'src/plan', 'src/build', 'src/cli', 'src/api.ts', 'grammar']);
  const bad: string[] = [];
  for (const [f, via] of valueClosure(edges, lib)) {
    const how = via ? ` (reached through ${via.from}:${via.line} '${via.specifier}')` : '';
    if (!shipped(f)) bad.push(`${f} is not in package.json "files"${how}`);
    if (compilerLayers.has(layerOf(f, LAYERS) ?? '')) bad.push(`${f} is compiler code${how}`);
  }
  assert.ok(lib.length > 20, 'the runtime library was found');
  assert.deepEqual(bad, []);
});

// ---------------------------------------------------------------- the checker itself

test('a wrong-way import fails with the file, the import and the rule it breaks', () => {
  const edges: ImportEdge[] = [
    { from: 'targets/runtime/lib/formats/avro.ts', specifier: '../../../../src/schema/avro.ts', to: 'src/schema/avro.ts', line: 7, typeOnly: false },
    { from: 'src/check/select.ts', specifier: '../lint/index.ts', to: 'src/lint/index.ts', line: 3, typeOnly: false },
    // Allowed ones stay quiet: a lint reading the plan, the compiler using the runtime package's resolvers.
    { from: 'src/lint/index.ts', specifier: '../plan/ir.ts', to: 'src/plan/ir.ts', line: 4, typeOnly: false },
    { from: 'src/check/sinks.ts', specifier: '../../targets/runtime/lib/config/kafka/config.ts', to: 'targets/runtime/lib/config/kafka/config.ts', line: 5, typeOnly: false },
    // The runtime package imports nothing outside itself, not even the IR's types (it is published on its own).
    { from: 'targets/runtime/lib/runner.ts', specifier: '../../../src/plan/ir.ts', to: 'src/plan/ir.ts', line: 5, typeOnly: true },
  ];
  const bad = layeringViolations(edges, LAYERS);
  assert.equal(bad.length, 3, bad.join('\n'));
  assert.match(bad[0]!, /^targets\/runtime\/lib\/formats\/avro\.ts:7 imports '\.\.\/\.\.\/\.\.\/\.\.\/src\/schema\/avro\.ts' \(src\/schema\/avro\.ts\): targets\/runtime\/lib may not import src\/schema — the runtime library is the package @pipec\/runtime/);
  assert.match(bad[1]!, /^src\/check\/select\.ts:3 imports .*: src\/check may not import src\/lint — the checker .* src\/check may import: src\/syntax, /);
  assert.match(bad[2]!, /^targets\/runtime\/lib\/runner\.ts:5 .*: targets\/runtime\/lib may not import src\/plan — /);
  // A layer allowed only erased imports of another: the same import as a value (it would be
  // bundled) is refused, and says what is allowed.
  const typesOnly: Layers = { a: { may: [], mayTypes: ['b'], why: 'a only types b.' }, b: { may: [], why: 'b is a leaf.' } };
  const edge: ImportEdge = { from: 'a/x.ts', specifier: '../b/y.ts', to: 'b/y.ts', line: 2, typeOnly: true };
  assert.deepEqual(layeringViolations([edge], typesOnly), []);
  const value = layeringViolations([{ ...edge, typeOnly: false }], typesOnly);
  assert.match(value[0]!, /a may not import b \(only `import type` of b is allowed\)/);
});

test('a cycle between two folders is reported with one import per arrow', () => {
  const edges: ImportEdge[] = [
    { from: 'grammar/index.ts', specifier: '../src/syntax/ast.ts', to: 'src/syntax/ast.ts', line: 5, typeOnly: true },
    { from: 'src/syntax/sql/ast-builder.ts', specifier: '../../../grammar/parser.ts', to: 'grammar/parser.ts', line: 4, typeOnly: false },
    // Inside one layer: not a cycle between layers.
    { from: 'src/syntax/ast.ts', specifier: './sql/cst.ts', to: 'src/syntax/sql/cst.ts', line: 9, typeOnly: false },
    { from: 'src/check/checker.ts', specifier: '../plan/ir.ts', to: 'src/plan/ir.ts', line: 2, typeOnly: false },
  ];
  assert.deepEqual(folderCycles(edges, layer), [
    "import cycle between folders grammar ↔ src/syntax: grammar/index.ts:5 imports '../src/syntax/ast.ts'; src/syntax/sql/ast-builder.ts:4 imports '../../../grammar/parser.ts'",
  ]);
  // The same edges are also wrong-way for the matrix (grammar imports nothing of src/).
  assert.match(layeringViolations(edges, LAYERS)[0]!, /^grammar\/index\.ts:5 .*: grammar may not import src\/syntax — /);
});

test('the reader sees every form of import, and which are erased', () => {
  const text = [
    "import { a } from './a.ts';",
    "import type { B } from './b.ts';",
    "import { type C, type D } from './c.ts';",
    "import { type E, f } from './e.ts';",
    "import './side-effect.ts';",
    "export { g } from './g.ts';",
    "export type { H } from './h.ts';",
    "export * from './star.ts';",
    "import data from './data.json' with { type: 'json' };",
    "import fs = require('node:fs');",
    "const lazy = () => import('./lazy.ts');",
    "let t: import('./in-type.ts').T;",
    "// import { fake } from './comment.ts';",
    "const s = \"import { fake } from './string.ts'\";",
  ].join('\n');
  const got = importsInText('x.ts', text).map((i) => `${i.line} ${i.specifier}${i.typeOnly ? ' (type)' : ''}`);
  assert.deepEqual(got, [
    '1 ./a.ts',
    '2 ./b.ts (type)',
    '3 ./c.ts (type)',
    '4 ./e.ts',
    '5 ./side-effect.ts',
    '6 ./g.ts',
    '7 ./h.ts (type)',
    '8 ./star.ts',
    '9 ./data.json',
    '10 node:fs',
    '11 ./lazy.ts',
    '12 ./in-type.ts (type)',
  ]);
});
