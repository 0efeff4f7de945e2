// Small formatters shared by the plan printers and the lints: durations in the language's own
// notation ('30 s', '1 min') and grouped integers ('23,040'), independent of the locale.

const UNITS: [number, string][] = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1_000, 's'],
];

/** The largest unit that divides the duration exactly, e.g. 90000 → '90 s', 86400000 → '1 d'. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0 s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  for (const [size, unit] of UNITS) if (abs % size === 0) return `${sign}${abs / size} ${unit}`;
  return `${sign}${abs} ms`;
}

/** An integer with comma thousands separators: 23040 → '23,040'. */
export function formatCount(n: number): string {
  const s = String(Math.round(Math.abs(n)));
  return (n < 0 ? '-' : '') + s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A byte size in the language's notation where exact: 134217728 → '128 MiB'. */
export function formatBytes(n: number): string {
  const units: [number, string][] = [
    [1024 ** 3, 'GiB'],
    [1024 ** 2, 'MiB'],
    [1024, 'KiB'],
  ];
  for (const [size, unit] of units) if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  return `${n} B`;
}
