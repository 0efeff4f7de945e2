// Checks a source's declared columns against its loaded schema (LANGUAGE.md: "the declared list
// is a projection of it"): each column must be a field, of the same type, no stricter on null.
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import type { ColumnDef } from '../syntax/ast.ts';
import { formatSqlType, sameType, type SqlType } from '../types/sql-type.ts';
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
    if (!sameType(col.type, field.type, true, true)) {
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

/** True where the declared type promises NOT NULL (at any depth) and the schema allows null. */
function stricterOnNull(declared: SqlType, actual: SqlType): boolean {
  if (!declared.nullable && actual.nullable) return true;
  if (declared.kind === 'array' && actual.kind === 'array') return stricterOnNull(declared.element, actual.element);
  if (declared.kind === 'map' && actual.kind === 'map') return stricterOnNull(declared.key, actual.key) || stricterOnNull(declared.value, actual.value);
  if (declared.kind === 'row' && actual.kind === 'row') return declared.fields.some((f, i) => stricterOnNull(f.type, actual.fields[i]!.type));
  return false;
}
