/**
 * A proposed aws-auth as a user hands it over: a ConfigMap manifest (YAML or JSON, as
 * `kubectl get configmap aws-auth -n kube-system -o yaml|json` prints it) or a bare `mapRoles`
 * document (the YAML list itself). `readAwsAuthProposal` returns its `data` and how to map a line
 * inside a data key's value to a line of the file, or what is wrong and on which line. The
 * manifest's `data` is read by `configMapDataFromManifest` (the aws-auth parser's own reader);
 * this file only checks that the object is `kube-system/aws-auth` and finds the key lines.
 */

import {
  CONFIG_MAP_MAX_BYTES,
  configMapDataFromManifest,
  configMapOverLimit,
  overLimitText,
  parseAwsAuth,
  repeatsText,
  utf8Length,
} from '../aws-auth/index.ts';
import type { SimulationEffect } from '../predict/simulate.ts';
import type { LineMapper } from './aws-auth-losses.ts';

export type AwsAuthProposal =
  | {
      ok: true;
      /** `manifest`: the whole ConfigMap replaces aws-auth; `mapRoles`: only that key is replaced. */
      form: 'manifest' | 'mapRoles';
      data: Record<string, string>;
      lineOf: LineMapper;
    }
  | { ok: false; error: string; line?: number };

interface Identity {
  kind?: { value: string; line: number };
  name?: { value: string; line: number };
  namespace?: { value: string; line: number };
}

function unquote(v: string): string {
  const t = v.replace(/\s+#.*$/, '').trim();
  return /^(["']).*\1$/.test(t) ? t.slice(1, -1) : t;
}

/** `kind`, `metadata.name`, `metadata.namespace` of a block-style YAML manifest, with their lines. */
function yamlIdentity(lines: readonly string[]): Identity {
  const id: Identity = {};
  let inMetadata = false;
  let childIndent: number | undefined;
  lines.forEach((line, i) => {
    if (/^\s*(#.*)?$/.test(line)) return;
    const indent = line.length - line.trimStart().length;
    if (indent === 0) {
      inMetadata = /^metadata\s*:\s*$/.test(line);
      childIndent = undefined;
      const kind = /^kind\s*:\s*(.+)$/.exec(line);
      if (kind?.[1]) id.kind = { value: unquote(kind[1]), line: i + 1 };
      return;
    }
    if (!inMetadata) return;
    childIndent ??= indent;
    if (indent !== childIndent) return;
    const field = /^\s*(name|namespace)\s*:\s*(.+)$/.exec(line);
    if (field?.[1] === 'name' && field[2]) id.name = { value: unquote(field[2]), line: i + 1 };
    if (field?.[1] === 'namespace' && field[2]) id.namespace = { value: unquote(field[2]), line: i + 1 };
  });
  return id;
}

function jsonIdentity(value: unknown): Identity {
  const obj = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const meta =
    typeof obj.metadata === 'object' && obj.metadata !== null
      ? (obj.metadata as Record<string, unknown>)
      : {};
  const at = (v: unknown) => (typeof v === 'string' ? { value: v, line: 1 } : undefined);
  const kind = at(obj.kind);
  const name = at(meta.name);
  const namespace = at(meta.namespace);
  return { ...(kind ? { kind } : {}), ...(name ? { name } : {}), ...(namespace ? { namespace } : {}) };
}

/** The first line that is not blank, a comment or a document marker. */
function firstContent(lines: readonly string[]): string | undefined {
  return lines.find((l) => !/^\s*(#.*)?$/.test(l) && !/^---\s*$/.test(l));
}

/** The 1-based file line of a `key: |` block scalar's header, for a block-style manifest. */
function keyLines(lines: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  lines.forEach((line, i) => {
    const m = /^\s+(mapRoles|mapUsers|mapAccounts)\s*:\s*[|>][-+0-9]*\s*(#.*)?$/.exec(line);
    if (m?.[1] && !out.has(m[1])) out.set(m[1], i + 1);
  });
  return out;
}

/**
 * A parser that reports the end of a value (an unclosed quote) points past its last line: the
 * last non-blank line at or before it is the one to fix.
 */
function clampToContent(value: string | undefined, line: number): number {
  if (value === undefined) return line;
  const all = value.split(/\r\n?|\n/);
  let n = Math.min(line, all.length);
  while (n > 1 && (all[n - 1] ?? '').trim() === '') n -= 1;
  return n;
}

export function readAwsAuthProposal(text: string): AwsAuthProposal {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // Bounded before any parse: a manifest carries its data plus indentation and metadata, so a file
  // over twice the ConfigMap limit cannot be one Kubernetes accepts; the data is checked exactly below.
  if (
    body.length > 2 * CONFIG_MAP_MAX_BYTES ||
    utf8Length(body, 2 * CONFIG_MAP_MAX_BYTES) > 2 * CONFIG_MAP_MAX_BYTES
  )
    return {
      ok: false,
      error: `the file holds more than 2 MiB: an aws-auth ConfigMap holds at most 1 MiB of data (Kubernetes refuses more), so this is none; refused unparsed`,
    };
  const lines = body.split(/\r\n?|\n/);
  const first = firstContent(lines);
  if (first === undefined)
    return { ok: false, error: 'the file is empty: expected an aws-auth ConfigMap or a mapRoles list' };
  if (/^\s*-(\s|$)/.test(first)) {
    const over = configMapOverLimit({ mapRoles: body });
    if (over !== undefined) return { ok: false, error: `mapRoles: ${overLimitText(over)}` };
    return {
      ok: true,
      form: 'mapRoles',
      data: { mapRoles: body },
      lineOf: (_key, line) => clampToContent(body, line),
    };
  }
  let identity: Identity;
  if (/^\s*\{/.test(first)) {
    try {
      identity = jsonIdentity(JSON.parse(body));
    } catch {
      identity = {};
    }
  } else identity = yamlIdentity(lines);
  if (identity.kind !== undefined && identity.kind.value !== 'ConfigMap') {
    return {
      ok: false,
      error: `the manifest is a ${identity.kind.value}, not a ConfigMap`,
      line: identity.kind.line,
    };
  }
  if (identity.name !== undefined && identity.name.value !== 'aws-auth') {
    return {
      ok: false,
      error: `the ConfigMap is ${JSON.stringify(identity.name.value.slice(0, 80))}, not aws-auth`,
      line: identity.name.line,
    };
  }
  if (identity.namespace !== undefined && identity.namespace.value !== 'kube-system') {
    return {
      ok: false,
      error: `the ConfigMap is in namespace ${JSON.stringify(identity.namespace.value.slice(0, 80))}: the authenticator reads kube-system/aws-auth only`,
      line: identity.namespace.line,
    };
  }
  const read = configMapDataFromManifest(body);
  if (!read.ok)
    return { ok: false, error: read.error, ...(read.line === undefined ? {} : { line: read.line }) };
  const over = configMapOverLimit(read.data);
  if (over !== undefined) return { ok: false, error: overLimitText(over) };
  if (
    identity.name === undefined &&
    !Object.keys(read.data).some((k) => /^map(Roles|Users|Accounts)$/.test(k))
  ) {
    return {
      ok: false,
      error: 'not an aws-auth ConfigMap: no metadata.name and no mapRoles, mapUsers or mapAccounts',
    };
  }
  const headers = keyLines(lines);
  return {
    ok: true,
    form: 'manifest',
    data: read.data,
    lineOf: (key, line) => {
      const header = headers.get(key);
      return header === undefined ? undefined : header + clampToContent(read.data[key], line);
    },
  };
}

/** Every parse problem of the proposal, with the file line where it can be told: what to fix first. */
export function proposalIssues(
  data: Record<string, string>,
  lineOf: LineMapper,
  file: string,
): SimulationEffect[] {
  const parsed = parseAwsAuth(data);
  return parsed.issues
    .filter((i) => i.kind === 'key-parse-failure' || i.kind === 'invalid-entry' || i.kind === 'type-mismatch')
    .map((i) => {
      const fileLine = i.line === undefined ? undefined : lineOf(i.dataKey, i.line);
      const where =
        fileLine !== undefined
          ? `${file} line ${fileLine}`
          : i.line !== undefined
            ? `${i.dataKey} line ${i.line}`
            : i.dataKey;
      return {
        summary: `${where}: ${i.message} — lost: ${i.lost}${repeatsText(i)}`,
        assumed: false,
      };
    });
}
