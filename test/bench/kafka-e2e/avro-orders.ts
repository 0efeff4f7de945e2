// The benchmark's orders as Avro in the Confluent wire format: the writer schema, the bytes a
// producer writes (avsc with the raw Avro values: the decimal's unscaled two's-complement bytes
// and epoch-millisecond longs, computed here), and the bare consumer's decode of them.
import avro from 'avsc';
import { ORDER_AVRO_SCHEMA, avroConfluent, decimalBytes } from '../../support/confluent-wire.ts';
import type { Order } from './events.ts';

/** The writer schema (shared with the format tests). */
export const ORDER_SCHEMA = ORDER_AVRO_SCHEMA;

/** Plain avsc types (no logical types): what a bare consumer decodes with, and what writes. */
const plain = avro.Type.forSchema(ORDER_SCHEMA as unknown as avro.Schema);

export function orderAvro(o: Order, schemaId: number): Buffer {
  return avroConfluent(plain, schemaId, { order_id: o.orderId, customer_id: o.customerId, amount: decimalBytes(o.cents), order_ts: o.ts });
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
