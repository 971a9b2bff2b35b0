/**
 * Port of gopkg.in/yaml.v2 2.4.0 `scannerc.go`, part 2: the `yaml_parser_scan_*` routines
 * (directives, anchors and aliases, tags, block, quoted and plain scalars). Each returns the
 * token, or undefined once the parser's error is set.
 */

import * as readerModule from './reader.ts';
import { type Mark, type Token, TokenType, type YamlParser } from './reader.ts';
import * as scannerInputModule from './scanner-input.ts';

// Functions bound once: tsx and vitest reach imported bindings through getters, which
// dominates a byte-at-a-time scanner (the bundled Lambda code is not affected).
const {
  asHex,
  at,
  copyMark,
  isAlpha,
  isBlank,
  isBlankz,
  isBreak,
  isBreakz,
  isDigit,
  isHex,
  newToken,
  width,
} = readerModule;
const { cache, read, setScannerError, skip, skipLine } = scannerInputModule;
const TokenType_ = TokenType;

function bytesEqual(a: number[], s: string): boolean {
  if (a.length !== s.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== s.charCodeAt(i)) return false;
  return true;
}

export function cur(parser: YamlParser, k = 0): number {
  return at(parser.buffer, parser.buffer_pos + k);
}

export function skipBlanks(parser: YamlParser): boolean {
  while (isBlank(parser.buffer, parser.buffer_pos)) {
    skip(parser);
    if (!cache(parser, 1)) return false;
  }
  return true;
}

export function skipComment(parser: YamlParser): boolean {
  if (cur(parser) === 0x23) {
    while (!isBreakz(parser.buffer, parser.buffer_pos)) {
      skip(parser);
      if (!cache(parser, 1)) return false;
    }
  }
  return true;
}

export function scanDirective(parser: YamlParser): Token | undefined {
  const start = copyMark(parser.mark);
  skip(parser);
  const name = scanDirectiveName(parser, start);
  if (name === undefined) return undefined;
  let token: Token;
  if (bytesEqual(name, 'YAML')) {
    const v = scanVersionDirectiveValue(parser, start);
    if (v === undefined) return undefined;
    token = newToken(TokenType_.VersionDirective, start, copyMark(parser.mark));
    token.major = v[0];
    token.minor = v[1];
  } else if (bytesEqual(name, 'TAG')) {
    const v = scanTagDirectiveValue(parser, start);
    if (v === undefined) return undefined;
    token = newToken(TokenType_.TagDirective, start, copyMark(parser.mark));
    token.value = v[0];
    token.prefix = v[1];
  } else {
    setScannerError(parser, 'while scanning a directive', start, 'found unknown directive name');
    return undefined;
  }
  if (!cache(parser, 1)) return undefined;
  if (!skipBlanks(parser) || !skipComment(parser)) return undefined;
  if (!isBreakz(parser.buffer, parser.buffer_pos)) {
    setScannerError(
      parser,
      'while scanning a directive',
      start,
      'did not find expected comment or line break',
    );
    return undefined;
  }
  if (isBreak(parser.buffer, parser.buffer_pos)) {
    if (!cache(parser, 2)) return undefined;
    skipLine(parser);
  }
  return token;
}

function scanDirectiveName(parser: YamlParser, start: Mark): number[] | undefined {
  if (!cache(parser, 1)) return undefined;
  const s: number[] = [];
  while (isAlpha(parser.buffer, parser.buffer_pos)) {
    read(parser, s);
    if (!cache(parser, 1)) return undefined;
  }
  if (s.length === 0) {
    setScannerError(parser, 'while scanning a directive', start, 'could not find expected directive name');
    return undefined;
  }
  if (!isBlankz(parser.buffer, parser.buffer_pos)) {
    setScannerError(
      parser,
      'while scanning a directive',
      start,
      'found unexpected non-alphabetical character',
    );
    return undefined;
  }
  return s;
}

function scanVersionDirectiveValue(parser: YamlParser, start: Mark): [number, number] | undefined {
  if (!cache(parser, 1)) return undefined;
  if (!skipBlanks(parser)) return undefined;
  const major = scanVersionDirectiveNumber(parser, start);
  if (major === undefined) return undefined;
  if (cur(parser) !== 0x2e) {
    setScannerError(
      parser,
      'while scanning a %YAML directive',
      start,
      "did not find expected digit or '.' character",
    );
    return undefined;
  }
  skip(parser);
  const minor = scanVersionDirectiveNumber(parser, start);
  if (minor === undefined) return undefined;
  return [major, minor];
}

function scanVersionDirectiveNumber(parser: YamlParser, start: Mark): number | undefined {
  if (!cache(parser, 1)) return undefined;
  let value = 0;
  let length = 0;
  while (isDigit(parser.buffer, parser.buffer_pos)) {
    length++;
    if (length > 2) {
      setScannerError(
        parser,
        'while scanning a %YAML directive',
        start,
        'found extremely long version number',
      );
      return undefined;
    }
    value = value * 10 + (cur(parser) - 0x30);
    skip(parser);
    if (!cache(parser, 1)) return undefined;
  }
  if (length === 0) {
    setScannerError(
      parser,
      'while scanning a %YAML directive',
      start,
      'did not find expected version number',
    );
    return undefined;
  }
  return value;
}

function scanTagDirectiveValue(parser: YamlParser, start: Mark): [number[], number[]] | undefined {
  if (!cache(parser, 1)) return undefined;
  if (!skipBlanks(parser)) return undefined;
  const handle = scanTagHandle(parser, true, start);
  if (handle === undefined) return undefined;
  if (!cache(parser, 1)) return undefined;
  if (!isBlank(parser.buffer, parser.buffer_pos)) {
    setScannerError(parser, 'while scanning a %TAG directive', start, 'did not find expected whitespace');
    return undefined;
  }
  if (!skipBlanks(parser)) return undefined;
  const prefix = scanTagUri(parser, true, [], start);
  if (prefix === undefined) return undefined;
  if (!cache(parser, 1)) return undefined;
  if (!isBlankz(parser.buffer, parser.buffer_pos)) {
    setScannerError(
      parser,
      'while scanning a %TAG directive',
      start,
      'did not find expected whitespace or line break',
    );
    return undefined;
  }
  return [handle, prefix];
}

export function scanAnchor(parser: YamlParser, typ: TokenType): Token | undefined {
  const s: number[] = [];
  const start = copyMark(parser.mark);
  skip(parser);
  if (!cache(parser, 1)) return undefined;
  while (isAlpha(parser.buffer, parser.buffer_pos)) {
    read(parser, s);
    if (!cache(parser, 1)) return undefined;
  }
  const end = copyMark(parser.mark);
  const c = cur(parser);
  if (
    s.length === 0 ||
    !(
      isBlankz(parser.buffer, parser.buffer_pos) ||
      c === 0x3f || // ?
      c === 0x3a || // :
      c === 0x2c || // ,
      c === 0x5d || // ]
      c === 0x7d || // }
      c === 0x25 || // %
      c === 0x40 || // @
      c === 0x60 // `
    )
  ) {
    const context = typ === TokenType_.Anchor ? 'while scanning an anchor' : 'while scanning an alias';
    setScannerError(parser, context, start, 'did not find expected alphabetic or numeric character');
    return undefined;
  }
  const token = newToken(typ, start, end);
  token.value = s;
  return token;
}

function setTagError(parser: YamlParser, directive: boolean, start: Mark, problem: string): undefined {
  setScannerError(
    parser,
    directive ? 'while parsing a %TAG directive' : 'while parsing a tag',
    start,
    problem,
  );
  return undefined;
}

export function scanTag(parser: YamlParser): Token | undefined {
  const start = copyMark(parser.mark);
  let handle: number[] = [];
  let suffix: number[] = [];
  if (!cache(parser, 2)) return undefined;
  if (cur(parser, 1) === 0x3c) {
    skip(parser);
    skip(parser);
    const uri = scanTagUri(parser, false, [], start);
    if (uri === undefined) return undefined;
    suffix = uri;
    if (cur(parser) !== 0x3e) {
      setScannerError(parser, 'while scanning a tag', start, "did not find the expected '>'");
      return undefined;
    }
    skip(parser);
  } else {
    const h = scanTagHandle(parser, false, start);
    if (h === undefined) return undefined;
    handle = h;
    if (handle[0] === 0x21 && handle.length > 1 && handle[handle.length - 1] === 0x21) {
      const uri = scanTagUri(parser, false, [], start);
      if (uri === undefined) return undefined;
      suffix = uri;
    } else {
      const uri = scanTagUri(parser, false, handle, start);
      if (uri === undefined) return undefined;
      suffix = uri;
      handle = [0x21];
      if (suffix.length === 0) [handle, suffix] = [suffix, handle];
    }
  }
  if (!cache(parser, 1)) return undefined;
  if (!isBlankz(parser.buffer, parser.buffer_pos)) {
    setScannerError(parser, 'while scanning a tag', start, 'did not find expected whitespace or line break');
    return undefined;
  }
  const token = newToken(TokenType_.Tag, start, copyMark(parser.mark));
  token.value = handle;
  token.suffix = suffix;
  return token;
}

function scanTagHandle(parser: YamlParser, directive: boolean, start: Mark): number[] | undefined {
  if (!cache(parser, 1)) return undefined;
  if (cur(parser) !== 0x21) return setTagError(parser, directive, start, "did not find expected '!'");
  const s: number[] = [];
  read(parser, s);
  if (!cache(parser, 1)) return undefined;
  while (isAlpha(parser.buffer, parser.buffer_pos)) {
    read(parser, s);
    if (!cache(parser, 1)) return undefined;
  }
  if (cur(parser) === 0x21) {
    read(parser, s);
  } else if (directive && !bytesEqual(s, '!')) {
    return setTagError(parser, directive, start, "did not find expected '!'");
  }
  return s;
}

const URI_CHARS = new Set(Array.from(";/?:@&=+$,.!~*'()[]%", (c) => c.charCodeAt(0)));

function scanTagUri(
  parser: YamlParser,
  directive: boolean,
  head: number[],
  start: Mark,
): number[] | undefined {
  const s: number[] = [];
  let hasTag = head.length > 0;
  // One by one: a 200,000-character tag handle spread as arguments overflowed the stack.
  for (let i = 1; i < head.length; i++) s.push(head[i] as number);
  if (!cache(parser, 1)) return undefined;
  while (isAlpha(parser.buffer, parser.buffer_pos) || URI_CHARS.has(cur(parser))) {
    if (cur(parser) === 0x25) {
      if (!scanUriEscapes(parser, directive, start, s)) return undefined;
    } else {
      read(parser, s);
    }
    if (!cache(parser, 1)) return undefined;
    hasTag = true;
  }
  if (!hasTag) return setTagError(parser, directive, start, 'did not find expected tag URI');
  return s;
}

function scanUriEscapes(parser: YamlParser, directive: boolean, start: Mark, s: number[]): boolean {
  let w = 1024;
  while (w > 0) {
    if (!cache(parser, 3)) return false;
    const b = parser.buffer;
    const p = parser.buffer_pos;
    if (!(b[p] === 0x25 && isHex(b, p + 1) && isHex(b, p + 2))) {
      setTagError(parser, directive, start, 'did not find URI escaped octet');
      return false;
    }
    const octet = (asHex(b, p + 1) << 4) + asHex(b, p + 2);
    if (w === 1024) {
      w = width(octet);
      if (w === 0) {
        setTagError(parser, directive, start, 'found an incorrect leading UTF-8 octet');
        return false;
      }
    } else if ((octet & 0xc0) !== 0x80) {
      setTagError(parser, directive, start, 'found an incorrect trailing UTF-8 octet');
      return false;
    }
    s.push(octet);
    skip(parser);
    skip(parser);
    skip(parser);
    w--;
  }
  return true;
}
