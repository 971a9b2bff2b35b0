/**
 * POSIX shell: commands built as argument vectors and written so that `sh`, `bash`, `dash` and
 * `zsh` pass exactly that vector to the program. Pure.
 *
 * - A word of shell-safe characters (`A-Za-z0-9_./:=@,+-`) stands unquoted, for readability.
 * - Anything else is single-quoted (`'…'`, a `'` written `'\''`): no expansion of `$`, `` ` ``,
 *   `\`, `!`, globs or white space happens inside.
 * - Characters a reader cannot see (controls, bidi overrides, zero-width characters) are not put
 *   raw inside the quotes, where they would be invisible or reorder the line: they are written as
 *   `"$(printf '\342\200\256')"` (POSIX `printf` octal escapes of the UTF-8 bytes). `$'…'` would be
 *   shorter but is not in every `sh` (dash). Line feeds and tabs stay literal inside the quotes
 *   (a command substitution would drop a trailing line feed).
 * - A NUL cannot be carried by any argv, and a lone UTF-16 surrogate has no UTF-8 form: such a
 *   command is refused (`Rendered.ok === false`) rather than written wrong.
 * - AWS CLI words (`{ flag, value }`): a value starting with `-` is written `--flag=value` (as a
 *   separate word it would read as an option); values the AWS CLI would not take literally are
 *   refused: `file://`, `fileb://`, `http(s)://` prefixes (the CLI loads the file or URL instead),
 *   and list items starting with `-`, `[` or `{` (the CLI reads those as options or JSON).
 */
import { type Rendered, rendered, Unrepresentable } from './rendered.ts';
import { commentText, UNSAFE_IN_CODE, unencodableReason, utf8BytesOf } from './unicode.ts';

/** Where a long command continues on the next line (` \` + newline + two spaces). */
export const CONTINUE = { continue: true } as const;

export type ShellWord =
  | string
  | { flag: string; value: string }
  | { flag: string; values: readonly string[] }
  | typeof CONTINUE;

export interface ShellCommand {
  argv: readonly ShellWord[];
}

/** A script: commands, one per line, and `# comment` lines. */
export type ShellLine = ShellCommand | { comment: string };
export type ShellScript = readonly ShellLine[];

const SAFE_WORD = /^[A-Za-z0-9_./:=@,+-]+$/;
const PARAM_FILE = /^(?:file|fileb|https?):\/\//i;

function refuseUnencodable(s: string): void {
  const why = unencodableReason(s);
  if (why !== undefined) throw new Unrepresentable(`${JSON.stringify(s)}: ${why}`);
  if (s.includes('\u0000'))
    throw new Unrepresentable(
      `${JSON.stringify(s)}: it contains a NUL character, which no command-line argument can carry`,
    );
}

function printfOf(chars: string): string {
  return `"$(printf '${utf8BytesOf(chars)
    .map((b) => `\\${b.toString(8).padStart(3, '0')}`)
    .join('')}')"`;
}

/** One argument as a shell word that the shell turns back into exactly `s`. */
export function quoteShellWord(s: string): string {
  refuseUnencodable(s);
  if (SAFE_WORD.test(s)) return s;
  if (s === '') return "''";
  let out = '';
  let last = 0;
  for (const m of s.matchAll(new RegExp(`(?:${UNSAFE_IN_CODE.source})+`, 'g'))) {
    const i = m.index;
    if (i > last) out += `'${s.slice(last, i).replaceAll("'", `'\\''`)}'`;
    out += printfOf(m[0]);
    last = i + m[0].length;
  }
  if (last < s.length) out += `'${s.slice(last).replaceAll("'", `'\\''`)}'`;
  return out;
}

function awsValueProblem(flag: string, value: string): string | undefined {
  if (PARAM_FILE.test(value))
    return `${flag} ${JSON.stringify(value)}: the AWS CLI would load that file or URL instead of taking the value`;
  return undefined;
}

/** The arguments a word stands for (none for a line continuation). */
function wordArgs(w: ShellWord): string[] {
  if (typeof w === 'string') return [w];
  if ('continue' in w) return [];
  if ('value' in w) {
    const problem = awsValueProblem(w.flag, w.value);
    if (problem !== undefined) throw new Unrepresentable(problem);
    return w.value.startsWith('-') ? [`${w.flag}=${w.value}`] : [w.flag, w.value];
  }
  for (const v of w.values) {
    const problem = awsValueProblem(w.flag, v);
    if (problem !== undefined) throw new Unrepresentable(problem);
    if (/^[-[{]/.test(v) || v === '')
      throw new Unrepresentable(
        `${w.flag} ${JSON.stringify(v)}: the AWS CLI would read a list item that is empty or starts with "-", "[" or "{" as something else`,
      );
  }
  return [w.flag, ...w.values];
}

/** The exact argument vector the program receives (throws `Unrepresentable`). */
export function commandArgv(c: ShellCommand): string[] {
  return c.argv.flatMap(wordArgs);
}

function commandLine(c: ShellCommand): string {
  let out = '';
  let broken = false;
  for (const w of c.argv) {
    if (typeof w !== 'string' && 'continue' in w) {
      broken = out.length > 0;
      continue;
    }
    for (const arg of wordArgs(w)) {
      const q = quoteShellWord(arg);
      out += out.length === 0 ? q : broken ? ` \\\n  ${q}` : ` ${q}`;
      broken = false;
    }
  }
  return out;
}

/** A `#` comment that stays one line and shows every invisible character (`<U+202E>`). */
export function shellComment(text: string): string {
  return `# ${commentText(text)}`;
}

/** Every line of the script, or why one of its commands cannot be written. */
export function renderShellScript(script: ShellScript): Rendered {
  return rendered(() =>
    script.map((l) => ('comment' in l ? shellComment(l.comment) : commandLine(l))).join('\n'),
  );
}
