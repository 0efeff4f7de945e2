// Seeded mutations of valid specs for the fuzz test: deletions, duplications, swaps and
// insertions of tokens that matter to the grammar. Deterministic for a given seed.
export { prng } from '../support/prng.ts';

const INSERTS = [
  '(', ')', ',', ';', "'", '"', '`', '*', '=', '<>', '||', '--', '/*', '${', '}', 'SELECT', 'FROM', 'WHERE',
  'GROUP BY', 'TUMBLE(', 'HOP(', 'SESSION(', 'INTERVAL', "'5'", 'SECOND', 'NULL', 'NOT', 'AND', 'CREATE', 'VIEW',
  'SINK', 'SOURCE', 'WITH', 'AS', 'JOIN', 'ON', 'EMIT', 'CHANGES', 'DECIMAL(', 'ROW<', 'ARRAY<', 'MAP<', '>',
  '0', '-1', '1e308', '99999999999999999999', '\u00e9', '\n', '\t', 'window_start', 'amount', 'order_ts',
  ':', '- ', '{', '[', ']', 'query: |', '&anchor', '*anchor', '!!binary', '#',
];

export function mutate(text: string, rnd: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const pos = (): number => Math.floor(rnd() * (text.length + 1));
  const len = (): number => 1 + Math.floor(rnd() * 12);
  switch (Math.floor(rnd() * 6)) {
    case 0: {
      const p = pos();
      return text.slice(0, p) + text.slice(p + len());
    }
    case 1: {
      const p = pos();
      return text.slice(0, p) + pick(INSERTS) + text.slice(p);
    }
    case 2: {
      const p = pos();
      const n = len();
      return text.slice(0, p) + text.slice(p, p + n) + text.slice(p);
    }
    case 3: {
      const a = pos();
      const b = pos();
      const [x, y] = a < b ? [a, b] : [b, a];
      return text.slice(0, x) + text.slice(y, y + 5) + text.slice(x + 5, y) + text.slice(x, x + 5) + text.slice(y + 5);
    }
    case 4: {
      const lines = text.split('\n');
      const i = Math.floor(rnd() * lines.length);
      lines.splice(i, 1);
      return lines.join('\n');
    }
    default: {
      const p = pos();
      return text.slice(0, p) + text.slice(p, p + len()).toUpperCase() + text.slice(p + len());
    }
  }
}
