/**
 * The entry of `shared/core/quote/`: quoting for each target language a fix or an alert is
 * written in (POSIX shell, HCL, YAML, JSON, HTML) and the Unicode checks they share. Each file
 * quotes from structured data; none concatenates code.
 */
export { type HclItem, type HclValue, hclString, renderHcl } from './hcl.ts';
export { escapeHtml, visibleText } from './html.ts';
export { jsonText } from './json.ts';
export { type Rendered, rendered, Unrepresentable } from './rendered.ts';
export {
  CONTINUE,
  quoteShellWord,
  renderShellScript,
  type ShellCommand,
  type ShellScript,
  type ShellWord,
} from './shell.ts';
export { showInvisible, unencodableReason } from './unicode.ts';
export { type AwsAuthEntry, renderAwsAuthEntry } from './yaml.ts';
