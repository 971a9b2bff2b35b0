/**
 * Values a plan marks sensitive (`before_sensitive`, `after_sensitive`: `true` at a value, or at a
 * block, list or map whose every value is then sensitive, nested like `before`/`after`) are never
 * shown: as Terraform does, each is shown as `(sensitive value)`. The simulation still reads them
 * (a sensitive `mapRoles` still maps its roles); what it returns — effects, findings, notes,
 * remediation — is redacted before any renderer sees it, so no format (text, Markdown, JSON,
 * HTML, Slack) can print one.
 *
 * What is redacted: each sensitive string (and map key) wherever it occurs, and for a value with
 * structure (an aws-auth `mapRoles`: YAML or JSON) each of its lines, the first 60 characters of
 * a long line (a parse failure quotes a line cut), and each value a line holds (a user name the
 * simulation reports as mapped). A string under 3 characters is redacted only where a
 * whole value equals it (replacing every `a` of a report would hide the report, not the secret).
 */
import type { ResourceChange } from './schema.ts';

export const SENSITIVE_VALUE = '(sensitive value)';

const MIN_SEARCHED = 3;
const LINE_PREFIX = 60;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every string and map key in `value`, iteratively (a plan may nest deeply). */
function leaves(value: unknown, out: Set<string>): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') out.add(v);
    else if (typeof v === 'number' && String(v).length >= MIN_SEARCHED) out.add(String(v));
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (isObject(v))
      for (const [k, x] of Object.entries(v)) {
        out.add(k);
        stack.push(x);
      }
  }
}

/** The values of `value` at the positions `marks` marks `true`. */
function marked(value: unknown, marks: unknown, out: Set<string>): void {
  const stack: Array<[unknown, unknown]> = [[value, marks]];
  while (stack.length > 0) {
    const [v, m] = stack.pop() as [unknown, unknown];
    if (m === true) leaves(v, out);
    else if (Array.isArray(m) && Array.isArray(v))
      for (let i = 0; i < m.length; i++) stack.push([v[i], m[i]]);
    else if (isObject(m) && isObject(v)) for (const [k, x] of Object.entries(m)) stack.push([v[k], x]);
  }
}

/** The sensitive strings of a plan's resource changes (empty when it marks none). */
export function sensitiveStrings(changes: readonly ResourceChange[]): Set<string> {
  const out = new Set<string>();
  for (const rc of changes) {
    marked(rc.before, rc.beforeSensitive, out);
    marked(rc.after, rc.afterSensitive, out);
  }
  return out;
}

export interface Redactor {
  /** False: the plan marks nothing sensitive; `redact` is the identity. */
  active: boolean;
  redact<T>(value: T): T;
}

/** The forms to search for, longest first, and the short values redacted only when whole. */
function searchForms(secrets: ReadonlySet<string>): { searched: string[]; whole: Set<string> } {
  const searched = new Set<string>();
  const whole = new Set<string>();
  const add = (s: string) => {
    if (s.length >= MIN_SEARCHED) searched.add(s);
    else if (s.length > 0) whole.add(s);
  };
  for (const s of secrets) {
    add(s);
    if (!/[\r\n:[{]/.test(s)) continue;
    for (const line of s.split(/\r\n?|\n/)) {
      const t = line.trim();
      add(t);
      if (t.length > LINE_PREFIX) add(t.slice(0, LINE_PREFIX));
      for (const scalar of scalarsOf(t)) add(scalar);
    }
  }
  return { searched: [...searched].sort((a, b) => b.length - a.length), whole };
}

/**
 * The values a line of YAML (or JSON) holds, as a parser would hand them on: after `- ` and
 * `key: `, inside `[…]`/`{…}` flow collections and quotes. Crude on purpose (it only has to find
 * every value a report could quote, and may find more), keys left out.
 */
function scalarsOf(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'/g)) out.push(m[1] ?? m[2] ?? '');
  const value = line.replace(/^(?:-\s+)*(?:[^\s:"']+:\s+)?/, '');
  for (const piece of value.split(/[[\]{},]/)) {
    const v = piece
      .trim()
      .replace(/^(?:-\s+)*(?:[^\s:"']+:\s+)?/, '')
      .replace(/^["']|["']$/g, '')
      .trim();
    out.push(v);
  }
  return out;
}

function redactString(text: string, searched: readonly string[], whole: ReadonlySet<string>): string {
  if (whole.has(text)) return SENSITIVE_VALUE;
  let out = text;
  for (const s of searched) if (out.includes(s)) out = out.split(s).join(SENSITIVE_VALUE);
  return out;
}

/** A redactor for the sensitive values of `changes`: deep-copies what it redacts, keys included. */
export function createRedactor(changes: readonly ResourceChange[]): Redactor {
  const secrets = sensitiveStrings(changes);
  if (secrets.size === 0) return { active: false, redact: (v) => v };
  const { searched, whole } = searchForms(secrets);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactString(v, searched, whole);
    if (Array.isArray(v)) return v.map(walk);
    if (isObject(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[redactString(k, searched, whole)] = walk(x);
      return out;
    }
    return v;
  };
  return { active: true, redact: <T>(v: T) => walk(v) as T };
}
