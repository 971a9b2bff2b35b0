/**
 * The former YAML loading of the aws-auth parser (kept for the benchmark only, see `index.ts`):
 * syntax from the `yaml` package, character rules from libyaml; the first-document loader and
 * node offsets.
 */
import { type Document, parseAllDocuments } from 'yaml';
import { DecodeFailure } from '../../shared/core/aws-auth/decode-failure.ts';

export type YamlNode = NonNullable<Document['contents']>;

export interface LoadedYaml {
  doc: Document | undefined;
  root: unknown;
}

/** libyaml's reader rejects these before parsing ("control characters are not allowed"). */
function findForbiddenChar(text: string): DecodeFailure | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      return new DecodeFailure('invalid UTF-8 (unpaired surrogate)', i);
    }
    if (c >= 0xdc00 && c <= 0xdfff) return new DecodeFailure('invalid UTF-8 (unpaired surrogate)', i);
    const ok =
      c === 0x09 ||
      c === 0x0a ||
      c === 0x0d ||
      (c >= 0x20 && c <= 0x7e) ||
      c === 0x85 ||
      (c >= 0xa0 && c <= 0xd7ff) ||
      (c >= 0xe000 && c <= 0xfffd);
    if (!ok) {
      return new DecodeFailure(
        `control characters are not allowed (U+${c.toString(16).toUpperCase().padStart(4, '0')})`,
        i,
      );
    }
  }
  return undefined;
}

/** Parses the first YAML document like go-yaml v2 does (later documents are never read). */
export function loadYaml(text: string): LoadedYaml {
  const bad = findForbiddenChar(text);
  if (bad !== undefined) throw bad;
  const docs = parseAllDocuments(text, {
    version: '1.1',
    schema: 'failsafe',
    merge: false,
    uniqueKeys: false,
    prettyErrors: false,
  });
  const doc = docs[0];
  if (doc === undefined) return { doc: undefined, root: null };
  const err = doc.errors[0];
  if (err !== undefined) throw new DecodeFailure(err.message, err.pos[0]);
  return { doc, root: doc.contents };
}

export function nodeStart(node: unknown, fallback: number): number {
  const range = (node as { range?: unknown } | null)?.range;
  return Array.isArray(range) && typeof range[0] === 'number' ? range[0] : fallback;
}
