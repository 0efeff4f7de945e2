// Opens the catalog a `CREATE CATALOG` statement describes, with its options' values as
// resolved for this run (profile and environment). Relative warehouse paths resolve against
// the spec's folder.
import { isAbsolute, resolve } from 'node:path';
import type { IrCatalog } from '../../../../src/plan/ir.ts';
import type { Catalog } from './catalog.ts';
import { FilesystemCatalog } from './filesystem-catalog.ts';
import { SqlCatalog } from './sql-catalog.ts';
import { RestCatalog } from './rest-catalog.ts';
import { toLocation } from '../file-io.ts';

function warehouseLocation(value: string | undefined, baseDir: string): string {
  if (!value) throw new Error('the catalog has no warehouse option');
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) return value;
  return toLocation(isAbsolute(value) ? value : resolve(baseDir, value));
}

export async function openCatalog(c: IrCatalog, baseDir: string): Promise<Catalog> {
  const opt = (k: string): string | undefined => c.options[k]?.value;
  switch (c.type) {
    case 'filesystem':
      return new FilesystemCatalog(c.name, warehouseLocation(opt('warehouse'), baseDir));
    case 'sql':
      return SqlCatalog.open(c.name, opt('uri') ?? '', warehouseLocation(opt('warehouse'), baseDir));
    case 'rest':
      return new RestCatalog(c.name, opt('uri') ?? '', { warehouse: opt('warehouse'), token: opt('token'), credential: opt('credential') });
  }
}
