// The benchmark's dataset: a realistic 10-column order schema, generated deterministically as
// columns (each writer converts to the shape it needs; conversion is part of its cost).
export interface Columns {
  order_id: string[];
  customer_id: bigint[];
  amount: number[];
  quantity: number[];
  unit_price: number[];
  status: string[];
  country: string[];
  created_at_us: bigint[];
  is_gift: boolean[];
  note: (string | null)[];
}

const STATUS = ['new', 'paid', 'shipped', 'delivered', 'returned'];
const COUNTRY = ['DE', 'FR', 'US', 'JP', 'BR', 'IN', 'GB', 'ES', 'IT', 'CA'];

export function makeColumns(n: number): Columns {
  let seed = 42;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const c: Columns = { order_id: [], customer_id: [], amount: [], quantity: [], unit_price: [], status: [], country: [], created_at_us: [], is_gift: [], note: [] };
  const t0 = BigInt(Date.UTC(2026, 0, 1)) * 1000n;
  for (let i = 0; i < n; i++) {
    c.order_id.push(`ord-${String(i).padStart(9, '0')}`);
    c.customer_id.push(BigInt(Math.floor(rnd() * 200_000)));
    const qty = 1 + Math.floor(rnd() * 5);
    const price = Math.round(rnd() * 20_000) / 100;
    c.quantity.push(qty);
    c.unit_price.push(price);
    c.amount.push(Math.round(qty * price * 100) / 100);
    c.status.push(STATUS[Math.floor(rnd() * STATUS.length)]!);
    c.country.push(COUNTRY[Math.floor(rnd() * COUNTRY.length)]!);
    c.created_at_us.push(t0 + BigInt(i) * 250_000n);
    c.is_gift.push(rnd() < 0.1);
    c.note.push(rnd() < 0.9 ? null : `gift wrap ${i % 97}`);
  }
  return c;
}

export const COLUMN_NAMES = ['order_id', 'customer_id', 'amount', 'quantity', 'unit_price', 'status', 'country', 'created_at', 'is_gift', 'note'];
