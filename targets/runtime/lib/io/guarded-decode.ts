// The one wrapper every record decoder runs in: whatever a decoder throws on a record (a
// stack overflow on absurd nesting, a library's RangeError on an impossible value) makes
// that record a dead letter with the error's message, never a failed run. The runner wraps
// each source's generated decoder; `createFormatDecoder` wraps each Kafka value format.
import type { DecodeError, SourceDef } from './source-types.ts';
import { FAIL, type Decoded, type FormatDecoder } from '../formats/types.ts';

type Decode = NonNullable<SourceDef['decode']>;

/** Short text of a thrown value (no stack: it goes into a dead letter). */
function thrownText(e: unknown): string {
  if (e instanceof RangeError && /call stack/i.test(e.message)) return 'the record is nested too deeply to decode';
  const m = e instanceof Error ? e.message : String(e);
  return m.length > 300 ? m.slice(0, 300) + '...' : m;
}

/** `decode` that turns an exception into a failed record (`err.column` empty: the whole record). */
export function guardDecode(decode: Decode): Decode {
  return (raw, err) => {
    try {
      return decode(raw, err);
    } catch (e) {
      err.column = '';
      err.reason = `cannot be decoded: ${thrownText(e)}`;
      return null;
    }
  };
}

/** The dead-letter reason of a failed decode: the column when one is to blame. */
export function decodeReason(err: DecodeError): string {
  return err.column === '' ? err.reason : `column ${err.column}: ${err.reason}`;
}

/** A value format whose `decode` turns an exception into FAIL with the error's message. */
export function guardFormat(fmt: FormatDecoder): FormatDecoder {
  const inner = fmt.decode.bind(fmt);
  let failure: string | null = null;
  const guarded: FormatDecoder = {
    prepare: fmt.prepare,
    changes: fmt.changes,
    get reason() {
      return failure ?? fmt.reason;
    },
    set reason(r: string) {
      fmt.reason = r;
    },
    decode(value: Buffer | null): Decoded {
      failure = null;
      try {
        return inner(value);
      } catch (e) {
        failure = `cannot be decoded: ${thrownText(e)}`;
        return FAIL;
      }
    },
    raw: (value) => fmt.raw(value),
  };
  return guarded;
}
