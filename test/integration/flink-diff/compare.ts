// Compares pipec's rows with Flink's as multisets, after bringing both to one text per value
// (timestamps → epoch ms, integers exact, DOUBLE by value, DECIMAL without trailing zeros), and
// sorts every difference into a listed, documented one or an unlisted one (the test fails on
// those). Listed differences are pipec's documented choices, each with its reason; #19.2 (INT/
// BIGINT overflow) and #19.3 (code-point string order) are fixed, so they are no longer listed.
import type { Case, Col } from './cases.ts';

export type Norm = string | null;

function normValue(v: unknown, type: string): Norm {
  if (v === null || v === undefined) return null;
  const t = String(v);
  if (type.startsWith('TIMESTAMP')) return String(Date.parse(t.replace(' ', 'T') + (t.length === 19 ? '.000Z' : 'Z')));
  if (type === 'INT' || type === 'BIGINT') return BigInt(t).toString();
  if (type === 'DOUBLE') return String(Number(t));
  if (type.startsWith('DECIMAL')) return t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t;
  return t;
}

export type NormRow = Record<string, Norm>;

export function normalize(rows: Record<string, unknown>[], cols: Col[]): NormRow[] {
  return rows.map((r) => Object.fromEntries(cols.map((c) => [c.name, normValue(r[c.name], c.flinkType)])));
}

/**
 * EMIT CHANGES: what an upsert consumer keeps, the last row per upsert key in output order; a
 * '-D' removes its key (SESSION deletes the rows of sessions merged away). `problems` collects
 * changelog errors: a '-D' of a key with no row, a '+U' of one without, a '+I' of one with.
 */
export function finalStates(rows: Record<string, unknown>[], key: string[], problems: string[] = []): Record<string, unknown>[] {
  const last = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const k = JSON.stringify(key.map((c) => r[c] ?? null));
    const op = (r['op'] as string | undefined) ?? '+I';
    const has = last.has(k);
    if ((op === '-D' || op === '+U') && !has) problems.push(`${op} of a key without a row: ${JSON.stringify(r)}`);
    if (op === '+I' && has) problems.push(`+I of a key that has a row: ${JSON.stringify(r)}`);
    if (op === '-D') last.delete(k);
    else if (op !== '-U') last.set(k, r);
  }
  return [...last.values()];
}

export interface Difference {
  caseId: string;
  /** The listed reason, or null for an unlisted difference. */
  listed: string | null;
  what: string;
  pipec: NormRow | null;
  flink: NormRow | null;
}

/**
 * Why a column may differ: a listed, documented reason, or null. None is listed today: the
 * matrix's cases agree with Flink once #19.2/#19.3 were fixed (their entries were removed).
 */
function classify(_col: Col, _p: NormRow, _f: NormRow): string | null {
  return null;
}

const rowKey = (r: NormRow, key: string[]): string => JSON.stringify(key.map((k) => r[k]));

export function compareCase(c: Case, pipec: NormRow[], flink: NormRow[]): Difference[] {
  const diffs: Difference[] = [];
  const key = c.key.length > 0 ? c.key : c.cols.map((col) => col.name);
  const group = (rows: NormRow[]): Map<string, NormRow[]> => {
    const m = new Map<string, NormRow[]>();
    for (const r of rows) {
      const k = rowKey(r, key);
      const list = m.get(k);
      if (list) list.push(r);
      else m.set(k, [r]);
    }
    return m;
  };
  const P = group(pipec);
  const F = group(flink);
  for (const [k, fs] of F) {
    const ps = P.get(k) ?? [];
    for (let i = 0; i < Math.max(fs.length, ps.length); i++) {
      const f = fs[i] ?? null;
      const p = ps[i] ?? null;
      if (f === null || p === null) {
        diffs.push({ caseId: c.id, listed: null, what: f === null ? 'row only in pipec' : 'row only in Flink', pipec: p, flink: f });
        continue;
      }
      for (const col of c.cols) {
        if (p[col.name] === f[col.name]) continue;
        diffs.push({ caseId: c.id, listed: classify(col, p, f), what: `column ${col.name}: pipec ${p[col.name]} vs Flink ${f[col.name]}`, pipec: p, flink: f });
      }
    }
  }
  for (const [k, ps] of P) if (!F.has(k)) for (const p of ps) diffs.push({ caseId: c.id, listed: null, what: 'row only in pipec', pipec: p, flink: null });
  return diffs;
}

/** The first differing rows, readably: the case, what differs, both rows with epoch ms shown as time. */
export function describe(d: Difference): string {
  const show = (r: NormRow | null): string => (r === null ? '(none)' : JSON.stringify(r));
  return `${d.caseId}: ${d.what}${d.listed ? ` [${d.listed}]` : ''}\n  pipec: ${show(d.pipec)}\n  flink: ${show(d.flink)}`;
}
