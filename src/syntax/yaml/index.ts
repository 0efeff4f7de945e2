// The `.pipe.yaml` front end: parsePipeYaml(text, ctx) → the same PipeFile AST as the SQL form.
// SQL bodies (view and sink `query`, watermark `expr`) are parsed by the grammar (src/syntax/sql/index.ts).
import type { PipeFile } from '../ast.ts';
import type { FrontEndContext } from '../front-end.ts';
import { parsePipeYamlWith } from './parse.ts';
import { grammarSqlBodies } from './sql-bodies.ts';

export type { SqlBodyParser } from './build-context.ts';
export { parsePipeYamlWith } from './parse.ts';

export function parsePipeYaml(text: string, ctx: FrontEndContext): PipeFile {
  return parsePipeYamlWith(text, ctx, grammarSqlBodies);
}
