// The SQL parser for SQL bodies inside YAML: the grammar's fragment entry points, which map
// every span through the FragmentOrigin back into the YAML file.
import { parseSqlExpr, parseSqlQuery } from '../sql/index.ts';
import type { SqlBodyParser } from './build-context.ts';

export const grammarSqlBodies: SqlBodyParser = {
  query: (text, ctx, origin) => parseSqlQuery(text, ctx, origin),
  expr: (text, ctx, origin) => parseSqlExpr(text, ctx, origin),
};
