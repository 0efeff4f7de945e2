// The benchmark's orders as Avro in the Confluent wire format: the writer schema, the bytes a
// producer writes (avsc with the raw Avro values: the decimal's unscaled two's-complement bytes
// and epoch-millisecond longs, computed here), and the bare consumer's decode of them.
import avro from 'avsc';
import { avroConfluent } from '../../support/confluent-wire.ts';
import type { Order } from './events.ts';

export const ORDER_SCHEMA = {
  type: 'record',
  name: 'Order',
  namespace: 'bench',
  fields: [
    { name: 'order_id', type: 'string' },
    { name: 'customer_id', type: 'long' },
    { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 12, scale: 2 } },
    { name: 'order_ts', type: { type: 'long', logicalType: 'timestamp-millis' } },
  ],
};

/** Plain avsc types (no logical types): what a bare consumer decodes with, and what writes. */
const plain = avro.Type.forSchema(ORDER_SCHEMA as avro.Schema);

/** Big-endian two's complement, shortest form (cents < 100,000 fit in three bytes). */
function unscaledBytes(n: number): Buffer {
  const out: number[] = [];
  let x = n;
  do {
    out.unshift(x & 0xff);
    x >>= 8;
  } while (x !== 0 && x !== -1);
  // A positive value whose top bit is set needs a leading 0 byte to stay positive.
  if ((n >= 0 && out[0]! & 0x80) || (n < 0 && !(out[0]! & 0x80))) out.unshift(n >= 0 ? 0 : 0xff);
  return Buffer.from(out);
}

export function orderAvro(o: Order, schemaId: number): Buffer {
  return avroConfluent(plain, schemaId, { order_id: o.orderId, customer_id: o.customerId, amount: unscaledBytes(o.cents), order_ts: o.ts });
}

/**
 * A bare consumer's decode: check the magic byte, look the writer schema up by id (one known
 * here), decode every field with avsc. Returns the customer id so the work stays observable.
 */
export function bareAvroDecoder(schemaId: number): (v: Buffer) => number {
  const types = new Map([[schemaId, plain]]);
  return (v) => {
    const t = v[0] === 0 ? types.get(v.readUInt32BE(1)) : undefined;
    if (t === undefined) throw new Error('not a known Confluent-framed Avro value');
    return (t.decode(v, 5).value as { customer_id: number }).customer_id;
  };
}
