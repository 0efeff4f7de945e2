// Typed checking of `WITH (...)` option lists against per-connector tables: required keys,
// unknown keys (with a suggestion), duplicate keys and value types.
import type { OptionEntry } from '../syntax/ast.ts';
import type { IrOption } from '../plan/ir.ts';
import type { Span } from '../diagnostics/span.ts';
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import { suggest } from '../util/suggest.ts';
import { parseDuration, parseSize } from './units.ts';
import { assertNever } from '../util/assert-never.ts';
import type { OptSpec, OptType } from '../connectors/descriptor.ts';

// The option schema types live with the connector descriptors (src/connectors/descriptor.ts).
export type { OptSpec, OptType } from '../connectors/descriptor.ts';
export { bool, duration, int, oneOf, size, str } from '../connectors/descriptor.ts';

export type OptValue = string | number | boolean;

/** The checked options of one statement: parsed values by key, plus the IR option map. */
export class CheckedOptions {
  readonly values = new Map<string, OptValue>();
  readonly entries = new Map<string, OptionEntry>();
  readonly ir: Record<string, IrOption> = {};

  has(key: string): boolean {
    return this.entries.has(key);
  }
  /** The parsed value, or undefined when absent or invalid (invalid values were reported). */
  get(key: string): OptValue | undefined {
    return this.values.get(key);
  }
  string(key: string): string | undefined {
    const v = this.values.get(key);
    return v === undefined ? undefined : String(v);
  }
  number(key: string): number | undefined {
    const v = this.values.get(key);
    return typeof v === 'number' ? v : undefined;
  }
  boolean(key: string): boolean | undefined {
    const v = this.values.get(key);
    return typeof v === 'boolean' ? v : undefined;
  }
  valueSpan(key: string, fallback: Span): Span {
    return this.entries.get(key)?.value.span ?? fallback;
  }
}

/**
 * Checks `entries` against `table`. `dynamic` handles keys outside the table (datagen's
 * `fields.<col>.*`): it returns the key's type, or null when the key is unknown.
 */
export function checkOptions(
  entries: readonly OptionEntry[],
  table: readonly OptSpec[],
  owner: string,
  ownerSpan: Span,
  bag: DiagnosticBag,
  dynamic?: (entry: OptionEntry) => OptType | null,
  ignore: readonly string[] = [],
): CheckedOptions {
  const out = new CheckedOptions();
  const byKey = new Map(table.map((s) => [s.key, s]));
  for (const e of entries) {
    if (out.entries.has(e.key)) {
      bag.report('duplicate-option', e.keySpan, { key: e.key });
      continue;
    }
    out.entries.set(e.key, e);
    out.ir[e.key] = { value: e.value.text, template: e.value.raw, envVars: [...e.value.envVars] };
    if (ignore.includes(e.key)) continue;
    const type = byKey.get(e.key)?.type ?? dynamic?.(e) ?? null;
    if (!type) {
      bag.report('unknown-option', e.keySpan, { key: e.key, owner, suggestion: suggest(e.key, [...byKey.keys(), ...ignore]) });
      continue;
    }
    const v = parseValue(e, type, bag);
    if (v !== undefined) out.values.set(e.key, v);
  }
  for (const s of table) {
    if (s.required && !out.entries.has(s.key)) bag.report('missing-option', ownerSpan, { key: s.key, owner });
  }
  return out;
}

export function parseValue(e: OptionEntry, type: OptType, bag: DiagnosticBag): OptValue | undefined {
  const text = e.value.text.trim();
  const bad = (expected: string): undefined => {
    bag.report('invalid-option-value', e.value.span, { key: e.key, value: e.value.text, expected });
    return undefined;
  };
  switch (type.kind) {
    case 'string':
      return e.value.text;
    case 'duration': {
      const ms = parseDuration(text);
      if (ms === null || (ms === 0 && !type.allowZero)) return bad("a positive duration such as '30 s', '5 min', '1 h' or '7 d'");
      return ms;
    }
    case 'size': {
      const b = parseSize(text);
      if (b === null || b === 0) return bad("a positive size such as '128 MB' or '1 GiB'");
      return b;
    }
    case 'int': {
      const range =
        type.min !== undefined && type.max !== undefined
          ? `an integer from ${type.min} to ${type.max}`
          : type.min !== undefined
            ? `an integer of at least ${type.min}`
            : 'an integer';
      if (!/^-?\d+$/.test(text)) return bad(range);
      const n = Number(text);
      if (!Number.isSafeInteger(n) || (type.min !== undefined && n < type.min) || (type.max !== undefined && n > type.max)) return bad(range);
      return n;
    }
    case 'number': {
      if (!/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text)) return bad('a number');
      return Number(text);
    }
    case 'boolean': {
      const t = text.toLowerCase();
      if (t === 'true') return true;
      if (t === 'false') return false;
      return bad('true or false');
    }
    case 'enum': {
      const t = text.toLowerCase();
      if (type.values.includes(t)) return t;
      return bad(`one of ${type.values.map((v) => `'${v}'`).join(', ')}`);
    }
    default:
      return assertNever(type);
  }
}

/** Splits a comma-separated list option (`'customer_id, region'`), dropping empty items. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** An identifier in an option value: `"Quoted"` keeps case, a bare word is case-folded. */
export function optionIdent(text: string): string {
  const t = text.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) return t.slice(1, -1).replace(/""/g, '"');
  return t.toLowerCase();
}
