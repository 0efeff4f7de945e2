// Scalar SQL functions called by generated expressions where a plain JS operator would not
// do: NULL propagation, three-valued logic, LIKE, string and time functions, JSON_VALUE.
import { add64, cmp64, type Int64 } from './values.ts';
import { compareStrings } from './compare-strings.ts';

type V = unknown;

/** Generic comparison of two non-null values of the same SQL domain. */
export function cmp(a: V, b: V): number {
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  return cmp64(a as Int64, b as Int64);
}

export const eq = (a: V, b: V): boolean | null => (a === null || b === null ? null : cmp(a, b) === 0);
export const ne = (a: V, b: V): boolean | null => (a === null || b === null ? null : cmp(a, b) !== 0);
export const lt = (a: V, b: V): boolean | null => (a === null || b === null ? null : cmp(a, b) < 0);
export const le = (a: V, b: V): boolean | null => (a === null || b === null ? null : cmp(a, b) <= 0);
export const gt = (a: V, b: V): boolean | null => (a === null || b === null ? null : cmp(a, b) > 0);
export const ge = (a: V, b: V): boolean | null => (a === null || b === null ? null : cmp(a, b) >= 0);

export function and(a: boolean | null, b: boolean | null): boolean | null {
  if (a === false || b === false) return false;
  if (a === null || b === null) return null;
  return true;
}
export function or(a: boolean | null, b: boolean | null): boolean | null {
  if (a === true || b === true) return true;
  if (a === null || b === null) return null;
  return false;
}
export const not = (a: boolean | null): boolean | null => (a === null ? null : !a);

export function inList(v: V, list: V[]): boolean | null {
  if (v === null) return null;
  let sawNull = false;
  for (const x of list) {
    if (x === null) sawNull = true;
    else if (cmp(v, x) === 0) return true;
  }
  return sawNull ? null : false;
}

const likeCache = new Map<string, RegExp>();
export function like(s: string | null, pattern: string | null): boolean | null {
  if (s === null || pattern === null) return null;
  let re = likeCache.get(pattern);
  if (re === undefined) {
    let src = '';
    for (const ch of pattern) src += ch === '%' ? '.*' : ch === '_' ? '.' : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    re = new RegExp('^' + src + '$', 's');
    likeCache.set(pattern, re);
  }
  return re.test(s);
}

export function concat(...xs: V[]): string | null {
  let r = '';
  for (const x of xs) {
    if (x === null) return null;
    r += String(x);
  }
  return r;
}

/** SUBSTRING(s FROM start [FOR len]), 1-based as in SQL. */
export function substring(s: string | null, start: number | null, len?: number | null): string | null {
  if (s === null || start === null || len === null) return null;
  const cps = [...s];
  const from = Math.max(start, 1) - 1;
  const end = len === undefined ? cps.length : Math.max(start + len - 1, 0);
  return cps.slice(from, Math.max(from, end)).join('');
}

export const charLength = (s: string | null): number | null => (s === null ? null : [...s].length);

export function coalesce(...xs: V[]): V {
  for (const x of xs) if (x !== null) return x;
  return null;
}

export const nullif = (a: V, b: V): V => (a !== null && b !== null && cmp(a, b) === 0 ? null : a);

// ------------------------------------------------------------------ time (epoch ms, UTC)

const UNIT_MS: Record<string, number> = { millisecond: 1, second: 1000, minute: 60000, hour: 3600000, day: 86400000, week: 604800000 };

export function floorTo(ms: number | null, unit: string): number | null {
  if (ms === null) return null;
  const u = UNIT_MS[unit];
  if (unit === 'week') {
    // ISO weeks start on Monday; 1970-01-01 was a Thursday.
    const monday = 4 * 86400000;
    return Math.floor((ms - monday) / u!) * u! + monday;
  }
  if (u !== undefined) return Math.floor(ms / u) * u;
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  if (unit === 'month') return Date.UTC(y, m, 1);
  if (unit === 'quarter') return Date.UTC(y, m - (m % 3), 1);
  if (unit === 'year') return Date.UTC(y, 0, 1);
  throw new RangeError(`unknown time unit ${unit}`);
}

export function ceilTo(ms: number | null, unit: string): number | null {
  if (ms === null) return null;
  const f = floorTo(ms, unit)!;
  return f === ms ? ms : timestampAdd(unit, 1, f);
}

export function timestampAdd(unit: string, n: number | null, ms: number | null): number | null {
  if (n === null || ms === null) return null;
  const u = UNIT_MS[unit];
  if (u !== undefined) return ms + n * u;
  const d = new Date(ms);
  const months = unit === 'month' ? n : unit === 'quarter' ? 3 * n : unit === 'year' ? 12 * n : NaN;
  if (Number.isNaN(months)) throw new RangeError(`unknown time unit ${unit}`);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  // Clamp to the last day of the target month (SQL semantics: Jan 31 + 1 month = Feb 28/29).
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(d.getUTCDate(), last), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

export function extract(unit: string, ms: number | null): number | null {
  if (ms === null) return null;
  const d = new Date(ms);
  switch (unit) {
    case 'millisecond':
      return d.getUTCSeconds() * 1000 + d.getUTCMilliseconds();
    case 'second':
      return d.getUTCSeconds();
    case 'minute':
      return d.getUTCMinutes();
    case 'hour':
      return d.getUTCHours();
    case 'day':
      return d.getUTCDate();
    case 'week': {
      const t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      const dow = (d.getUTCDay() + 6) % 7;
      const thursday = new Date(t - dow * 86400000 + 3 * 86400000);
      const jan1 = Date.UTC(thursday.getUTCFullYear(), 0, 1);
      return Math.floor((thursday.getTime() - jan1) / 604800000) + 1;
    }
    case 'month':
      return d.getUTCMonth() + 1;
    case 'quarter':
      return Math.floor(d.getUTCMonth() / 3) + 1;
    case 'year':
      return d.getUTCFullYear();
    default:
      throw new RangeError(`unknown time unit ${unit}`);
  }
}

/** JSON_VALUE(json, '$.a.b[0]'): the scalar at the path as text, NULL when absent or not scalar. */
export function jsonValue(text: string | null, path: string | null): string | null {
  if (text === null || path === null) return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const re = /\.([A-Za-z_$][\w$]*)|\.?"((?:[^"\\]|\\.)*)"|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]/y;
  if (!path.startsWith('$')) return null;
  re.lastIndex = 1;
  while (re.lastIndex < path.length) {
    const start = re.lastIndex;
    const m = re.exec(path);
    if (!m || m.index !== start) return null;
    const key = m[1] ?? m[2] ?? m[4];
    if (key !== undefined) v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;
    else v = Array.isArray(v) ? v[Number(m[3])] : undefined;
    if (v === undefined) return null;
  }
  if (v === null || typeof v === 'object') return null;
  return String(v);
}

export const sum64 = add64;
