// Checks a source's declared columns against its loaded schema (LANGUAGE.md: "the declared list
// is a projection of it"): each column must be a field, of the same type, no stricter on null.
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import type { ColumnDef } from '../syntax/ast.ts';
import { formatSqlType, type SqlType } from '../types/sql-type.ts';
import { assertNever } from '../util/assert-never.ts';
import { suggest } from '../util/suggest.ts';
import type { LoadedSchema, SchemaField } from './schema-loader.ts';

/**
 * Reports `schema-column-missing`, `schema-column-type-mismatch` (on the type's span) and
 * `schema-column-nullability` for each physical declared column; METADATA columns are not
 * the schema's business and are skipped. Returns the physical columns in declared order with
 * their declared names and types (also for columns in error, so later phases do not cascade).
 */
export function checkDeclaredColumns(declared: ColumnDef[], schema: LoadedSchema, diags: DiagnosticBag): SchemaField[] {
  const out: SchemaField[] = [];
  const names = schema.fields.map((f) => f.name);
  for (const col of declared) {
    if (col.metadataFrom !== null) continue;
    out.push({ name: col.name.name, type: col.type });
    const field = findField(schema.fields, col.name.name, col.name.quoted);
    if (!field) {
      diags.report('schema-column-missing', col.span, { column: col.name.name, schema: schema.description, suggestion: suggest(col.name.name, names) });
      continue;
    }
    if (!sameShape(col.type, field.type)) {
      diags.report('schema-column-type-mismatch', col.typeSpan, {
        column: col.name.name,
        declared: formatSqlType(col.type, false),
        actual: formatSqlType(field.type, false),
        schema: schema.description,
      });
      continue;
    }
    if (stricterOnNull(col.type, field.type)) diags.report('schema-column-nullability', col.span, { column: col.name.name, schema: schema.description });
  }
  return out;
}

/** Unquoted names match case-insensitively (an exact match wins); quoted names match exactly. */
function findField(fields: SchemaField[], name: string, quoted: boolean): SchemaField | undefined {
  const exact = fields.find((f) => f.name === name);
  if (exact || quoted) return exact;
  const lower = name.toLowerCase();
  return fields.find((f) => f.name.toLowerCase() === lower);
}

/** Same type ignoring nullability; ROW field names compare case-insensitively, as columns do. */
function sameShape(a: SqlType, b: SqlType): boolean {
  switch (a.kind) {
    case 'decimal':
      return b.kind === 'decimal' && a.precision === b.precision && a.scale === b.scale;
    case 'timestamp':
      return b.kind === 'timestamp' && a.precision === b.precision && a.ltz === b.ltz;
    case 'array':
      return b.kind === 'array' && sameShape(a.element, b.element);
    case 'map':
      return b.kind === 'map' && sameShape(a.key, b.key) && sameShape(a.value, b.value);
    case 'row':
      return (
        b.kind === 'row' &&
        a.fields.length === b.fields.length &&
        a.fields.every((f, i) => f.name.toLowerCase() === b.fields[i]!.name.toLowerCase() && sameShape(f.type, b.fields[i]!.type))
      );
    case 'boolean':
    case 'int':
    case 'bigint':
    case 'float':
    case 'double':
    case 'string':
    case 'bytes':
    case 'date':
    case 'interval':
    case 'null':
      return a.kind === b.kind;
    default:
      return assertNever(a);
  }
}

/** True where the declared type promises NOT NULL (at any depth) and the schema allows null. */
function stricterOnNull(declared: SqlType, actual: SqlType): boolean {
  if (!declared.nullable && actual.nullable) return true;
  if (declared.kind === 'array' && actual.kind === 'array') return stricterOnNull(declared.element, actual.element);
  if (declared.kind === 'map' && actual.kind === 'map') return stricterOnNull(declared.key, actual.key) || stricterOnNull(declared.value, actual.value);
  if (declared.kind === 'row' && actual.kind === 'row') return declared.fields.some((f, i) => stricterOnNull(f.type, actual.fields[i]!.type));
  return false;
}
