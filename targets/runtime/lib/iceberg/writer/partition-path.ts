// The folder of a partition's data files, as Iceberg Java's PartitionSpec.partitionToPath
// names it: `name=value` per partition field, each side URL-encoded (java.net.URLEncoder:
// space → '+', other bytes outside [A-Za-z0-9.*_-] → %XX of the UTF-8 bytes), the value in
// the transform's human form (Transform.toHumanString): dates and day/month/year/hour as
// calendar text, decimals with their scale (-1000.00), binary as base64, null as "null".
// The folder name is part of the file's location verbatim (file-io.ts never decodes it).
import { transformResultType } from './transforms.ts';
import { decimalUnscaled, toMicros } from './values.ts';

const pad = (n: number, w: number): string => (n < 0 ? '-' + String(-n).padStart(w, '0') : String(n).padStart(w, '0'));

/** Java's LocalDate year text: 4 digits at least, '+' above 9999. */
const yearText = (y: number): string => (y > 9999 ? '+' + String(y) : pad(y, 4));

function civil(ms: number): Date {
  return new Date(ms);
}

function humanDay(days: number): string {
  const d = civil(days * 86_400_000);
  return `${yearText(d.getUTCFullYear())}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

/** java.time LocalDateTime.toString: seconds only when not zero, fraction in 3, 6 or 9 digits. */
function humanTimestamp(micros: bigint, withZone: boolean): string {
  const ms = Number(micros / 1000n - (micros % 1000n < 0n ? 1n : 0n));
  const subMicros = Number(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n);
  const d = civil(ms);
  let s = `${humanDay(Math.floor(ms / 86_400_000))}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}`;
  if (d.getUTCSeconds() !== 0 || subMicros !== 0) {
    s += ':' + pad(d.getUTCSeconds(), 2);
    if (subMicros !== 0) s += '.' + (subMicros % 1000 === 0 ? pad(subMicros / 1000, 3) : pad(subMicros, 6));
  }
  return withZone ? s + 'Z' : s;
}

/** java.math.BigDecimal.toString of unscaled × 10^-scale (plain unless the exponent is below -6). */
export function humanDecimal(unscaled: bigint, scale: number): string {
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString();
  const adjusted = -scale + (digits.length - 1);
  let body: string;
  if (scale >= 0 && adjusted >= -6) {
    if (scale === 0) body = digits;
    else {
      const padded = digits.padStart(scale + 1, '0');
      body = `${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
    }
  } else {
    body = (digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits) + 'E' + (adjusted >= 0 ? '+' : '') + String(adjusted);
  }
  return neg ? '-' + body : body;
}

/** Java's Double.toString for the common cases (shortest digits; 1.0, 1.0E21, 1.0E-4). */
function humanDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  const a = Math.abs(v);
  if (a === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  if (a >= 1e-3 && a < 1e7) return Number.isInteger(v) ? `${v}.0` : String(v);
  const [m, e] = v.toExponential().split('e') as [string, string];
  return `${m.includes('.') ? m : m + '.0'}E${Number(e)}`;
}

/** Transform.toHumanString of a transformed (partition) value of `resultType`. */
export function humanPartitionValue(transform: string, resultType: string, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  const t = transform.replace(/\[.*$/, '');
  if (t === 'year') return pad(1970 + Number(value), 4);
  if (t === 'month') {
    const m = Number(value);
    const y = 1970 + Math.floor(m / 12);
    return `${pad(y, 4)}-${pad(((m % 12) + 12) % 12 + 1, 2)}`;
  }
  if (t === 'hour') {
    const h = Number(value);
    return `${humanDay(Math.floor(h / 24))}-${pad(((h % 24) + 24) % 24, 2)}`;
  }
  if (t === 'bucket') return String(value);
  if (resultType === 'date') return humanDay(Number(value));
  if (resultType === 'timestamp' || resultType === 'timestamptz') return humanTimestamp(toMicros(value as number | bigint), resultType === 'timestamptz');
  const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(resultType);
  if (dec) return humanDecimal(decimalUnscaled(value as string | bigint, Number(dec[2])), Number(dec[2]));
  if (resultType === 'binary') return Buffer.from(value as Uint8Array).toString('base64');
  if (resultType === 'double' || resultType === 'float') return humanDouble(Number(value));
  return String(value);
}

/** java.net.URLEncoder.encode(s, UTF-8). */
export function urlEncodeJava(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9.*_-]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

export interface PathPartitionField {
  name: string;
  transform: string;
  sourceType: string;
}

/** `a=1/b=x` for a partition tuple (field name → transformed value). */
export function partitionToPath(fields: PathPartitionField[], part: Record<string, unknown>): string {
  return fields
    .map((p) => {
      const resultType = transformResultType(p.transform.replace(/\[.*$/, ''), p.sourceType);
      return `${urlEncodeJava(p.name)}=${urlEncodeJava(humanPartitionValue(p.transform, resultType, part[p.name]))}`;
    })
    .join('/');
}
