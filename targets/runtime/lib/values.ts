// Internal value representation and the LANGUAGE.md "Values" conversions (read and write).
// BIGINT and DECIMAL are "hybrid integers": a JS number while |v| <= 2^53, a BigInt beyond;
// a DECIMAL(p, s) is such an integer scaled by 10^s, so sums of money stay exact and fast.

/** Returned by readers when a raw value does not match its declared type. */
export const BAD: unique symbol = Symbol('bad-value');
export type Bad = typeof BAD;

export type Int64 = number | bigint;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;

/** Canonical form: a number when safe, else a BigInt (so `===` compares equal values). */
export function norm64(v: bigint): Int64 {
  return v <= MAX_SAFE && v >= MIN_SAFE ? Number(v) : v;
}

export function add64(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (r <= Number.MAX_SAFE_INTEGER && r >= -Number.MAX_SAFE_INTEGER) return r;
  }
  return norm64(BigInt(a) + BigInt(b));
}

export function sub64(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (r <= Number.MAX_SAFE_INTEGER && r >= -Number.MAX_SAFE_INTEGER) return r;
  }
  return norm64(BigInt(a) - BigInt(b));
}

export function mul64(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b;
    if (r <= Number.MAX_SAFE_INTEGER && r >= -Number.MAX_SAFE_INTEGER) return r;
  }
  return norm64(BigInt(a) * BigInt(b));
}

export function cmp64(a: Int64, b: Int64): number {
  // Mixed number/BigInt comparisons are exact in JS.
  return a < b ? -1 : a > b ? 1 : 0;
}

const POW10_NUM: number[] = Array.from({ length: 39 }, (_, i) => 10 ** i);
const POW10: bigint[] = [];
for (let i = 0, p = 1n; i <= 76; i++, p *= 10n) POW10.push(p);
export const pow10n = (n: number): bigint => POW10[n] ?? 10n ** BigInt(n);

/** Integer division rounding half away from zero (SQL DECIMAL rounding). */
export function divRound(n: bigint, d: bigint): bigint {
  if (d === 0n) throw new RangeError('division by zero');
  const neg = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  let q = an / ad;
  if ((an % ad) * 2n >= ad) q += 1n;
  return neg ? -q : q;
}

/** Changes the scale of a scaled decimal integer (rounds half away from zero when reducing). */
export function rescale(v: Int64, from: number, to: number): Int64 {
  if (from === to) return v;
  if (to > from) return mul64(v, typeof v === 'number' && to - from <= 15 ? 10 ** (to - from) : pow10n(to - from));
  return norm64(divRound(BigInt(v), pow10n(from - to)));
}

const DEC_RE = /^\s*([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/**
 * Parses a decimal text or number into a scaled integer; BAD when it has too many integer
 * digits. Fraction digits beyond the scale round half away from zero (a producer's
 * 0.30000000000000004 is 0.30). Work is linear in the text: an exponent only moves the point,
 * so `1e999999999` is rejected and `1e-999999999` is 0 without building their digits.
 */
export function readDecimal(raw: unknown, precision: number, scale: number): Int64 | null | Bad {
  if (raw === null || raw === undefined) return null;
  let text: string;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return BAD;
    // Fast path: a JSON number whose decimal form has at most `scale` fraction digits lands
    // within rounding noise of an integer once scaled; anything else takes the exact text path.
    const x = raw * POW10_NUM[scale]!;
    if (Math.abs(x) < 1e15) {
      const r = Math.round(x);
      if (Math.abs(x - r) < 1e-6) return fitsPrecision(r, precision) ? r + 0 : BAD;
    }
    text = String(raw);
  } else if (typeof raw === 'string') text = raw;
  else if (typeof raw === 'bigint') text = raw.toString();
  else return BAD;
  const m = DEC_RE.exec(text);
  if (!m || (m[2] === '' && (m[3] === undefined || m[3] === ''))) return BAD;
  const all = (m[2] ?? '') + (m[3] ?? '');
  // Position of the decimal point in `all`, and of its first significant digit.
  const point = (m[2] ?? '').length + (m[4] ? Number(m[4]) : 0);
  let first = 0;
  while (first < all.length && all.charCodeAt(first) === 48) first++;
  if (first === all.length) return 0;
  // More integer digits than p - s can never fit (rounding only adds).
  if (point - first > precision - scale) return BAD;
  // Digits kept: everything before `cut`; the digit at `cut` rounds.
  const cut = point + scale;
  if (cut < first) return 0; // the rounding digit is a (leading) zero
  const kept = cut <= all.length ? all.slice(0, cut) : all + '0'.repeat(cut - all.length);
  let v = BigInt(kept === '' ? '0' : kept);
  if (cut < all.length && all.charCodeAt(cut) >= 53 /* '5' */) v += 1n;
  if (m[1] === '-') v = -v;
  const r = norm64(v);
  return fitsPrecision(r, precision) ? r : BAD;
}

function fitsPrecision(v: Int64, precision: number): boolean {
  if (typeof v === 'number') return precision >= 16 || (v < 0 ? -v : v) < POW10_NUM[precision]!;
  if (precision >= 38) return true;
  return (v < 0n ? -v : v) < pow10n(precision);
}

/** A scaled decimal as text with exactly `scale` digits after the point. */
export function formatDecimal(v: Int64, scale: number): string {
  if (scale === 0) return String(v);
  let neg = false;
  let s: string;
  if (typeof v === 'number') {
    neg = v < 0;
    s = String(neg ? -v : v);
  } else {
    neg = v < 0n;
    s = (neg ? -v : v).toString();
  }
  if (s.length <= scale) s = s.padStart(scale + 1, '0');
  const out = s.slice(0, s.length - scale) + '.' + s.slice(s.length - scale);
  return neg ? '-' + out : out;
}

export function decimalToNumber(v: Int64, scale: number): number {
  return Number(v) / 10 ** scale;
}

export function numberToDecimal(x: number, scale: number): Int64 {
  return readDecimal(x.toFixed(Math.min(scale, 100)), 38, scale) as Int64;
}

/** Division of scaled decimals: a (scale sa) / b (scale sb) to scale sr, rounded. */
export function divDecimal(a: Int64, sa: number, b: Int64, sb: number, sr: number): Int64 | null {
  if (b === 0 || b === 0n) return null;
  // a/10^sa / (b/10^sb) * 10^sr = a * 10^(sr + sb - sa) / b
  const k = sr + sb - sa;
  const n = k >= 0 ? BigInt(a) * pow10n(k) : BigInt(a);
  const d = k >= 0 ? BigInt(b) : BigInt(b) * pow10n(-k);
  return norm64(divRound(n, d));
}

export function mulDecimal(a: Int64, sa: number, b: Int64, sb: number, sr: number): Int64 {
  return rescale(mul64(a, b), sa + sb, sr);
}

// ------------------------------------------------------------------ integers

// Integers are decimal digits with an optional sign (surrounding blanks allowed, as CSV cells
// have them): no hex, octal, exponents or fractions, which `Number()` would accept.
const INT_RE = /^\s*[+-]?\d+\s*$/;

export function readInt(raw: unknown): number | null | Bad {
  if (raw === null || raw === undefined) return null;
  let v: unknown = raw;
  if (typeof raw === 'string') {
    if (!INT_RE.test(raw)) return BAD;
    v = Number(raw);
  }
  if (typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647) return v + 0;
  if (typeof v === 'bigint' && v >= -2147483648n && v <= 2147483647n) return Number(v);
  return BAD;
}

const I64_MAX = (1n << 63n) - 1n;
const I64_MIN = -(1n << 63n);

export function readBigint(raw: unknown): Int64 | null | Bad {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw + 0 : BAD;
  if (typeof raw === 'bigint') return raw >= I64_MIN && raw <= I64_MAX ? norm64(raw) : BAD;
  if (typeof raw === 'string' && INT_RE.test(raw)) {
    const t = raw.trim();
    // 64 bits are 19 digits: longer texts (but for leading zeros) are out of range, and
    // BigInt of a megabyte of digits would cost more than the record is worth.
    if (t.length > 21 && t.replace(/^[+-]?0+/, '').length > 19) return BAD;
    const b = BigInt(t);
    return b >= I64_MIN && b <= I64_MAX ? norm64(b) : BAD;
  }
  return BAD;
}

// A decimal floating-point text, or the texts pipec writes for non-finite doubles.
const FLOAT_RE = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

export function readDouble(raw: unknown): number | null | Bad {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'bigint') return Number(raw);
  if (typeof raw === 'string') {
    if (FLOAT_RE.test(raw)) return Number(raw);
    const t = raw.trim();
    if (t === 'NaN') return NaN;
    if (t === 'Infinity' || t === '+Infinity') return Infinity;
    if (t === '-Infinity') return -Infinity;
  }
  return BAD;
}

export function readFloat(raw: unknown): number | null | Bad {
  const v = readDouble(raw);
  if (typeof v !== 'number') return v;
  const f = Math.fround(v);
  // A finite value beyond FLOAT's range (~3.4e38) is out of the type, not infinity.
  return Number.isFinite(v) && !Number.isFinite(f) ? BAD : f;
}

export function readBoolean(raw: unknown): boolean | null | Bad {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'boolean') return raw;
  if (raw === 'true' || raw === 'TRUE') return true;
  if (raw === 'false' || raw === 'FALSE') return false;
  return BAD;
}

export function readString(raw: unknown): string | null | Bad {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'string') return raw;
  return BAD;
}

/** Strings read from CSV: every cell is text, an empty cell is NULL. */
export function readCsvString(raw: unknown): string | null | Bad {
  if (raw === '' || raw === null || raw === undefined) return null;
  return typeof raw === 'string' ? raw : BAD;
}

export function readJson(raw: unknown): unknown {
  return raw === undefined ? null : raw;
}

export function readBytes(raw: unknown): string | null | Bad {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'string') return raw;
  if (raw instanceof Uint8Array) return Buffer.from(raw).toString('base64');
  return BAD;
}

// ------------------------------------------------------------------ time

const TS_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/;

/** JavaScript's Date range, ±8.64e15 ms (±100,000,000 days): the range of TIMESTAMP and DATE. */
export const MAX_EPOCH_MS = 8.64e15;
export const MAX_EPOCH_DAYS = 1e8;

/**
 * Days since 1970-01-01 of a proleptic Gregorian date, or -1e9 when the fields are no date
 * (month 13, February 30, ...). Computed, not handed to `Date.UTC`, which rolls 2026-02-30
 * over to March 2 and reads years 0-99 as 1900-1999.
 */
function civilDays(y: number, mo: number, d: number): number {
  if (mo < 1 || mo > 12 || d < 1) return -1e9;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > (mo === 2 ? (leap ? 29 : 28) : mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31)) return -1e9;
  // Howard Hinnant's days_from_civil: years start in March so the leap day ends the year.
  const yy = mo <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5) + d - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

/**
 * Epoch milliseconds from an ISO-8601 / 'YYYY-MM-DD HH:MM:SS[.fff]' (UTC) text or epoch-ms number.
 * Every field must be in range (no rollover: 24:00, 00:60, seconds 60 and February 30 are
 * BAD); fraction digits beyond milliseconds are cut; numbers must lie in the Date range.
 */
export function readTimestamp(raw: unknown): number | null | Bad {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'number') return Number.isFinite(raw) && raw <= MAX_EPOCH_MS && raw >= -MAX_EPOCH_MS ? Math.trunc(raw) + 0 : BAD;
  if (typeof raw === 'bigint') return raw <= 8640000000000000n && raw >= -8640000000000000n ? Number(raw) : BAD;
  if (raw instanceof Date) {
    const t = raw.getTime();
    return Number.isNaN(t) ? BAD : t;
  }
  if (typeof raw !== 'string') return BAD;
  const fast = plainTimestamp(raw);
  if (fast !== undefined) return fast;
  const m = TS_RE.exec(raw);
  if (!m) return BAD;
  const days = civilDays(+m[1]!, +m[2]!, +m[3]!);
  const h = m[4] ? +m[4] : 0;
  const mi = m[5] ? +m[5] : 0;
  const s = m[6] ? +m[6] : 0;
  if (days === -1e9 || h > 23 || mi > 59 || s > 59) return BAD;
  const ms = m[7] ? +(m[7] + '00').slice(0, 3) : 0;
  let t = days * 86400000 + h * 3600000 + mi * 60000 + s * 1000 + ms;
  const z = m[8];
  if (z && z !== 'Z') {
    const digits = z.length === 6 ? z.slice(1, 3) + z.slice(4) : z.slice(1);
    const oh = +digits.slice(0, 2);
    const om = +digits.slice(2);
    if (oh > 23 || om > 59) return BAD;
    t -= (z[0] === '-' ? -1 : 1) * (oh * 60 + om) * 60000;
  }
  return t;
}

/** The digit at `i` of `t` (its value), or -1. */
function digitAt(t: string, i: number): number {
  const c = t.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

/**
 * `readTimestamp` of the usual texts without a regular expression (no match array, no
 * substrings: it runs once per event): 'YYYY-MM-DD', then optionally [T ]HH:MM, :SS, .f{1,9},
 * and a final Z — exactly what TS_RE accepts of that shape, with its value. undefined for any
 * other text (an offset, blanks before the zone, a malformed one): TS_RE decides those.
 */
function plainTimestamp(t: string): number | Bad | undefined {
  const n = t.length;
  if (n < 10 || t.charCodeAt(4) !== 45 || t.charCodeAt(7) !== 45) return undefined;
  const y0 = digitAt(t, 0), y1 = digitAt(t, 1), y2 = digitAt(t, 2), y3 = digitAt(t, 3);
  const mo0 = digitAt(t, 5), mo1 = digitAt(t, 6), d0 = digitAt(t, 8), d1 = digitAt(t, 9);
  if ((y0 | y1 | y2 | y3 | mo0 | mo1 | d0 | d1) < 0) return undefined;
  let h = 0;
  let mi = 0;
  let sec = 0;
  let ms = 0;
  let i = 10;
  if (i < n && (t.charCodeAt(i) === 84 || t.charCodeAt(i) === 32)) {
    if (i + 6 > n || t.charCodeAt(i + 3) !== 58) return undefined;
    const h0 = digitAt(t, i + 1), h1 = digitAt(t, i + 2), m0 = digitAt(t, i + 4), m1 = digitAt(t, i + 5);
    if ((h0 | h1 | m0 | m1) < 0) return undefined;
    h = h0 * 10 + h1;
    mi = m0 * 10 + m1;
    i += 6;
    if (i < n && t.charCodeAt(i) === 58) {
      if (i + 3 > n) return undefined;
      const s0 = digitAt(t, i + 1), s1 = digitAt(t, i + 2);
      if ((s0 | s1) < 0) return undefined;
      sec = s0 * 10 + s1;
      i += 3;
      if (i < n && t.charCodeAt(i) === 46) {
        // 1 to 9 fraction digits; milliseconds are the first three (right-padded), the rest cut.
        let k = 0;
        i++;
        for (let dg = digitAt(t, i); dg >= 0 && k < 9; dg = digitAt(t, ++i), k++) if (k < 3) ms = ms * 10 + dg;
        if (k === 0 || digitAt(t, i) >= 0) return undefined;
        for (; k < 3; k++) ms *= 10;
      }
    }
  }
  if (i < n && t.charCodeAt(i) === 90) i++;
  if (i !== n) return undefined;
  const days = civilDays(y0 * 1000 + y1 * 100 + y2 * 10 + y3, mo0 * 10 + mo1, d0 * 10 + d1);
  if (days === -1e9 || h > 23 || mi > 59 || sec > 59) return BAD;
  return days * 86400000 + h * 3600000 + mi * 60000 + sec * 1000 + ms;
}

/** The digit byte b[i] as its value, or -1. */
function byteDigit(b: Uint8Array, i: number): number {
  const c = b[i]! - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

// The last date timestampFromBytes computed (as YYYYMMDD): a stream's instants share a day.
let bytesDayKey = -1;
let bytesDayDays = 0;

/**
 * Epoch milliseconds of the bytes b[from, to) when they spell one of the usual fixed shapes,
 * 'YYYY-MM-DD HH:MM:SS', with 'T' for the blank, '.fff' and a final 'Z' optional, and name a
 * real instant: what readTimestamp gives for that text, without making the text. undefined
 * for anything else, a bad date included: the caller then reads the text itself, so values
 * and dead-letter reasons stay readTimestamp's.
 */
export function timestampFromBytes(b: Uint8Array, from: number, to: number): number | undefined {
  const n = to - from;
  const zoned = n === 20 || n === 24;
  if ((n !== 19 && n !== 23 && !zoned) || (zoned && b[to - 1] !== 90)) return undefined;
  if (b[from + 4] !== 45 || b[from + 7] !== 45 || (b[from + 10] !== 32 && b[from + 10] !== 84) || b[from + 13] !== 58 || b[from + 16] !== 58) return undefined;
  const y0 = byteDigit(b, from), y1 = byteDigit(b, from + 1), y2 = byteDigit(b, from + 2), y3 = byteDigit(b, from + 3);
  const mo0 = byteDigit(b, from + 5), mo1 = byteDigit(b, from + 6), d0 = byteDigit(b, from + 8), d1 = byteDigit(b, from + 9);
  const h0 = byteDigit(b, from + 11), h1 = byteDigit(b, from + 12), m0 = byteDigit(b, from + 14), m1 = byteDigit(b, from + 15);
  const s0 = byteDigit(b, from + 17), s1 = byteDigit(b, from + 18);
  if ((y0 | y1 | y2 | y3 | mo0 | mo1 | d0 | d1 | h0 | h1 | m0 | m1 | s0 | s1) < 0) return undefined;
  let ms = 0;
  if (n >= 23) {
    const f0 = byteDigit(b, from + 20), f1 = byteDigit(b, from + 21), f2 = byteDigit(b, from + 22);
    if (b[from + 19] !== 46 || (f0 | f1 | f2) < 0) return undefined;
    ms = f0 * 100 + f1 * 10 + f2;
  }
  const dayKey = ((y0 * 10 + y1) * 100 + y2 * 10 + y3) * 10000 + (mo0 * 10 + mo1) * 100 + d0 * 10 + d1;
  if (dayKey !== bytesDayKey) {
    const days = civilDays(Math.floor(dayKey / 10000), Math.floor(dayKey / 100) % 100, dayKey % 100);
    if (days === -1e9) return undefined;
    bytesDayKey = dayKey;
    bytesDayDays = days;
  }
  const h = h0 * 10 + h1;
  const mi = m0 * 10 + m1;
  const sec = s0 * 10 + s1;
  if (h > 23 || mi > 59 || sec > 59) return undefined;
  return bytesDayDays * 86400000 + h * 3600000 + mi * 60000 + sec * 1000 + ms;
}

/** Epoch days from 'YYYY-MM-DD' (a real calendar date) or an integer number of days in the Date range. */
export function readDate(raw: unknown): number | null | Bad {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'number') return Number.isInteger(raw) && raw <= MAX_EPOCH_DAYS && raw >= -MAX_EPOCH_DAYS ? raw + 0 : BAD;
  if (typeof raw === 'bigint') return raw <= 100000000n && raw >= -100000000n ? Number(raw) : BAD;
  if (raw instanceof Date) {
    const t = raw.getTime();
    return Number.isNaN(t) ? BAD : Math.floor(t / 86400000);
  }
  if (typeof raw === 'string') {
    const m = DATE_RE.exec(raw);
    if (!m) return BAD;
    const d = civilDays(+m[1]!, +m[2]!, +m[3]!);
    return d === -1e9 ? BAD : d;
  }
  return BAD;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

const p2 = (n: number): string => (n < 10 ? '0' + n : String(n));
const p3 = (n: number): string => (n < 10 ? '00' + n : n < 100 ? '0' + n : String(n));

// Formatting the same day over and over is the common case in a window stream: cache it.
let cachedDay = NaN;
let cachedDayText = '';

// Window rows repeat their window_start and window_end row after row (every key of a fired
// window): the last two instants' texts are kept, so most rows format no timestamp at all.
let lastMs = NaN;
let lastText = '';
let prevMs = NaN;
let prevText = '';

/** TIMESTAMP(p) output: 'YYYY-MM-DD HH:MM:SS.fff' in UTC. */
export function formatTimestamp(ms: number): string {
  if (ms === lastMs) return lastText;
  if (ms === prevMs) return prevText;
  const text = timestampText(ms);
  prevMs = lastMs;
  prevText = lastText;
  lastMs = ms;
  lastText = text;
  return text;
}

function timestampText(ms: number): string {
  const day = Math.floor(ms / 86400000);
  if (day !== cachedDay) {
    const d = new Date(day * 86400000);
    const y = d.getUTCFullYear();
    cachedDayText = (y >= 0 && y < 10000 ? String(y).padStart(4, '0') : String(y)) + '-' + p2(d.getUTCMonth() + 1) + '-' + p2(d.getUTCDate()) + ' ';
    cachedDay = day;
  }
  let r = ms - day * 86400000;
  const h = Math.floor(r / 3600000);
  r -= h * 3600000;
  const mi = Math.floor(r / 60000);
  r -= mi * 60000;
  const s = Math.floor(r / 1000);
  return cachedDayText + p2(h) + ':' + p2(mi) + ':' + p2(s) + '.' + p3(r - s * 1000);
}

/** TIMESTAMP_LTZ output: ISO-8601 with `Z`. */
export function formatTimestampLtz(ms: number): string {
  return new Date(ms).toISOString();
}

/** DATE output: 'YYYY-MM-DD' (years beyond 9999 or before 0 in full, as TIMESTAMP writes them). */
export function formatDate(days: number): string {
  const d = new Date(days * 86400000);
  const y = d.getUTCFullYear();
  return (y >= 0 && y < 10000 ? String(y).padStart(4, '0') : String(y)) + '-' + p2(d.getUTCMonth() + 1) + '-' + p2(d.getUTCDate());
}

/** BIGINT output: a number within 2^53, a string beyond. */
export function jsonInt64(v: Int64): string {
  return typeof v === 'number' ? String(v) : '"' + v.toString() + '"';
}

export function jsonDouble(v: number): string {
  return Number.isFinite(v) ? String(v) : '"' + String(v) + '"';
}

/** JSON text of an arbitrary nested value (ARRAY/MAP/ROW), BigInts as strings. */
export function jsonAny(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
}

/**
 * A raw value as a dead letter's reason shows it: JSON text of at most 200 characters, and a
 * placeholder for values JSON.stringify cannot render (nesting deeper than the stack).
 */
export function previewValue(v: unknown): string {
  let text: string;
  try {
    text = jsonAny(v) ?? String(v);
  } catch {
    return Array.isArray(v) ? '(an array nested too deeply to show)' : '(a value nested too deeply to show)';
  }
  return text.length > 200 ? text.slice(0, 200) + '...' : text;
}

/** BIGINT division truncating toward zero; NULL on division by zero. */
export function div64(a: Int64, b: Int64): Int64 | null {
  if (b === 0 || b === 0n) return null;
  if (typeof a === 'number' && typeof b === 'number') return Math.trunc(a / b);
  return norm64(BigInt(a) / BigInt(b));
}

export function mod64(a: Int64, b: Int64): Int64 | null {
  if (b === 0 || b === 0n) return null;
  if (typeof a === 'number' && typeof b === 'number') return a % b;
  return norm64(BigInt(a) % BigInt(b));
}

/** A CAST that cannot parse its input yields NULL. */
export function orNull<T>(v: T | Bad): T | null {
  return v === BAD ? null : v;
}

export function numOrNull(v: Int64 | null): number | null {
  return v === null ? null : Number(v);
}

/** A group key of several columns as one Map key; length prefixes keep it unambiguous. */
export function compositeKey(...vs: unknown[]): string {
  let k = '';
  for (const v of vs) {
    if (v === null) k += '~';
    else {
      const s = String(v);
      k += s.length + ':' + s;
    }
  }
  return k;
}
