/**
 * Content after the first YAML document of a data key's value. go-yaml (what the authenticator
 * runs) decodes the first document only: whatever follows a later `---` does not exist for EKS,
 * although it reads as part of the ConfigMap. A `---` or `...` at column 0 followed by a blank or
 * the line end is always a document marker in YAML (inside a block scalar it ends the scalar;
 * inside a quoted or flow scalar it is an error, and then the key fails before this is asked), so
 * a line scan finds the boundary exactly once the first document decoded.
 */

import { plural } from './go-text.ts';
import type { Located } from './json-decode.ts';
import type { AwsAuthKey, ParsedAwsAuth, RoleMapping } from './parse-result.ts';
import { KEY_NOUN } from './upstream.ts';

const MARKER = /^(---|\.\.\.)(?=[ \t]|$)/;
const ANY_MARKER = /^(?:---|\.\.\.)(?:[ \t\r]|$)/m;

/** Text that is neither blank nor a comment. */
function contentful(s: string): boolean {
  const t = s.trim();
  return t !== '' && !t.startsWith('#');
}

export interface IgnoredDocuments {
  /** UTF-16 offset of the line where ignored content starts (the `---` of the first ignored document with content). */
  pos: number;
  /** That document's text up to the next marker, its `---` blanked out so columns stay (for describing what is lost). */
  firstIgnored: string;
  /** Documents with content after the first one. */
  documents: number;
}

/**
 * Where the content go-yaml ignores begins, when any follows the first document; undefined when
 * the value holds one document (trailing markers, blank lines and comments ignore nothing).
 */
export function contentAfterFirstDocument(text: string): IgnoredDocuments | undefined {
  // Most values hold no marker line at all: one native scan instead of a walk over every line.
  if (!ANY_MARKER.test(text)) return undefined;
  let state: 'before' | 'in' | 'after' = 'before';
  let docStart: number | undefined; // offset of the `---` of the current later document
  let docHasContent = false;
  let found: { pos: number; from: number; to: number } | undefined;
  let documents = 0;
  let offset = 0;
  const closeDoc = (end: number) => {
    if (docHasContent && found !== undefined && found.to < 0) found.to = end;
  };
  while (offset <= text.length) {
    const nl = text.indexOf('\n', offset);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(offset, end).replace(/\r$/, '');
    const marker = MARKER.exec(line)?.[1];
    const rest = marker === undefined ? line : line.slice(3);
    if (state === 'before') {
      if (marker === '---') state = 'in';
      else if (marker === undefined && !line.startsWith('%') && contentful(line)) state = 'in';
    } else if (state === 'in') {
      if (marker !== undefined) state = 'after';
      if (marker === '---') [docStart, docHasContent] = [offset, false];
      else if (marker === '...') docStart = undefined;
      if (marker === '---' && contentful(rest)) {
        docHasContent = true;
        documents += 1;
        found = { pos: offset, from: offset + 3, to: -1 };
      }
    } else if (marker !== undefined) {
      closeDoc(offset);
      [docStart, docHasContent] = marker === '---' ? [offset, false] : [undefined, false];
      if (marker === '---' && contentful(rest)) {
        docHasContent = true;
        documents += 1;
        found ??= { pos: offset, from: offset + 3, to: -1 };
      }
    } else if (contentful(line) && !docHasContent) {
      docHasContent = true;
      documents += 1;
      found ??= { pos: docStart ?? offset, from: docStart === undefined ? offset : docStart + 3, to: -1 };
    }
    if (nl < 0) break;
    offset = nl + 1;
  }
  closeDoc(text.length);
  if (found === undefined) return undefined;
  const body = text.slice(found.from, found.to < 0 ? text.length : found.to);
  return { pos: found.pos, firstIgnored: found.from > found.pos ? `   ${body}` : body, documents };
}

/**
 * `the 3 role mappings <where> (arn:…, arn:…, …), including node roles: …` for what a probe of some
 * text the authenticator ignores decodes to; undefined when it holds no mapping.
 */
export function describeMapped(
  target: AwsAuthKey,
  probe: ParsedAwsAuth,
  where: string,
  nodes = ', including node roles: their nodes cannot authenticate',
): string | undefined {
  const items =
    target === 'mapRoles'
      ? probe.roles.map((r) => r.rolearn ?? `sso ${r.sso?.permissionSetName ?? ''}`)
      : target === 'mapUsers'
        ? probe.users.map((u) => u.userarn)
        : probe.accounts;
  if (items.length === 0) return undefined;
  const list = items.slice(0, 3).join(', ') + (items.length > 3 ? ', …' : '');
  const withNodes = probe.roles.some((r) => r.groups.includes('system:nodes'));
  return `the ${plural(items.length, KEY_NOUN[target])} ${where} (${list})${withNodes ? nodes : ''}`;
}

/**
 * The issue for content after the first document of `text` (a data key's value), naming the line
 * where it starts and what the first ignored document would have mapped (`probe` parses it alone).
 */
export function ignoredDocumentIssue(
  key: AwsAuthKey,
  text: string,
  probe: (text: string) => ParsedAwsAuth,
  kept: readonly RoleMapping[],
): Located | undefined {
  const ignored = contentAfterFirstDocument(text);
  if (ignored === undefined) return undefined;
  let mapped: string | undefined;
  try {
    const parsed = probe(ignored.firstIgnored);
    const mappedFirst = new Set(kept.map((r) => r.rolearn?.toLowerCase()));
    const lostNodes = parsed.roles.some(
      (r) => r.groups.includes('system:nodes') && !mappedFirst.has(r.rolearn?.toLowerCase()),
    );
    mapped = describeMapped(
      key,
      parsed,
      'after the first document',
      lostNodes
        ? ', including node roles that the first document does not map: their nodes cannot authenticate'
        : ', including node roles (the first document maps them too)',
    );
  } catch {
    // keep the generic description
  }
  const more = ignored.documents > 1 ? ` (${ignored.documents} documents with content follow it)` : '';
  return {
    pos: ignored.pos,
    kind: 'ignored-after-first-document',
    message: `${key} holds more than one YAML document: the authenticator (go-yaml) decodes only the first, so everything from this line on is ignored${more}`,
    lost:
      mapped === undefined
        ? 'nothing the authenticator would map (the content after the first document decodes to no mapping)'
        : `${mapped}${ignored.documents > 1 ? ', and whatever the later documents hold' : ''}`,
  };
}
