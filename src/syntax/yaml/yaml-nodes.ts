// Helpers over the `yaml` package's node tree: source spans of nodes, alias resolution, lookup
// by a JSON-pointer path (what ajv reports), and readable descriptions of places and values.
import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import type { LineMap, Span } from '../../diagnostics/span.ts';

export interface YamlEnv {
  doc: Document.Parsed;
  file: string;
  lineMap: LineMap;
  text: string;
}

/** Follows an alias to the node it names; null for a dangling alias or a missing node. */
export function deref(env: YamlEnv, node: unknown): Node | null {
  let n = node;
  for (let guard = 0; guard < 100 && isAlias(n); guard++) {
    try {
      n = n.resolve(env.doc);
    } catch {
      return null;
    }
  }
  if (n === undefined || n === null || isAlias(n)) return null;
  return n as Node;
}

/** Span of a node's own text (without trailing comments), clamped to the file. */
export function nodeSpan(env: YamlEnv, node: unknown): Span {
  const r = (node as { range?: [number, number, number] } | null)?.range;
  const len = env.text.length;
  if (!r) return env.lineMap.span(env.file, 0, 0);
  const s = Math.min(Math.max(r[0], 0), len);
  const e = Math.min(Math.max(r[1], s), len);
  return env.lineMap.span(env.file, s, e);
}

/** Span of a `key: value` pair, from the key to the end of the value. */
export function pairSpan(env: YamlEnv, pair: Pair): Span {
  const k = nodeSpan(env, pair.key);
  const v = pair.value ? nodeSpan(env, pair.value) : k;
  return env.lineMap.span(env.file, k.start.offset, Math.max(k.end.offset, v.end.offset));
}

/** The key of a pair as text (`1: x` gives "1"); null for a complex (mapping or list) key. */
export function keyText(pair: Pair): string | null {
  const k = pair.key;
  if (isScalar(k)) return k.value === null ? '' : String(k.value);
  return null;
}

/** The pairs of a mapping node, or [] when the node is not a mapping. */
export function pairsOf(env: YamlEnv, node: unknown): Pair<unknown, unknown>[] {
  const n = deref(env, node);
  return isMap(n) ? (n as YAMLMap).items : [];
}

export function findPair(env: YamlEnv, node: unknown, key: string): Pair<unknown, unknown> | null {
  for (const p of pairsOf(env, node)) if (keyText(p) === key) return p;
  return null;
}

export function itemsOf(env: YamlEnv, node: unknown): unknown[] {
  const n = deref(env, node);
  return isSeq(n) ? (n as YAMLSeq).items : [];
}

/** Decodes a JSON pointer (`/sources/a~1b/columns/0`) into its segments. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export interface Located {
  /** The value node at the path (null when the path runs off the tree). */
  node: Node | null;
  /** The pair whose value it is, when it is a mapping value. */
  pair: Pair<unknown, unknown> | null;
}

/** Finds the node a JSON-pointer path names. */
export function locate(env: YamlEnv, root: unknown, segments: readonly string[]): Located {
  let node: Node | null = deref(env, root);
  let pair: Pair<unknown, unknown> | null = null;
  for (const seg of segments) {
    if (isMap(node)) {
      pair = (node as YAMLMap).items.find((p) => isPair(p) && keyText(p) === seg) ?? null;
      node = pair ? deref(env, pair.value) : null;
    } else if (isSeq(node)) {
      const item = (node as YAMLSeq).items[Number(seg)];
      pair = null;
      node = item === undefined ? null : deref(env, item);
    } else {
      return { node: null, pair };
    }
  }
  return { node, pair };
}

const SECTION_NOUN: Record<string, string> = {
  catalogs: 'catalog',
  sources: 'source',
  views: 'view',
  sinks: 'sink',
  compaction_policies: 'compaction policy',
};

/** "source 'orders'", "'delay' in watermark of source 'orders'", "the top level". */
export function describePlace(segments: readonly string[]): string {
  if (segments.length === 0) return 'the top level';
  const [section, name, ...rest] = segments;
  const noun = SECTION_NOUN[section!];
  if (section === 'options') return segments.length === 1 ? 'pipeline options' : `pipeline option '${segments.slice(1).join('.')}'`;
  if (!noun) return `'${segments.join('.')}'`;
  if (name === undefined) return `'${section}'`;
  const owner = `${noun} '${name}'`;
  if (rest.length === 0) return owner;
  const inner = rest.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
  return `'${inner}' of ${owner}`;
}

/** "a string", "a list", ... for messages. */
export function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'nothing (null)';
  if (Array.isArray(v)) return 'a list';
  switch (typeof v) {
    case 'string':
      return `the string '${v.length > 40 ? `${v.slice(0, 37)}...` : v}'`;
    case 'number':
      return `the number ${v}`;
    case 'boolean':
      return `the boolean ${v}`;
    case 'object':
      return 'a mapping';
    default:
      return typeof v;
  }
}
