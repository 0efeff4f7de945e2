// What both front ends (grammar/ for .pipe.sql, ./yaml/ for .pipe.yaml) need from the driver,
// and how a SQL fragment embedded in another file (a YAML block) maps back to that file.
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import type { LineMap } from '../diagnostics/span.ts';

/** Resolves `${NAME}`: the environment first, then the active profile of pipec.yaml. */
export interface EnvResolver {
  get(name: string): string | undefined;
}

export interface FrontEndContext {
  /** Path as given to the compiler; goes into every span. */
  file: string;
  env: EnvResolver;
  diagnostics: DiagnosticBag;
}

/**
 * Where a SQL fragment lives inside a bigger file: spans of the fragment are reported in the
 * containing file. `mapOffset` turns an offset in the fragment text into an offset in the file
 * (block scalars strip indentation, so the mapping is not a plain shift).
 */
export interface FragmentOrigin {
  lineMap: LineMap;
  mapOffset(offsetInFragment: number): number;
}
