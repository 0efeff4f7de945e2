// The one way user text (names, literal values, option values) enters generated JavaScript:
// as a string literal (`jsString`, `jsJson`), inside a `//` comment (`jsComment`), or as part
// of an identifier (`jsNames`). A quoted SQL identifier or a YAML string may hold any
// character, so nothing here trusts its input: a name can never end a comment, close a
// string, or read differently than it runs (Trojan Source bidi controls are escaped too).

import { hex4, UNSAFE_CHARS as UNSAFE } from '../../../src/util/unsafe-text.ts';

// Unsafe characters (src/util/unsafe-text.ts) are written as `\uXXXX`: in a literal that means
// the same character; U+2028/U+2029 need it explicitly (JSON.stringify leaves them raw, and a
// pre-ES2019 parser ends a string there).

/** A JS string literal holding exactly `s` (it evaluates back to the same UTF-16 text). */
export function jsString(s: string): string {
  // JSON.stringify escapes quotes, backslashes, C0 controls and (ES2019) lone surrogates; the
  // rest of UNSAFE only inside the literal, where `\uXXXX` means the same character.
  return JSON.stringify(s).replace(UNSAFE, hex4);
}

/** JSON text as JS code (an object literal): strings are escaped as `jsString` does. */
export function jsJson(v: unknown, space?: number): string {
  // In JSON text the UNSAFE characters can only occur inside strings (whitespace is plain
  // space/newline from the indenter, which the pattern's `\n` would wrongly hit: skip it).
  return JSON.stringify(v, null, space).replace(UNSAFE, (ch) => (ch === '\n' ? ch : hex4(ch)));
}

/**
 * User text to show in a `//` comment: one line whatever it holds. Backslashes are doubled so
 * an escape shown stays distinguishable from the text `\u2028` typed by the user; `*` before
 * `/` is escaped so the text is also safe inside a block comment.
 */
export function jsComment(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(UNSAFE, hex4).replace(/\*\//g, '*\\/');
}

/**
 * JS identifier fragments for IR ids (sources, operators, sinks), unique within one module:
 * the id with every character outside [A-Za-z0-9_] as `_` (so `orders/filter` reads
 * `orders_filter`), and `$2`, `$3`, ... appended when another id already has that fragment
 * (`a b` and `a_b`, or two names of non-Latin letters). Ids are registered in plan order, so
 * the fragments are deterministic.
 */
export function jsNames(ids: Iterable<string>): (id: string) => string {
  const byId = new Map<string, string>();
  const taken = new Set<string>();
  for (const id of ids) {
    if (byId.has(id)) continue;
    const base = id.replace(/[^A-Za-z0-9_]/g, '_');
    let frag = base;
    // `$` is never produced by the replacement, so a suffixed fragment cannot equal a base one.
    for (let n = 2; taken.has(frag); n++) frag = `${base}$${n}`;
    taken.add(frag);
    byId.set(id, frag);
  }
  return (id) => {
    const f = byId.get(id);
    if (f === undefined) throw new Error(`runtime codegen: no identifier registered for id ${jsString(id)}`);
    return f;
  };
}
