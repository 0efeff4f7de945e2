// `pipec test --update`: writes the rows each test observed into the expectations that failed
// (a test without `expect:` gets every output that received rows), keeping the rest of the
// file — comments, steps, passing expectations with their chosen columns — as the author wrote
// it. Meant to be read in review.
import { isMap, isSeq, parseDocument, type Document } from 'yaml';
import type { FileResult } from './run-tests.ts';

export function updatedText(text: string, result: FileResult): string {
  const doc = parseDocument(text, { version: '1.2', schema: 'core', uniqueKeys: true });
  for (const c of result.cases) {
    const hasExpect = doc.hasIn(['tests', c.index, 'expect']);
    const outputs = hasExpect ? c.failures.map((f) => f.output) : [...c.observed].filter(([, rows]) => rows.length > 0).map(([o]) => o);
    for (const output of outputs) setRows(doc, ['tests', c.index, 'expect', output, 'rows'], c.observed.get(output) ?? []);
  }
  return doc.toString({ lineWidth: 0 });
}

function setRows(doc: Document, path: (string | number)[], rows: Record<string, unknown>[]): void {
  const node = doc.createNode(rows);
  // One row per line, as a table reads.
  if (isSeq(node)) for (const item of node.items) if (isMap(item)) item.flow = true;
  if (!doc.hasIn(path.slice(0, -2))) doc.setIn(path.slice(0, -2), doc.createNode({}));
  doc.setIn(path, node);
}
