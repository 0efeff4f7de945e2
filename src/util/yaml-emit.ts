// A fast YAML writer for the generated Kubernetes documents (alerts.yaml, flink/deployment.yaml):
// byte for byte what the `yaml` package's `stringify(doc, { lineWidth: 0, ... })` writes, for the
// plain data those documents hold (block mappings and sequences of strings, integers and booleans).
// `yaml`'s stringify builds a Document tree and runs its general quoting and folding rules per
// scalar: about 12 % of a 1,000-spec build. Anything outside the subset handled here (control
// characters, multi-line values other than a block literal in a mapping, keys that would need
// quoting, shared objects, non-integer numbers, null/undefined) falls back to `yaml` itself for
// the whole document, so the output never differs (test/unit/util/yaml-emit.test.ts compares the
// two on the generated documents and on random ones).
import { stringify } from 'yaml';

export interface EmitOptions {
  /** `defaultStringType: 'QUOTE_DOUBLE'` with plain keys (alerts.yaml); default: plain strings. */
  quoteStrings?: boolean;
}

/** Thrown inside the fast path when a value is outside its subset; caught by emitYaml. */
class Unsupported extends Error {}
const UNSUPPORTED = new Unsupported();

/** `yaml.stringify(doc, { lineWidth: 0, ... })` for a plain object (see the file comment). */
export function emitYaml(doc: Record<string, unknown>, opts: EmitOptions = {}): string {
  const fast = emitYamlFast(doc, opts);
  if (fast !== null) return fast;
  return opts.quoteStrings
    ? stringify(doc, { lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' })
    : stringify(doc, { lineWidth: 0 });
}

/** The fast path alone: null when `doc` holds something outside its subset. */
export function emitYamlFast(doc: Record<string, unknown>, opts: EmitOptions = {}): string | null {
  try {
    const out: string[] = [];
    if (!isPlainObject(doc) || Object.keys(doc).length === 0) return null;
    mapLines(doc, '', opts.quoteStrings === true, new Set<object>(), out, false);
    return out.join('');
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * The pairs of a block mapping whose keys start at column `indent.length`. `inSeq`: the first
 * pair continues a `- ` already written (a mapping as a sequence item).
 */
function mapLines(map: Record<string, unknown>, indent: string, quote: boolean, seen: Set<object>, out: string[], inSeq: boolean): void {
  if (seen.has(map)) throw UNSUPPORTED; // yaml writes an anchor and an alias for a repeated object
  seen.add(map);
  let first = true;
  for (const key of Object.keys(map)) {
    const value = map[key];
    out.push(first && inSeq ? '' : indent, plainKey(key), ':');
    first = false;
    valueLines(value, indent, quote, seen, out);
  }
}

/** What follows `key:` (or `-`): ` scalar\n`, ` {}`/` []`, ` |` + a block, or a nested block collection. */
function valueLines(value: unknown, indent: string, quote: boolean, seen: Set<object>, out: string[]): void {
  if (Array.isArray(value)) {
    if (value.length === 0) return void out.push(' []\n');
    if (seen.has(value)) throw UNSUPPORTED;
    seen.add(value);
    out.push('\n');
    // yaml's default indentSeq: the dashes two columns in from the key.
    const itemIndent = indent + '  ';
    for (const item of value) {
      out.push(itemIndent, '-');
      if (isPlainObject(item)) {
        if (Object.keys(item).length === 0) {
          out.push(' {}\n');
          continue;
        }
        out.push(' ');
        mapLines(item, itemIndent + '  ', quote, seen, out, true);
      } else if (Array.isArray(item)) throw UNSUPPORTED; // a sequence in a sequence: not needed here
      else out.push(' ', scalar(item, quote), '\n');
    }
    return;
  }
  if (isPlainObject(value)) {
    if (Object.keys(value).length === 0) return void out.push(' {}\n');
    out.push('\n');
    mapLines(value, indent + '  ', quote, seen, out, false);
    return;
  }
  if (typeof value === 'string' && value.includes('\n') && !quote) {
    out.push(' ', blockLiteral(value, indent + '  '), '\n');
    return;
  }
  out.push(' ', scalar(value, quote), '\n');
}

// yaml's rules (stringifyString.js, yaml 1.2 core schema), for single-line values.
/** Forces double quotes (control characters, C1 controls, unpaired surrogates). */
const FORCE_DOUBLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
/** Not allowed as a plain scalar (an indicator first, `: `, ` #`, a trailing space or colon, ...). */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;
/** Plain text the core schema would read as null, a boolean or a number. */
const NOT_A_STRING = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
];
/** A key written plain: a word that is no other core-schema value and needs no quotes. */
const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_./-]*$/;

function plainKey(key: string): string {
  if (key.length > 1000 || !SIMPLE_KEY.test(key) || NOT_A_STRING.some((r) => r.test(key))) throw UNSUPPORTED;
  return key;
}

function scalar(value: unknown, quote: boolean): string {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || Object.is(value, -0) || Math.abs(value) >= 1e21) throw UNSUPPORTED;
    return String(value);
  }
  if (typeof value !== 'string') throw UNSUPPORTED;
  if (value.includes('\n') || FORCE_DOUBLE.test(value) || value.includes('\t') || value.includes('\r')) throw UNSUPPORTED;
  // JSON's escapes are YAML's for a single line without control characters.
  if (quote) return JSON.stringify(value);
  if (NOT_PLAIN.test(value) || NOT_A_STRING.some((r) => r.test(value))) return quoted(value);
  if (DOCUMENT_MARKER.test(value)) throw UNSUPPORTED;
  return value;
}

/** yaml's quotedString without the singleQuote option: single quotes when the text holds only double ones. */
function quoted(value: string): string {
  if (value.includes('"') && !value.includes("'")) return `'${value}'`;
  return JSON.stringify(value);
}

/**
 * A multi-line value as a block literal (`|`, or `|-` without a final newline) indented by
 * `indent`; only the plain cases: no leading space or newline, no trailing blank or
 * whitespace-only line, no control characters besides the newlines.
 */
function blockLiteral(value: string, indent: string): string {
  if (FORCE_DOUBLE.test(value) || value.includes('\t') || value.includes('\r')) throw UNSUPPORTED;
  if (value[0] === ' ' || value[0] === '\n') throw UNSUPPORTED;
  let body = value;
  let chomp = '-';
  if (body.endsWith('\n')) {
    body = body.slice(0, -1);
    chomp = '';
  }
  const last = body[body.length - 1];
  if (last === '\n' || last === ' ') throw UNSUPPORTED;
  return `|${chomp}\n${indent}${body.replace(/\n+/g, `$&${indent}`)}`;
}
