// Producer side of the Confluent wire format for tests and benchmarks: magic byte 0, the
// 4-byte big-endian schema id, for Protobuf the message-index array (zigzag varints), then the
// payload — encoded with avsc / protobufjs directly, independently of the runtime's decoders.
import type avro from 'avsc';
import type protobuf from 'protobufjs';

function header(id: number): Buffer {
  const h = Buffer.alloc(5);
  h.writeUInt32BE(id, 1);
  return h;
}

/** Zigzag varint of a non-negative or negative 32-bit integer (Protobuf sint32 encoding). */
export function zigzagVarint(n: number): Buffer {
  let z = n >= 0 ? n * 2 : -n * 2 - 1;
  const out: number[] = [];
  do {
    const b = z % 128;
    z = Math.floor(z / 128);
    out.push(z > 0 ? b | 0x80 : b);
  } while (z > 0);
  return Buffer.from(out);
}

/** An Avro value written with `type` (the writer schema registered under `id`). */
export function avroConfluent(type: avro.Type, id: number, value: unknown): Buffer {
  return Buffer.concat([header(id), type.toBuffer(value)]);
}

/**
 * The message-index array: `[0]` (the first message) is the single byte 0, as the Confluent
 * serializers write it; anything else is the count then each index.
 */
export function messageIndexes(indexes: number[]): Buffer {
  if (indexes.length === 1 && indexes[0] === 0) return Buffer.from([0]);
  return Buffer.concat([zigzagVarint(indexes.length), ...indexes.map(zigzagVarint)]);
}

/** A Protobuf message of `type` (message `indexes` of the schema registered under `id`). */
export function protobufConfluent(type: protobuf.Type, id: number, indexes: number[], value: Record<string, unknown>): Buffer {
  // fromObject takes the JSON mapping (enum names, 64-bit integers as strings).
  return Buffer.concat([header(id), messageIndexes(indexes), Buffer.from(type.encode(type.fromObject(value)).finish())]);
}

/** An Avro/Connect decimal's bytes: the unscaled value as minimal big-endian two's complement. */
export function decimalBytes(unscaled: bigint | number): Buffer {
  let v = BigInt(unscaled);
  const out: number[] = [];
  for (;;) {
    out.unshift(Number(v & 0xffn));
    v >>= 8n;
    // Done once the rest is pure sign extension of the byte just written.
    if ((v === 0n && !(out[0]! & 0x80)) || (v === -1n && out[0]! & 0x80)) break;
  }
  return Buffer.from(out);
}

/**
 * The order record of test/bench/kafka-e2e as an Avro writer schema: amount DECIMAL(12, 2) as
 * decimal bytes, order_ts as timestamp-millis (write cents with decimalBytes, time as epoch ms).
 */
export const ORDER_AVRO_SCHEMA = {
  type: 'record',
  name: 'Order',
  namespace: 'bench',
  fields: [
    { name: 'order_id', type: 'string' },
    { name: 'customer_id', type: 'long' },
    { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 12, scale: 2 } },
    { name: 'order_ts', type: { type: 'long', logicalType: 'timestamp-millis' } },
  ],
} as const;
