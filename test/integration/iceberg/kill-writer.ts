// A writer process for the kill test: appends batches of 50 rows to a filesystem-catalog table
// until killed, numbering rows from the given start. Each snapshot adds one whole batch.
import { FilesystemCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/filesystem-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { IcebergTableWriter } from '../../../targets/runtime/lib/iceberg/writer/table-writer.ts';

const [warehouse, start] = process.argv.slice(2);
const first = Number(start ?? 0);
const writer = new IcebergTableWriter(new FilesystemCatalog('lake', warehouse!), identFromName('analytics.revenue'));
for (let batch = 0; ; batch++) {
  const rows = Array.from({ length: 50 }, (_, i) => ({
    customer_id: i % 7, window_start: Date.UTC(2026, 0, 1, batch % 24), revenue: '1.00', orders: first + batch * 50 + i, region: 'eu',
  }));
  await writer.append(rows);
  process.stdout.write(`committed ${batch}\n`);
}
