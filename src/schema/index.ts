// The schema loader: dispatches a `schema` reference to its format mapper (Avro, Protobuf,
// JSON Schema), fetching from a file or the schema registry; and reads PostgreSQL catalogs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import type { EnvResolver } from '../syntax/front-end.ts';
import { assertNever } from '../util/assert-never.ts';
import { parseJsonText, type MappedSchema, type SchemaOrigin } from './origin.ts';
import { mapCatalog, readCatalog, type CatalogRead } from './postgres-catalog.ts';
import type { ProtoFile } from './protobuf.ts';
import { formatFits, parseSchemaRef, SCHEMA_KIND_NAMES } from './ref.ts';
import { RegistryClient, type RegistryResult, type RegistrySchema } from '../../targets/runtime/lib/shared/registry-client.ts';
import type { LoadedSchema, PostgresTableRequest, SchemaKind, SchemaLoader, SchemaRequest } from './schema-loader.ts';

export { checkDeclaredColumns } from './check-columns.ts';

// The format mappers are imported when a spec first names a schema of their format: avsc,
// protobufjs and ajv are most of the compiler's code by size, and a spec without such a
// schema (datagen, file, CDC) never loads them (cold `pipec check`; test/unit/build/cold-start-modules.test.ts).
const mappers = {
  avro: () => import('./avro.ts'),
  jsonSchema: () => import('./json-schema.ts'),
  protobuf: () => import('./protobuf.ts'),
};
export type * from './schema-loader.ts';

export interface SchemaLoaderOptions {
  /** Folder of the spec file: relative `file:` paths resolve against it. */
  baseDir: string;
  env: EnvResolver;
  /** Per request to the registry or the database; default 5000 ms. */
  timeoutMs?: number;
  /**
   * Spans and messages name schema files relative to this folder (default: the process's
   * cwd), like spec files, so diagnostics do not depend on where the checkout lives.
   */
  cwd?: string;
}

const DEFAULT_TIMEOUT_MS = 5000;

/** Registry `schemaType` → schema language. */
const REGISTRY_SCHEMA_TYPES: Readonly<Record<string, SchemaKind>> = {
  AVRO: 'avro',
  PROTOBUF: 'protobuf',
  JSON: 'json-schema',
};

/**
 * One loader per build: registry answers and catalog reads are cached (each subject version
 * and table is read once however many sources name it), while diagnostics are reported again
 * for each request so every `schema` option that names a bad schema gets its own error.
 */
export function createSchemaLoader(opts: SchemaLoaderOptions): SchemaLoader {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const registryAnswers = new Map<string, Promise<RegistryResult<RegistrySchema>>>();
  const compatAnswers = new Map<string, Promise<string | null>>();
  // A CDC source and a lookup join over the same table read its catalog once.
  const catalogReads = new Map<string, Promise<CatalogRead>>();
  let client: RegistryClient | null = null;
  let clientUrl: string | null = null;

  const registry = (url: string): RegistryClient => {
    if (!client || clientUrl !== url) {
      client = new RegistryClient(url, timeoutMs);
      clientUrl = url;
      registryAnswers.clear();
      compatAnswers.clear();
    }
    return client;
  };
  const fetchVersion = (c: RegistryClient, subject: string, version: string) => {
    const key = `${subject}\u0000${version}`;
    let p = registryAnswers.get(key);
    if (!p) registryAnswers.set(key, (p = c.getVersion(subject, version)));
    return p;
  };
  const fetchCompat = (c: RegistryClient, subject: string) => {
    let p = compatAnswers.get(subject);
    if (!p) compatAnswers.set(subject, (p = c.getCompatibility(subject)));
    return p;
  };

  async function loadFromRegistry(req: SchemaRequest, subject: string, version: string, fragment: string | null, diags: DiagnosticBag): Promise<LoadedSchema | null> {
    const url = opts.env.get('PIPEC_SCHEMA_REGISTRY_URL');
    if (!url) {
      diags.report('registry-url-missing', req.span, { subject });
      return null;
    }
    // Read from the environment, not through `${NAME}`: hide it from diagnostics all the same.
    diags.hideValue('PIPEC_SCHEMA_REGISTRY_URL', url);
    const c = registry(url);
    const fail = (s: string, v: string, r: Extract<RegistryResult<unknown>, { ok: false }>): null => {
      const f = r.failure;
      const base = { url: c.displayUrl, subject: s };
      switch (f.code) {
        case 'registry-unreachable':
          diags.report(f.code, req.span, { ...base, reason: f.reason });
          break;
        case 'registry-subject-not-found':
          diags.report(f.code, req.span, { ...base, version: v, detail: f.detail });
          break;
        case 'registry-unauthorized':
          diags.report(f.code, req.span, { ...base, status: f.status });
          break;
        case 'registry-bad-response':
          diags.report(f.code, req.span, { ...base, detail: f.detail });
          break;
        default:
          return assertNever(f);
      }
      return null;
    };
    const main = await fetchVersion(c, subject, version);
    if (!main.ok) return fail(subject, version, main);
    const kind = REGISTRY_SCHEMA_TYPES[main.value.schemaType];
    if (!kind) {
      diags.report('registry-schema-type-unsupported', req.span, { subject, schemaType: main.value.schemaType });
      return null;
    }
    if (!checkFormat(req, kind, diags)) return null;
    if (fragment !== null && kind !== 'protobuf') {
      diags.report('schema-ref-invalid', req.span, { ref: req.ref, reason: `'#${fragment}' names a message, which only Protobuf subjects have` });
      return null;
    }
    // References, dependencies first (the order Avro named types must be defined in).
    const refs: { name: string; schema: RegistrySchema }[] = [];
    const seen = new Set<string>();
    const visit = async (s: RegistrySchema): Promise<boolean> => {
      for (const r of s.references) {
        const key = `${r.subject}\u0000${r.version}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const got = await fetchVersion(c, r.subject, String(r.version));
        if (!got.ok) return fail(r.subject, String(r.version), got) ?? false;
        if (!(await visit(got.value))) return false;
        refs.push({ name: r.name, schema: got.value });
      }
      return true;
    };
    if (!(await visit(main.value))) return null;
    const display = `registry:${subject} (version ${main.value.version})`;
    const origin: SchemaOrigin = { display, file: null, optionSpan: req.span, diags };
    const mapped = await mapText(kind, main.value.schema, origin, fragment, refs);
    if (!mapped) return null;
    return {
      ...finish(mapped, kind, fragment ? `${display}#${fragment}` : display),
      registry: { subject: main.value.subject, version: main.value.version, id: main.value.id },
      compatibility: await fetchCompat(c, subject),
    };
  }

  async function mapText(
    kind: SchemaKind,
    text: string,
    origin: SchemaOrigin,
    fragment: string | null,
    refs: { name: string; schema: RegistrySchema }[],
    resolveImport?: (name: string) => ProtoFile | { error: string },
  ): Promise<MappedSchema | null> {
    switch (kind) {
      case 'avro': {
        const doc = parseJsonText(text, origin);
        if (!doc.ok) return null;
        const refDocs: unknown[] = [];
        for (const r of refs) {
          const d = parseJsonText(r.schema.schema, { ...origin, display: `registry:${r.schema.subject} (version ${r.schema.version})` });
          if (!d.ok) return null;
          refDocs.push(d.value);
        }
        return (await mappers.avro()).mapAvro(doc.value, { ...origin, text }, refDocs);
      }
      case 'json-schema': {
        const doc = parseJsonText(text, origin);
        if (!doc.ok) return null;
        const refDocs: Record<string, unknown> = {};
        for (const r of refs) {
          const d = parseJsonText(r.schema.schema, { ...origin, display: `registry:${r.schema.subject} (version ${r.schema.version})` });
          if (!d.ok) return null;
          refDocs[r.name] = d.value;
        }
        return (await mappers.jsonSchema()).mapJsonSchema(doc.value, text, origin, refDocs);
      }
      case 'protobuf': {
        const byName = new Map(refs.map((r) => [r.name, r.schema]));
        const resolver =
          resolveImport ??
          ((name: string) => {
            const r = byName.get(name);
            return r ? { name, text: r.schema, file: null } : { error: 'not among the references of the registry subject' };
          });
        // Only registry schemas (no resolveImport) fall back to their first message.
        return (await mappers.protobuf()).mapProtobuf({ name: origin.display, text, file: origin.file }, fragment, resolver, origin, resolveImport === undefined);
      }
      case 'postgres':
        return null;
      default:
        return assertNever(kind);
    }
  }

  function shownPath(abs: string): string {
    const rel = path.relative(opts.cwd ?? process.cwd(), abs);
    return rel === '' ? '.' : path.isAbsolute(rel) ? abs : rel;
  }

  function checkFormat(req: SchemaRequest, kind: SchemaKind, diags: DiagnosticBag): boolean {
    if (formatFits(req.format, kind)) return true;
    diags.report('schema-format-mismatch', req.span, { format: req.format ?? '', schemaKind: SCHEMA_KIND_NAMES[kind], ref: req.ref });
    return false;
  }

  async function loadFromFile(req: SchemaRequest, relPath: string, fragment: string | null, kind: SchemaKind | null, diags: DiagnosticBag): Promise<LoadedSchema | null> {
    if (!kind) {
      diags.report('schema-format-unknown', req.span, { path: relPath });
      return null;
    }
    if (!checkFormat(req, kind, diags)) return null;
    if (fragment !== null && kind !== 'protobuf') {
      diags.report('schema-ref-invalid', req.span, { ref: req.ref, reason: `'#${fragment}' names a message, which only .proto files have` });
      return null;
    }
    const abs = path.resolve(opts.baseDir, relPath);
    const file = shownPath(abs);
    const text = readText(abs);
    if (typeof text !== 'string') {
      diags.report('schema-file-unreadable', req.span, { path: file, reason: text.error });
      return null;
    }
    const origin: SchemaOrigin = { display: relPath, file, optionSpan: req.span, diags };
    const dir = path.dirname(abs);
    const resolveImport = (name: string): ProtoFile | { error: string } => {
      // protoc resolves imports against include roots; the importing file's folder and the
      // spec's folder are the two roots a spec can rely on without a protoc command line.
      for (const root of [dir, opts.baseDir]) {
        const p = path.resolve(root, name);
        const t = readText(p);
        if (typeof t === 'string') return { name, text: t, file: shownPath(p) };
      }
      return { error: `not found next to ${relPath} or in ${shownPath(path.resolve(opts.baseDir))}` };
    };
    const mapped = await mapText(kind, text, origin, fragment, [], resolveImport);
    return mapped ? finish(mapped, kind, `file:${relPath}${fragment ? `#${fragment}` : ''}`) : null;
  }

  return {
    async load(req: SchemaRequest, diagnostics: DiagnosticBag): Promise<LoadedSchema | null> {
      const ref = parseSchemaRef(req.ref.trim());
      if ('error' in ref) {
        diagnostics.report('schema-ref-invalid', req.span, { ref: req.ref, reason: ref.error });
        return null;
      }
      if (ref.kind === 'file') return loadFromFile(req, ref.path, ref.fragment, ref.schemaKind, diagnostics);
      return loadFromRegistry(req, ref.subject, ref.version, ref.fragment, diagnostics);
    },
    async loadPostgresTable(req: PostgresTableRequest, diagnostics: DiagnosticBag): Promise<LoadedSchema | null> {
      const key = `${req.dsn}\u0000${req.table}`;
      let read = catalogReads.get(key);
      if (!read) catalogReads.set(key, (read = readCatalog(req.dsn, req.table, timeoutMs)));
      return mapCatalog(await read, req, diagnostics);
    },
  };
}

function finish(m: MappedSchema, kind: SchemaKind, description: string): LoadedSchema {
  const out: LoadedSchema = { fields: m.fields, primaryKey: null, canonicalText: m.canonicalText, description, kind };
  if (m.messageName) out.messageName = m.messageName;
  return out;
}

function readText(file: string): string | { error: string } {
  try {
    // A byte-order mark is not JSON; editors on Windows still write one.
    return readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { error: code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : String((e as Error).message) };
  }
}
