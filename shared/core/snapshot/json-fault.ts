/**
 * JSON syntax errors of an input document, worded for people with line and column: V8's own
 * messages quote the input on Node 20 and do not always carry a position (used by the snapshot
 * validation in snapshot-schema.ts and by the CLI's input reader).
 */
// // V8's JSON.parse messages quote the input on Node 20 (`Unexpected token 'x', "…" is not valid
// JSON`) and do not always carry a position. So the message is never shown: the position comes
// from the error when it has one, else from a small scanner that walks the JSON grammar
// iteratively (no recursion: deep nesting cannot overflow the stack) and stops at the first
// fault; the reason is worded here, naming at most one character by code point.

export interface SyntaxFault {
  offset: number;
  reason: string;
}

export function describeJsonError(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const match = /at position (\d+)/.exec(message);
  const reported = match?.[1] === undefined ? undefined : Number(match[1]);
  const scanned = findJsonSyntaxFault(text);
  let fault: SyntaxFault;
  if (reported !== undefined && (scanned === undefined || scanned.offset !== reported)) {
    fault = { offset: reported, reason: unexpectedAt(text, reported, 'a valid JSON token') };
  } else if (scanned !== undefined) {
    fault = scanned;
  } else {
    return 'not valid JSON';
  }
  const { line, column } = lineAndColumn(text, fault.offset);
  return `not valid JSON at line ${line}, column ${column}: ${fault.reason}`;
}

/** 1-based line and column of `offset` in `text` (an offset past the end counts as the end). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

function describeChar(text: string, offset: number): string {
  const code = text.codePointAt(offset);
  if (code === undefined) return 'end of input';
  if (code > 0x20 && code < 0x7f) return `'${String.fromCharCode(code)}'`;
  return `character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function unexpectedAt(text: string, offset: number, expected: string): string {
  if (offset >= text.length) return `unexpected end of input; expected ${expected}`;
  return `unexpected ${describeChar(text, offset)}; expected ${expected}`;
}

type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'end';

const isDigit = (c: number) => c >= 48 && c <= 57;
const isHexDigit = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** Scan a JSON number at `start`: the offset after it, or the fault (positions as V8 reports them). */
function scanNumber(text: string, start: number): number | SyntaxFault {
  let i = start;
  if (text.charCodeAt(i) === 45) i++;
  const digits = (what: string): SyntaxFault | undefined => {
    if (!isDigit(text.charCodeAt(i))) return { offset: i, reason: unexpectedAt(text, i, what) };
    while (isDigit(text.charCodeAt(i))) i++;
    return undefined;
  };
  if (text.charCodeAt(i) === 48) i++;
  else {
    const fault = digits('a digit after the minus sign');
    if (fault) return fault;
  }
  if (text.charCodeAt(i) === 46) {
    i++;
    const fault = digits('a digit after the decimal point');
    if (fault) return fault;
  }
  const e = text.charCodeAt(i);
  if (e === 101 || e === 69) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === 43 || sign === 45) i++;
    const fault = digits('a digit in the exponent');
    if (fault) return fault;
  }
  return i;
}
const LITERALS = ['true', 'false', 'null'] as const;

/** The first syntax fault of `text` as JSON, or undefined when it is valid. */
export function findJsonSyntaxFault(text: string): SyntaxFault | undefined {
  const n = text.length;
  const stack: number[] = []; // 123 '{' or 91 '['
  let expect: Expect = 'value';
  let i = 0;

  const scanString = (start: number): number | SyntaxFault => {
    let j = start + 1;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c === 34) return j + 1;
      if (c === 92) {
        const e = text.charCodeAt(j + 1);
        if (e === 117) {
          for (let k = j + 2; k < j + 6; k++) {
            if (!isHexDigit(text.charCodeAt(k))) {
              return k >= n
                ? { offset: n, reason: 'unterminated string' }
                : { offset: k, reason: `unexpected ${describeChar(text, k)} in a \\u escape (4 hex digits)` };
            }
          }
          j += 6;
          continue;
        }
        // " \ / b f n r t
        if (
          e === 34 ||
          e === 92 ||
          e === 47 ||
          e === 98 ||
          e === 102 ||
          e === 110 ||
          e === 114 ||
          e === 116
        ) {
          j += 2;
          continue;
        }
        if (j + 1 >= n) return { offset: n, reason: 'unterminated string' };
        return { offset: j + 1, reason: `invalid escape: ${describeChar(text, j + 1)} after a backslash` };
      }
      if (c < 0x20) return { offset: j, reason: `unescaped ${describeChar(text, j)} in string` };
      j++;
    }
    return { offset: n, reason: 'unterminated string' };
  };

  const afterValue = (): Expect => (stack.length > 0 ? 'comma-or-close' : 'end');

  while (true) {
    let c = text.charCodeAt(i);
    while (c === 32 || c === 9 || c === 10 || c === 13) c = text.charCodeAt(++i);
    if (i >= n) {
      if (expect === 'end') return undefined;
      const open =
        stack.length > 0 ? ` (${stack.length} unclosed ${stack.length === 1 ? 'bracket' : 'brackets'})` : '';
      return { offset: n, reason: `unexpected end of input${open}` };
    }
    if ((expect === 'value-or-close' && c === 93) || (expect === 'key-or-close' && c === 125)) {
      stack.pop();
      i++;
      expect = afterValue();
      continue;
    }
    switch (expect) {
      case 'value':
      case 'value-or-close': {
        if (c === 123 || c === 91) {
          stack.push(c);
          expect = c === 123 ? 'key-or-close' : 'value-or-close';
          i++;
          break;
        }
        if (c === 34) {
          const r = scanString(i);
          if (typeof r !== 'number') return r;
          i = r;
          expect = afterValue();
          break;
        }
        if (c === 45 || isDigit(c)) {
          const r = scanNumber(text, i);
          if (typeof r !== 'number') return r;
          i = r;
          expect = afterValue();
          break;
        }
        const literal = LITERALS.find((word) => word.charCodeAt(0) === c);
        if (literal !== undefined) {
          for (let k = 1; k < literal.length; k++) {
            if (text.charCodeAt(i + k) !== literal.charCodeAt(k)) {
              return { offset: i + k, reason: unexpectedAt(text, i + k, `'${literal}'`) };
            }
          }
          i += literal.length;
          expect = afterValue();
          break;
        }
        return { offset: i, reason: unexpectedAt(text, i, 'a value') };
      }
      case 'key':
      case 'key-or-close': {
        if (c !== 34) return { offset: i, reason: unexpectedAt(text, i, 'a property name in double quotes') };
        const r = scanString(i);
        if (typeof r !== 'number') return r;
        i = r;
        expect = 'colon';
        break;
      }
      case 'colon':
        if (c !== 58) return { offset: i, reason: unexpectedAt(text, i, "':' after the property name") };
        i++;
        expect = 'value';
        break;
      case 'comma-or-close': {
        const inObject = stack[stack.length - 1] === 123;
        if (c === 44) {
          i++;
          expect = inObject ? 'key' : 'value';
          break;
        }
        if (c === (inObject ? 125 : 93)) {
          stack.pop();
          i++;
          expect = afterValue();
          break;
        }
        return { offset: i, reason: unexpectedAt(text, i, inObject ? "',' or '}'" : "',' or ']'") };
      }
      case 'end':
        return { offset: i, reason: `unexpected ${describeChar(text, i)} after the end of the JSON value` };
    }
  }
}
