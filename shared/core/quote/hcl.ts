/**
 * HCL (Terraform): configuration built as a small tree and written in `terraform fmt` layout,
 * every string through one escaping function. Pure.
 *
 * A quoted HCL string is a template: besides `"` and `\`, the sequences `${` and `%{` would start
 * an interpolation or a directive (`"${file("/etc/passwd")}"` reads a file at plan time), so they
 * are written `$${` and `%%{`. Line feed, carriage return and tab use `\n`, `\r`, `\t`; controls
 * and invisible characters (bidi overrides, zero-width) use `\uNNNN`, so nothing in the block is
 * invisible. A lone UTF-16 surrogate has no UTF-8 form (HCL files are UTF-8) and is refused.
 */
import { type Rendered, rendered, Unrepresentable } from './rendered.ts';
import { commentText, UNSAFE_IN_CODE, unencodableReason } from './unicode.ts';

export type HclValue =
  | { string: string }
  /** A list of strings, on one line: `["a", "b"]`. */
  | { list: readonly string[] }
  /**
   * A reference to another resource's attribute (`aws_eks_access_entry.admin.principal_arn`):
   * written bare, so it must be a dotted path of identifiers, never a value from outside.
   */
  | { reference: string }
  /** A list of references, on one line: `[terraform_data.role_id]`. */
  | { references: readonly string[] }
  /** An object constructor; `inline` writes it on one line (`{ type = "cluster" }`). */
  | { object: readonly HclAttribute[]; inline?: boolean };

export interface HclAttribute {
  name: string;
  value: HclValue;
}

export interface HclBlock {
  block: string;
  labels: readonly string[];
  body: readonly HclItem[];
}

/**
 * `commentedOut`: configuration shown as an alternative, every line of it behind `# ` (a file
 * that holds it still validates); written through the same quoting as live configuration.
 */
export type HclItem =
  | HclAttribute
  | HclBlock
  | { comment: string }
  | { blank: true }
  | { commentedOut: readonly HclItem[] };

const ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const REFERENCE = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$/;
const NEEDS_ESCAPE = new RegExp(`["\\\\\\n\\r\\t]|${UNSAFE_IN_CODE.source}`, 'g');

/** A quoted HCL string literal that evaluates to exactly `s` (throws `Unrepresentable`). */
export function hclString(s: string): string {
  const why = unencodableReason(s);
  if (why !== undefined) throw new Unrepresentable(`${JSON.stringify(s)}: ${why}`);
  const escaped = s
    .replace(NEEDS_ESCAPE, (c) => ESCAPES[c] ?? `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`)
    .replace(/\$\{/g, () => '$${')
    .replace(/%\{/g, () => '%%{');
  return `"${escaped}"`;
}

/** An attribute name or object key: bare when it is an identifier, else a quoted string. */
function key(name: string): string {
  return IDENTIFIER.test(name) ? name : hclString(name);
}

function isAttribute(item: HclItem): item is HclAttribute {
  return 'name' in item;
}

/** The value's lines; the first continues the `name = ` line. */
function valueLines(v: HclValue, indent: string): string[] {
  if ('string' in v) return [hclString(v.string)];
  if ('reference' in v) {
    if (!REFERENCE.test(v.reference))
      throw new Unrepresentable(`${JSON.stringify(v.reference)}: not a reference`);
    return [v.reference];
  }
  if ('list' in v) return [`[${v.list.map(hclString).join(', ')}]`];
  if ('references' in v)
    return [`[${v.references.map((r) => valueLines({ reference: r }, indent)[0]).join(', ')}]`];
  if (v.inline === true) {
    const parts = v.object.map((a) => `${key(a.name)} = ${valueLines(a.value, indent).join(' ')}`);
    return [parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`];
  }
  return ['{', ...bodyLines(v.object, `${indent}  `), `${indent}}`];
}

/** A body in `terraform fmt` layout: consecutive one-line attributes have their `=` aligned. */
function bodyLines(items: readonly HclItem[], indent: string): string[] {
  const rendered = items.map((item) => {
    if ('comment' in item) return { lines: [`${indent}# ${commentText(item.comment)}`] };
    if ('blank' in item) return { lines: [''] };
    if ('commentedOut' in item)
      return {
        lines: bodyLines(item.commentedOut, '').map((l) => (l === '' ? `${indent}#` : `${indent}# ${l}`)),
      };
    if (isAttribute(item)) return { name: key(item.name), value: valueLines(item.value, indent) };
    const head = [item.block, ...item.labels.map(hclString)].join(' ');
    return { lines: [`${indent}${head} {`, ...bodyLines(item.body, `${indent}  `), `${indent}}`] };
  });
  const out: string[] = [];
  for (let i = 0; i < rendered.length; ) {
    const r = rendered[i];
    if (r === undefined || 'lines' in r) {
      out.push(...(r?.lines ?? []));
      i += 1;
      continue;
    }
    if (r.value.length > 1) {
      out.push(`${indent}${r.name} = ${r.value[0]}`, ...r.value.slice(1));
      i += 1;
      continue;
    }
    let j = i;
    const group: Array<{ name: string; value: string[] }> = [];
    for (let g = rendered[j]; g !== undefined && !('lines' in g) && g.value.length === 1; g = rendered[++j])
      group.push(g);
    const width = Math.max(...group.map((g) => g.name.length));
    for (const g of group) out.push(`${indent}${g.name.padEnd(width)} = ${g.value[0]}`);
    i = j;
  }
  return out;
}

/** The configuration as text, or why one of its strings cannot be written. */
export function renderHcl(items: readonly HclItem[]): Rendered {
  return rendered(() => bodyLines(items, '').join('\n'));
}
