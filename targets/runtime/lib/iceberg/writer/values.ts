// The in-memory value model the writer accepts (shared with the runtime): one JS value per
// Iceberg type. Kept deliberately plain so generated runtime code can hand rows over as is.
//   boolean → boolean          int, date (epoch days) → number
//   long → number | bigint     float, double → number
//   decimal(p,s) → string with the exact decimal ("12.50"), or bigint of the unscaled value
//   timestamp(tz) → number of epoch milliseconds, or bigint of epoch microseconds
//   string → string            binary → Uint8Array
//   list → array   map → Map or plain object   struct → plain object keyed by field name
export type IcebergValue = unknown;

export function toMicros(v: number | bigint): bigint {
  return typeof v === 'bigint' ? v : BigInt(Math.round(v * 1000));
}

/** Unscaled integer of a decimal value at `scale`; rejects values that do not fit exactly. */
export function decimalUnscaled(v: string | bigint | number, scale: number): bigint {
  if (typeof v === 'bigint') return v;
  const text = typeof v === 'number' ? v.toFixed(scale) : v.trim();
  const m = /^([+-])?(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new Error(`not a decimal: ${text}`);
  const frac = m[3] ?? '';
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) throw new Error(`decimal ${text} has more than ${scale} fraction digits`);
  const digits = (m[2] || '0') + frac.slice(0, scale).padEnd(scale, '0');
  const n = BigInt(digits);
  return m[1] === '-' ? -n : n;
}

export function toBigInt(v: number | bigint): bigint {
  return typeof v === 'bigint' ? v : BigInt(v);
}
