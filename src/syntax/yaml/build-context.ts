// What the AST builders share: the YAML document, the front-end context, the SQL body parser,
// and small converters from YAML scalars to AST pieces (names, durations, options) that keep
// each node's source span and report their own mistakes.
import { isScalar, type Pair, type Scalar } from 'yaml';
import type { Expr, Ident, IntervalLit, OptionEntry, OptionValue, QualifiedName, Query } from '../ast.ts';
import type { Span } from '../../diagnostics/span.ts';
import type { FragmentOrigin, FrontEndContext } from '../front-end.ts';
import { substituteEnv } from '../env-subst.ts';
import { parseYamlDuration } from './duration.ts';
import { parseIdentText, parseQualifiedText } from './names.ts';
import { scalarFragmentOrigin, type ScalarStyle } from './scalar-offsets.ts';
import { deref, describePlace, keyText, nodeSpan, pairSpan, type YamlEnv } from './yaml-nodes.ts';

/** How SQL bodies are parsed; the grammar's parseSqlQuery/parseSqlExpr by default. */
export interface SqlBodyParser {
  query(text: string, ctx: FrontEndContext, origin: FragmentOrigin): Query | null;
  expr(text: string, ctx: FrontEndContext, origin: FragmentOrigin): Expr | null;
}

export interface Builder {
  env: YamlEnv;
  ctx: FrontEndContext;
  sql: SqlBodyParser;
}

const OPTION_KEY = /^[a-z_][a-z0-9_-]*(\.[a-z0-9_-]+)*$/;
const SQL_NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

export function scalarNode(b: Builder, node: unknown): Scalar | null {
  const n = deref(b.env, node);
  return isScalar(n) ? n : null;
}

/** A scalar's string value, or null when it is not a string scalar (the schema has said so). */
export function stringValue(b: Builder, node: unknown): string | null {
  const s = scalarNode(b, node);
  return s && typeof s.value === 'string' ? s.value : null;
}

/** Maps [start, end) of a scalar's value to a file span (exact through quotes and folding). */
export function subSpanOf(b: Builder, sc: Scalar): (start: number, end: number) => Span {
  const value = typeof sc.value === 'string' ? sc.value : String(sc.value);
  if (!sc.range) return () => nodeSpan(b.env, sc);
  const origin = originOf(b, sc, value);
  return (start, end) => b.env.lineMap.span(b.env.file, origin.mapOffset(start), Math.max(origin.mapOffset(start), origin.mapOffset(end)));
}

export function originOf(b: Builder, sc: Scalar, value: string): FragmentOrigin {
  const style = (sc.type ?? 'PLAIN') as ScalarStyle;
  return scalarFragmentOrigin(b.env.text, b.env.lineMap, { style, range: sc.range ?? [0, 0, 0], value });
}

/** An identifier written as a YAML key or value; reports a bad name and keeps it verbatim. */
export function identOf(b: Builder, node: unknown, what: string): Ident | null {
  const sc = scalarNode(b, node);
  if (!sc || (sc.value !== null && typeof sc.value === 'object')) return null;
  // `null:`, `~:` or `1.0:` as a name: the text as written, not what YAML resolved it to.
  const written = sc.range && sc.type === 'PLAIN' ? b.env.text.slice(sc.range[0], sc.range[1]) : '';
  const text = typeof sc.value === 'string' ? sc.value : written || String(sc.value);
  const ident = parseIdentText(text, typeof sc.value === 'string' ? subSpanOf(b, sc) : () => nodeSpan(b.env, sc));
  if (ident && text.includes('\0')) b.ctx.diagnostics.report('name-nul-character', ident.span, {});
  if (ident) return ident;
  const span = nodeSpan(b.env, sc);
  b.ctx.diagnostics.report('yaml-bad-name', span, { name: text, what });
  return { name: text, quoted: true, span };
}

export function qualifiedOf(b: Builder, node: unknown, what: string): QualifiedName | null {
  const sc = scalarNode(b, node);
  if (!sc || typeof sc.value !== 'string') return null;
  const q = parseQualifiedText(sc.value, subSpanOf(b, sc));
  if (q && sc.value.includes('\0')) b.ctx.diagnostics.report('name-nul-character', q.span, {});
  if (q) return q;
  const span = nodeSpan(b.env, sc);
  b.ctx.diagnostics.report('yaml-bad-name', span, { name: sc.value, what });
  return { parts: [{ name: sc.value, quoted: true, span }], span };
}

export function durationOf(b: Builder, node: unknown, place: readonly string[]): IntervalLit | null {
  const sc = scalarNode(b, node);
  if (!sc || typeof sc.value !== 'string') return null;
  const span = nodeSpan(b.env, sc);
  const iv = parseYamlDuration(sc.value, span);
  if (!iv) b.ctx.diagnostics.report('yaml-bad-duration', span, { where: describePlace(place), text: sc.value });
  return iv;
}

/** Parses a SQL body held in a scalar, with errors mapped back into the YAML file. */
export function sqlQueryOf(b: Builder, node: unknown): Query | null {
  const sc = scalarNode(b, node);
  if (!sc || typeof sc.value !== 'string') return null;
  return b.sql.query(sc.value, b.ctx, originOf(b, sc, sc.value));
}

export function sqlExprOf(b: Builder, node: unknown): Expr | null {
  const sc = scalarNode(b, node);
  if (!sc || typeof sc.value !== 'string') return null;
  return b.sql.expr(sc.value, b.ctx, originOf(b, sc, sc.value));
}

/** An option value from a plain scalar; null (already reported by the schema) otherwise. */
export function optionValueOf(b: Builder, node: unknown): OptionValue | null {
  const sc = scalarNode(b, node);
  if (!sc) return null;
  const span = nodeSpan(b.env, sc);
  const v = sc.value;
  if (typeof v === 'string') {
    const sub = substituteEnv(v, span, b.ctx);
    return { kind: 'string', text: sub.text, raw: v, envVars: sub.envVars, span };
  }
  if (typeof v === 'number') {
    const written = sc.range ? b.env.text.slice(sc.range[0], sc.range[1]).trim() : '';
    const text = sc.type === 'PLAIN' && SQL_NUMBER.test(written) ? written : String(v);
    return { kind: 'number', text, raw: text, envVars: [], span };
  }
  if (typeof v === 'boolean') return { kind: 'boolean', text: String(v), raw: String(v), envVars: [], span };
  return null;
}

/** `key: value` as a WITH option, with `prefix` for nested datagen fields. */
export function optionOf(b: Builder, pair: Pair<unknown, unknown>, place: readonly string[], keyOverride?: string): OptionEntry | null {
  const written = keyOverride ?? keyText(pair);
  if (written === null) return null;
  const key = written.toLowerCase();
  const keySpan = nodeSpan(b.env, pair.key);
  // With an override (datagen `fields.<column>.<option>`), only this pair's own key is an option
  // name; the column part is a name, already read by identOf, and may be any quoted name.
  const own = keyOverride === undefined ? key : (keyText(pair) ?? '').toLowerCase();
  if (!OPTION_KEY.test(own)) {
    b.ctx.diagnostics.report('yaml-invalid', keySpan, {
      where: capitalizeFirst(describePlace(place)),
      detail: `'${written}' is not an option name (letters, digits, _ and -, in dotted parts)`,
    });
    return null;
  }
  const value = optionValueOf(b, pair.value);
  if (!value) return null;
  return { key, keySpan, value, span: pairSpan(b.env, pair) };
}

export const capitalizeFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
