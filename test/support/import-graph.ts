// The real import graph of the compiler's source tree, read with the TypeScript compiler's own
// parser (not regexes): static imports, `export ... from`, `import x = require()`, dynamic
// `import()`, `require()` and type positions `import('...')`. Plus the checker that
// test/unit/layering.test.ts runs over it: an allowed-imports matrix of folders ("layers") and
// the cycles between folders. The checker takes a plain edge list, so a test can feed it a
// synthetic graph and expect the failure.
import ts from 'typescript';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** One import of one file. Paths are repository-relative with forward slashes. */
export interface ImportEdge {
  from: string;
  /** The specifier as written. */
  specifier: string;
  /** The imported file (relative specifiers only; packages and `node:` are not edges). */
  to: string;
  line: number;
  /** Erased at build time (`import type`, all named imports `type`, `import('x').T` in a type). */
  typeOnly: boolean;
}

const SOURCE = /\.(ts|mts|cts)$/;

/** Every source file under the given folders of `root` (repository-relative, sorted). */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (SOURCE.test(e.name)) out.push(rel);
    }
  };
  for (const f of folders) walk(f);
  return out.sort();
}

function stringArg(n: ts.Expression | undefined): string | null {
  return n !== undefined && ts.isStringLiteralLike(n) ? n.text : null;
}

/** The imports written in one file's text (specifiers as written, every one, relative or not). */
export function importsInText(fileName: string, text: string): Array<Omit<ImportEdge, 'to' | 'from'>> {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Array<Omit<ImportEdge, 'to' | 'from'>> = [];
  const add = (node: ts.Node, specifier: string | null, typeOnly: boolean): void => {
    if (specifier === null) return;
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    found.push({ specifier, line, typeOnly });
  };
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n)) {
      const c = n.importClause;
      // `import { type A, type B } from` is erased like `import type`; a bare `import 'x'` is not.
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : null;
      const allTypes = c !== undefined && !c.name && named !== null && named.length > 0 && named.every((e) => e.isTypeOnly);
      add(n, stringArg(n.moduleSpecifier), c?.isTypeOnly === true || allTypes);
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier) {
      const named = n.exportClause && ts.isNamedExports(n.exportClause) ? n.exportClause.elements : null;
      add(n, stringArg(n.moduleSpecifier), n.isTypeOnly || (named !== null && named.length > 0 && named.every((e) => e.isTypeOnly)));
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      add(n, stringArg(n.moduleReference.expression), n.isTypeOnly);
    } else if (ts.isCallExpression(n)) {
      const isImport = n.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(n.expression) && n.expression.text === 'require';
      if (isImport || isRequire) add(n, stringArg(n.arguments[0]), false);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) {
      add(n, stringArg(n.argument.literal as ts.Expression), true);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

/** The relative imports of every source file under `folders`, resolved to repository paths. */
export function readImportGraph(root: string, folders: readonly string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const from of sourceFiles(root, folders)) {
    for (const imp of importsInText(from, readFileSync(join(root, from), 'utf8'))) {
      if (!imp.specifier.startsWith('.')) continue;
      const to = relative(root, resolve(root, dirname(from), imp.specifier)).split(sep).join('/');
      edges.push({ from, to, ...imp });
    }
  }
  return edges;
}

// ---------------------------------------------------------------- the layering checker

export interface Layer {
  /** Layers this one may import (values and types). */
  may: readonly string[];
  /** Layers this one may import only with erased, type-only imports. */
  mayTypes?: readonly string[];
  /** Why: the phase order or shipping constraint the rule encodes (named in failures). */
  why: string;
}

/** Layer name → rule. A name is a folder (`src/check`) or one file (`src/api.ts`). */
export type Layers = Readonly<Record<string, Layer>>;

/** The layer a file belongs to: the longest layer name that is the file or a folder holding it. */
export function layerOf(file: string, layers: Layers): string | null {
  let best: string | null = null;
  for (const name of Object.keys(layers)) {
    if ((file === name || file.startsWith(`${name}/`)) && (best === null || name.length > best.length)) best = name;
  }
  return best;
}

/** Each wrong-way import as one line naming the file, the import and the rule it breaks. */
export function layeringViolations(edges: readonly ImportEdge[], layers: Layers): string[] {
  const out: string[] = [];
  for (const e of edges) {
    const a = layerOf(e.from, layers);
    const b = layerOf(e.to, layers);
    const where = `${e.from}:${e.line} imports '${e.specifier}' (${e.to})`;
    if (a === null) {
      out.push(`${where}: ${e.from} belongs to no layer; add its folder to the matrix in test/unit/layering.test.ts`);
      continue;
    }
    if (b === null) {
      out.push(`${where}: ${e.to} belongs to no layer; add its folder to the matrix in test/unit/layering.test.ts`);
      continue;
    }
    if (a === b) continue;
    const rule = layers[a]!;
    if (rule.may.includes(b)) continue;
    if (e.typeOnly && rule.mayTypes?.includes(b)) continue;
    const typesNote = rule.mayTypes?.includes(b) ? ` (only \`import type\` of ${b} is allowed)` : '';
    const allowed = [...rule.may, ...(rule.mayTypes ?? []).map((t) => `${t} (types)`)];
    out.push(`${where}: ${a} may not import ${b}${typesNote} — ${rule.why} ${a} may import: ${allowed.join(', ') || 'nothing of the tree'}.`);
  }
  return out;
}

/** Strongly connected groups (size > 1, or a self-loop) of a directed graph, each sorted. */
export function cyclesOf(nodes: Iterable<string>, arrows: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  // Tarjan's algorithm, iterative enough for folder graphs (tens of nodes).
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of arrows.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const g: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        g.push(w);
      } while (w !== v);
      if (g.length > 1 || arrows.get(v)?.has(v)) groups.push(g.sort());
    }
  };
  for (const n of [...nodes].sort()) if (!idx.has(n)) strong(n);
  return groups.sort((x, y) => x[0]!.localeCompare(y[0]!));
}

/**
 * Import cycles between folders (as `folderOf` names them, e.g. the layers), each as one line
 * naming the folders and one import per arrow.
 */
export function folderCycles(edges: readonly ImportEdge[], folderOf: (file: string) => string): string[] {
  const arrows = new Map<string, Set<string>>();
  const example = new Map<string, ImportEdge>();
  for (const e of edges) {
    const a = folderOf(e.from);
    const b = folderOf(e.to);
    if (a === b) continue;
    (arrows.get(a) ?? arrows.set(a, new Set()).get(a)!).add(b);
    if (!example.has(`${a}→${b}`)) example.set(`${a}→${b}`, e);
  }
  const nodes = new Set([...arrows.keys(), ...[...arrows.values()].flatMap((s) => [...s])]);
  return cyclesOf(nodes, arrows).map((g) => {
    const inGroup = new Set(g);
    const why = [...example.entries()]
      .filter(([k]) => {
        const [a, b] = k.split('→') as [string, string];
        return inGroup.has(a) && inGroup.has(b);
      })
      .map(([, e]) => `${e.from}:${e.line} imports '${e.specifier}'`);
    return `import cycle between folders ${g.join(' ↔ ')}: ${why.join('; ')}`;
  });
}

/** The files reached from `starts` through imports that survive the build (not type-only). */
export function valueClosure(edges: readonly ImportEdge[], starts: readonly string[]): Map<string, ImportEdge | null> {
  const byFrom = new Map<string, ImportEdge[]>();
  for (const e of edges) if (!e.typeOnly) (byFrom.get(e.from) ?? byFrom.set(e.from, []).get(e.from)!).push(e);
  const reached = new Map<string, ImportEdge | null>(starts.map((s) => [s, null]));
  const todo = [...starts];
  while (todo.length) {
    for (const e of byFrom.get(todo.pop()!) ?? []) {
      if (reached.has(e.to)) continue;
      reached.set(e.to, e);
      todo.push(e.to);
    }
  }
  return reached;
}
