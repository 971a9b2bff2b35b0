/**
 * Port of gopkg.in/yaml.v2 2.4.0 `scannerc.go`, part 3: block (`|`, `>`), quoted and plain
 * scalars, with libyaml's line folding and escapes.
 */

import * as readerModule from './reader.ts';
import { type Mark, ScalarStyleCode, type Token, TokenType, type YamlParser } from './reader.ts';
import * as scannerInputModule from './scanner-input.ts';
import * as scannerScanModule from './scanner-scan.ts';

// Functions bound once: tsx and vitest reach imported bindings through getters, which
// dominates a byte-at-a-time scanner (the bundled Lambda code is not affected).
const { asHex, copyMark, isBlank, isBlankz, isBreak, isBreakz, isDigit, isHex, newToken } = readerModule;
const { cache, read, readLine, setScannerError, skip, skipLine } = scannerInputModule;
const { cur, skipBlanks, skipComment } = scannerScanModule;
const TokenType_ = TokenType;
const ScalarStyleCode_ = ScalarStyleCode;

export function scanBlockScalar(parser: YamlParser, literal: boolean): Token | undefined {
  const start = copyMark(parser.mark);
  skip(parser);
  if (!cache(parser, 1)) return undefined;
  let chomping = 0;
  let increment = 0;
  const c = cur(parser);
  if (c === 0x2b || c === 0x2d) {
    chomping = c === 0x2b ? 1 : -1;
    skip(parser);
    if (!cache(parser, 1)) return undefined;
    if (isDigit(parser.buffer, parser.buffer_pos)) {
      if (cur(parser) === 0x30) {
        setScannerError(
          parser,
          'while scanning a block scalar',
          start,
          'found an indentation indicator equal to 0',
        );
        return undefined;
      }
      increment = cur(parser) - 0x30;
      skip(parser);
    }
  } else if (isDigit(parser.buffer, parser.buffer_pos)) {
    if (c === 0x30) {
      setScannerError(
        parser,
        'while scanning a block scalar',
        start,
        'found an indentation indicator equal to 0',
      );
      return undefined;
    }
    increment = c - 0x30;
    skip(parser);
    if (!cache(parser, 1)) return undefined;
    const d = cur(parser);
    if (d === 0x2b || d === 0x2d) {
      chomping = d === 0x2b ? 1 : -1;
      skip(parser);
    }
  }
  if (!cache(parser, 1)) return undefined;
  if (!skipBlanks(parser) || !skipComment(parser)) return undefined;
  if (!isBreakz(parser.buffer, parser.buffer_pos)) {
    setScannerError(
      parser,
      'while scanning a block scalar',
      start,
      'did not find expected comment or line break',
    );
    return undefined;
  }
  if (isBreak(parser.buffer, parser.buffer_pos)) {
    if (!cache(parser, 2)) return undefined;
    skipLine(parser);
  }
  const st = {
    indent: increment > 0 ? (parser.indent >= 0 ? parser.indent + increment : increment) : 0,
    end: copyMark(parser.mark),
  };
  const s: number[] = [];
  let leadingBreak: number[] = [];
  let trailingBreaks: number[] = [];
  if (!scanBlockScalarBreaks(parser, st, trailingBreaks, start)) return undefined;
  if (!cache(parser, 1)) return undefined;
  let leadingBlank = false;
  let trailingBlank = false;
  while (parser.mark.column === st.indent && cur(parser) !== 0) {
    trailingBlank = isBlank(parser.buffer, parser.buffer_pos);
    if (!literal && !leadingBlank && !trailingBlank && leadingBreak.length > 0 && leadingBreak[0] === 0x0a) {
      if (trailingBreaks.length === 0) s.push(0x20);
    } else {
      append(s, leadingBreak);
    }
    leadingBreak = [];
    append(s, trailingBreaks);
    trailingBreaks = [];
    leadingBlank = isBlank(parser.buffer, parser.buffer_pos);
    while (!isBreakz(parser.buffer, parser.buffer_pos)) {
      read(parser, s);
      if (!cache(parser, 1)) return undefined;
    }
    if (!cache(parser, 2)) return undefined;
    readLine(parser, leadingBreak);
    if (!scanBlockScalarBreaks(parser, st, trailingBreaks, start)) return undefined;
  }
  if (chomping !== -1) append(s, leadingBreak);
  if (chomping === 1) append(s, trailingBreaks);
  const token = newToken(TokenType_.Scalar, start, st.end);
  token.value = s;
  token.style = literal ? ScalarStyleCode_.Literal : ScalarStyleCode_.Folded;
  return token;
}

function scanBlockScalarBreaks(
  parser: YamlParser,
  st: { indent: number; end: Mark },
  breaks: number[],
  start: Mark,
): boolean {
  st.end = copyMark(parser.mark);
  let maxIndent = 0;
  for (;;) {
    if (!cache(parser, 1)) return false;
    while ((st.indent === 0 || parser.mark.column < st.indent) && cur(parser) === 0x20) {
      skip(parser);
      if (!cache(parser, 1)) return false;
    }
    if (parser.mark.column > maxIndent) maxIndent = parser.mark.column;
    if ((st.indent === 0 || parser.mark.column < st.indent) && cur(parser) === 0x09) {
      return setScannerError(
        parser,
        'while scanning a block scalar',
        start,
        'found a tab character where an indentation space is expected',
      );
    }
    if (!isBreak(parser.buffer, parser.buffer_pos)) break;
    if (!cache(parser, 2)) return false;
    readLine(parser, breaks);
    st.end = copyMark(parser.mark);
  }
  if (st.indent === 0) {
    st.indent = maxIndent;
    if (st.indent < parser.indent + 1) st.indent = parser.indent + 1;
    if (st.indent < 1) st.indent = 1;
  }
  return true;
}

function atDocumentIndicator(parser: YamlParser): boolean {
  const b = parser.buffer;
  const p = parser.buffer_pos;
  return (
    parser.mark.column === 0 &&
    ((b[p] === 0x2d && b[p + 1] === 0x2d && b[p + 2] === 0x2d) ||
      (b[p] === 0x2e && b[p + 1] === 0x2e && b[p + 2] === 0x2e)) &&
    isBlankz(b, p + 3)
  );
}

const SIMPLE_ESCAPES: Record<number, number[]> = {
  48: [0], // 0
  97: [0x07], // a
  98: [0x08], // b
  116: [0x09], // t
  9: [0x09], // tab
  110: [0x0a], // n
  118: [0x0b], // v
  102: [0x0c], // f
  114: [0x0d], // r
  101: [0x1b], // e
  32: [0x20], // space
  34: [0x22], // "
  39: [0x27], // '
  92: [0x5c], // backslash
  78: [0xc2, 0x85], // N
  95: [0xc2, 0xa0], // _
  76: [0xe2, 0x80, 0xa8], // L
  80: [0xe2, 0x80, 0xa9], // P
};

function pushUtf8(s: number[], value: number): void {
  if (value <= 0x7f) s.push(value);
  else if (value <= 0x7ff) s.push(0xc0 + (value >> 6), 0x80 + (value & 0x3f));
  else if (value <= 0xffff) s.push(0xe0 + (value >> 12), 0x80 + ((value >> 6) & 0x3f), 0x80 + (value & 0x3f));
  else {
    s.push(
      0xf0 + (value >> 18),
      0x80 + ((value >> 12) & 0x3f),
      0x80 + ((value >> 6) & 0x3f),
      0x80 + (value & 0x3f),
    );
  }
}

/** One escape sequence at the current `\`; false once the error is set. */
function scanEscape(parser: YamlParser, s: number[], start: Mark): boolean {
  const e = cur(parser, 1);
  const simple = SIMPLE_ESCAPES[e];
  let codeLength = 0;
  if (simple !== undefined) append(s, simple);
  else if (e === 0x78) codeLength = 2;
  else if (e === 0x75) codeLength = 4;
  else if (e === 0x55) codeLength = 8;
  else
    return setScannerError(parser, 'while parsing a quoted scalar', start, 'found unknown escape character');
  skip(parser);
  skip(parser);
  if (codeLength > 0) {
    if (!cache(parser, codeLength)) return false;
    let value = 0;
    for (let k = 0; k < codeLength; k++) {
      if (!isHex(parser.buffer, parser.buffer_pos + k)) {
        return setScannerError(
          parser,
          'while parsing a quoted scalar',
          start,
          'did not find expected hexdecimal number',
        );
      }
      value = value * 16 + asHex(parser.buffer, parser.buffer_pos + k);
    }
    if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) {
      return setScannerError(
        parser,
        'while parsing a quoted scalar',
        start,
        'found invalid Unicode character escape code',
      );
    }
    pushUtf8(s, value);
    for (let k = 0; k < codeLength; k++) skip(parser);
  }
  return true;
}

/** Joins the line breaks and blanks seen between two runs of a flow or plain scalar. */
function joinBreaks(s: number[], leadingBreak: number[], trailingBreaks: number[]): void {
  if (leadingBreak.length > 0 && leadingBreak[0] === 0x0a) {
    if (trailingBreaks.length === 0) s.push(0x20);
    else append(s, trailingBreaks);
  } else {
    append(s, leadingBreak);
    append(s, trailingBreaks);
  }
  leadingBreak.length = 0;
  trailingBreaks.length = 0;
}

export function scanFlowScalar(parser: YamlParser, single: boolean): Token | undefined {
  const start = copyMark(parser.mark);
  skip(parser);
  const s: number[] = [];
  const leadingBreak: number[] = [];
  const trailingBreaks: number[] = [];
  const whitespaces: number[] = [];
  for (;;) {
    if (!cache(parser, 4)) return undefined;
    if (atDocumentIndicator(parser)) {
      setScannerError(parser, 'while scanning a quoted scalar', start, 'found unexpected document indicator');
      return undefined;
    }
    if (cur(parser) === 0) {
      setScannerError(parser, 'while scanning a quoted scalar', start, 'found unexpected end of stream');
      return undefined;
    }
    let leadingBlanks = false;
    while (!isBlankz(parser.buffer, parser.buffer_pos)) {
      const c = cur(parser);
      if (single && c === 0x27 && cur(parser, 1) === 0x27) {
        s.push(0x27);
        skip(parser);
        skip(parser);
      } else if (single && c === 0x27) {
        break;
      } else if (!single && c === 0x22) {
        break;
      } else if (!single && c === 0x5c && isBreak(parser.buffer, parser.buffer_pos + 1)) {
        if (!cache(parser, 3)) return undefined;
        skip(parser);
        skipLine(parser);
        leadingBlanks = true;
        break;
      } else if (!single && c === 0x5c) {
        if (!scanEscape(parser, s, start)) return undefined;
      } else {
        read(parser, s);
      }
      if (!cache(parser, 2)) return undefined;
    }
    if (!cache(parser, 1)) return undefined;
    if (cur(parser) === (single ? 0x27 : 0x22)) break;
    while (isBlank(parser.buffer, parser.buffer_pos) || isBreak(parser.buffer, parser.buffer_pos)) {
      if (isBlank(parser.buffer, parser.buffer_pos)) {
        if (!leadingBlanks) read(parser, whitespaces);
        else skip(parser);
      } else {
        if (!cache(parser, 2)) return undefined;
        if (!leadingBlanks) {
          whitespaces.length = 0;
          readLine(parser, leadingBreak);
          leadingBlanks = true;
        } else {
          readLine(parser, trailingBreaks);
        }
      }
      if (!cache(parser, 1)) return undefined;
    }
    if (leadingBlanks) {
      joinBreaks(s, leadingBreak, trailingBreaks);
    } else {
      append(s, whitespaces);
      whitespaces.length = 0;
    }
  }
  skip(parser);
  const token = newToken(TokenType_.Scalar, start, copyMark(parser.mark));
  token.value = s;
  token.style = single ? ScalarStyleCode_.SingleQuoted : ScalarStyleCode_.DoubleQuoted;
  return token;
}

const FLOW_INDICATORS = new Set([0x2c, 0x3f, 0x5b, 0x5d, 0x7b, 0x7d]);

export function scanPlainScalar(parser: YamlParser): Token | undefined {
  const s: number[] = [];
  const leadingBreak: number[] = [];
  const trailingBreaks: number[] = [];
  const whitespaces: number[] = [];
  let leadingBlanks = false;
  const indent = parser.indent + 1;
  const start = copyMark(parser.mark);
  let end = copyMark(parser.mark);
  for (;;) {
    if (!cache(parser, 4)) return undefined;
    if (atDocumentIndicator(parser)) break;
    if (cur(parser) === 0x23) break;
    while (!isBlankz(parser.buffer, parser.buffer_pos)) {
      const c = cur(parser);
      if (
        (c === 0x3a && isBlankz(parser.buffer, parser.buffer_pos + 1)) ||
        (parser.flow_level > 0 && FLOW_INDICATORS.has(c))
      ) {
        break;
      }
      if (leadingBlanks || whitespaces.length > 0) {
        if (leadingBlanks) {
          joinBreaks(s, leadingBreak, trailingBreaks);
          leadingBlanks = false;
        } else {
          append(s, whitespaces);
          whitespaces.length = 0;
        }
      }
      read(parser, s);
      end = copyMark(parser.mark);
      if (!cache(parser, 2)) return undefined;
    }
    if (!(isBlank(parser.buffer, parser.buffer_pos) || isBreak(parser.buffer, parser.buffer_pos))) break;
    if (!cache(parser, 1)) return undefined;
    while (isBlank(parser.buffer, parser.buffer_pos) || isBreak(parser.buffer, parser.buffer_pos)) {
      if (isBlank(parser.buffer, parser.buffer_pos)) {
        if (leadingBlanks && parser.mark.column < indent && cur(parser) === 0x09) {
          setScannerError(
            parser,
            'while scanning a plain scalar',
            start,
            'found a tab character that violates indentation',
          );
          return undefined;
        }
        if (!leadingBlanks) read(parser, whitespaces);
        else skip(parser);
      } else {
        if (!cache(parser, 2)) return undefined;
        if (!leadingBlanks) {
          whitespaces.length = 0;
          readLine(parser, leadingBreak);
          leadingBlanks = true;
        } else {
          readLine(parser, trailingBreaks);
        }
      }
      if (!cache(parser, 1)) return undefined;
    }
    if (parser.flow_level === 0 && parser.mark.column < indent) break;
  }
  const token = newToken(TokenType_.Scalar, start, end);
  token.value = s;
  token.style = ScalarStyleCode_.Plain;
  if (leadingBlanks) parser.simple_key_allowed = true;
  return token;
}

/** `s.push(...x)` without one argument per element (a 200,000-byte run overflowed the stack). */
function append(s: number[], x: readonly number[]): void {
  for (let i = 0; i < x.length; i++) s.push(x[i] as number);
}
