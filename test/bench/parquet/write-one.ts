// Writes the benchmark dataset with one Parquet writer and reports time, size and peak memory
// as JSON. Run in its own process per writer so peak RSS belongs to that writer alone.
import { writeFileSync } from 'node:fs';
import { makeColumns, type Columns } from './dataset.ts';

const [writer, out, rowsArg] = process.argv.slice(2);
const rows = Number(rowsArg ?? 1_000_000);
const cols = makeColumns(rows);
const baseRss = process.memoryUsage().rss;

async function hyparquet(c: Columns): Promise<Uint8Array> {
  const { parquetWriteBuffer } = await import('hyparquet-writer');
  const buf = parquetWriteBuffer({
    columnData: [
      { name: 'order_id', data: c.order_id, type: 'STRING' },
      { name: 'customer_id', data: c.customer_id, type: 'INT64' },
      { name: 'amount', data: c.amount, type: 'DOUBLE' },
      { name: 'quantity', data: c.quantity, type: 'INT32' },
      { name: 'unit_price', data: c.unit_price, type: 'DOUBLE' },
      { name: 'status', data: c.status, type: 'STRING' },
      { name: 'country', data: c.country, type: 'STRING' },
      { name: 'created_at', data: c.created_at_us, type: 'INT64' },
      { name: 'is_gift', data: c.is_gift, type: 'BOOLEAN' },
      { name: 'note', data: c.note, type: 'STRING' },
    ],
    codec: 'SNAPPY',
    rowGroupSize: 100_000,
  } as never);
  return new Uint8Array(buf);
}

async function parquetjsLite(c: Columns, path: string): Promise<void> {
  const parquet = (await import('parquetjs-lite')).default as any;
  const schema = new parquet.ParquetSchema({
    order_id: { type: 'UTF8' },
    customer_id: { type: 'INT64' },
    amount: { type: 'DOUBLE' },
    quantity: { type: 'INT32' },
    unit_price: { type: 'DOUBLE' },
    status: { type: 'UTF8' },
    country: { type: 'UTF8' },
    created_at: { type: 'TIMESTAMP_MICROS' },
    is_gift: { type: 'BOOLEAN' },
    note: { type: 'UTF8', optional: true },
  });
  const w = await parquet.ParquetWriter.openFile(schema, path, { compression: 'SNAPPY', rowGroupSize: 100_000 });
  for (let i = 0; i < c.order_id.length; i++) {
    await w.appendRow({
      order_id: c.order_id[i], customer_id: Number(c.customer_id[i]), amount: c.amount[i], quantity: c.quantity[i],
      unit_price: c.unit_price[i], status: c.status[i], country: c.country[i], created_at: Number(c.created_at_us[i]),
      is_gift: c.is_gift[i], note: c.note[i] ?? undefined,
    });
  }
  await w.close();
}

async function parquetWasm(c: Columns): Promise<Uint8Array> {
  const arrow = await import('apache-arrow');
  const pq = await import('parquet-wasm');
  const table = arrow.tableFromArrays({
    order_id: c.order_id,
    customer_id: BigInt64Array.from(c.customer_id),
    amount: Float64Array.from(c.amount),
    quantity: Int32Array.from(c.quantity),
    unit_price: Float64Array.from(c.unit_price),
    status: c.status,
    country: c.country,
    created_at: BigInt64Array.from(c.created_at_us),
    is_gift: c.is_gift,
    note: c.note,
  } as never);
  const wasmTable = pq.Table.fromIPCStream(arrow.tableToIPC(table as never, 'stream'));
  const props = new pq.WriterPropertiesBuilder().setCompression(pq.Compression.SNAPPY).setMaxRowGroupSize(100_000).build();
  return pq.writeParquet(wasmTable, props);
}

async function duckdb(c: Columns, path: string): Promise<void> {
  const { DuckDBInstance, DuckDBTimestampValue } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run(`CREATE TABLE t (order_id VARCHAR, customer_id BIGINT, amount DOUBLE, quantity INTEGER, unit_price DOUBLE, status VARCHAR, country VARCHAR, created_at TIMESTAMP, is_gift BOOLEAN, note VARCHAR)`);
  const app = await con.createAppender('t');
  for (let i = 0; i < c.order_id.length; i++) {
    app.appendVarchar(c.order_id[i]!);
    app.appendBigInt(c.customer_id[i]!);
    app.appendDouble(c.amount[i]!);
    app.appendInteger(c.quantity[i]!);
    app.appendDouble(c.unit_price[i]!);
    app.appendVarchar(c.status[i]!);
    app.appendVarchar(c.country[i]!);
    app.appendTimestamp(new DuckDBTimestampValue(c.created_at_us[i]!));
    app.appendBoolean(c.is_gift[i]!);
    if (c.note[i] === null) app.appendNull();
    else app.appendVarchar(c.note[i]!);
    app.endRow();
  }
  app.flushSync?.();
  app.closeSync?.();
  await con.run(`COPY t TO '${path.replace(/'/g, "''")}' (FORMAT PARQUET, COMPRESSION SNAPPY, ROW_GROUP_SIZE 100000)`);
}

const started = performance.now();
if (writer === 'hyparquet-writer') writeFileSync(out!, await hyparquet(cols));
else if (writer === 'parquetjs-lite') await parquetjsLite(cols, out!);
else if (writer === 'parquet-wasm') writeFileSync(out!, await parquetWasm(cols));
else if (writer === 'duckdb') await duckdb(cols, out!);
else throw new Error(`unknown writer ${writer}`);
const ms = performance.now() - started;
const peakRssMb = process.resourceUsage().maxRSS / 1024;
process.stdout.write(JSON.stringify({ writer, rows, ms, peakRssMb, baseRssMb: baseRss / 1048576 }) + '\n');
