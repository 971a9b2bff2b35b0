/**
 * Port of gopkg.in/yaml.v2 2.4.0 `readerc.go` (input decoding into the working buffer), the
 * parser state of `yamlh.go` and the character classes of `yamlprivateh.go`.
 *
 * The buffers keep go-yaml's sizes (512-byte raw reads, a 1536-byte working buffer compacted on
 * refill), because some behaviour depends on them: a control character is reported when the
 * 512-byte chunk holding it is decoded, and `is_bom` looks at the start of the working buffer,
 * not at the current position.
 */

export interface Mark {
  /** Characters consumed (go-yaml `index`). */
  index: number;
  line: number;
  column: number;
  /** UTF-16 offset into the decoded text (not in go-yaml; for locating nodes in the JS string). */
  pos: number;
}

export function copyMark(m: Mark): Mark {
  return { index: m.index, line: m.line, column: m.column, pos: m.pos };
}

export enum ErrorType {
  None = 0,
  Memory = 1,
  Reader = 2,
  Scanner = 3,
  Parser = 4,
}

export enum Encoding {
  Any = 0,
  Utf8 = 1,
  Utf16le = 2,
  Utf16be = 3,
}

export enum TokenType {
  None = 0,
  StreamStart,
  StreamEnd,
  VersionDirective,
  TagDirective,
  DocumentStart,
  DocumentEnd,
  BlockSequenceStart,
  BlockMappingStart,
  BlockEnd,
  FlowSequenceStart,
  FlowSequenceEnd,
  FlowMappingStart,
  FlowMappingEnd,
  BlockEntry,
  FlowEntry,
  Key,
  Value,
  Alias,
  Anchor,
  Tag,
  Scalar,
}

export enum ScalarStyleCode {
  Any = 0,
  Plain = 1,
  SingleQuoted = 2,
  DoubleQuoted = 3,
  Literal = 4,
  Folded = 5,
}

export interface Token {
  typ: TokenType;
  start_mark: Mark;
  end_mark: Mark;
  /** Alias/anchor/scalar value or tag handle (bytes). */
  value: number[];
  suffix: number[];
  prefix: number[];
  style: ScalarStyleCode;
  major: number;
  minor: number;
}

export function newToken(typ: TokenType, start: Mark, end: Mark): Token {
  return {
    typ,
    start_mark: start,
    end_mark: end,
    value: [],
    suffix: [],
    prefix: [],
    style: ScalarStyleCode.Any,
    major: 0,
    minor: 0,
  };
}

export interface SimpleKey {
  possible: boolean;
  required: boolean;
  token_number: number;
  mark: Mark;
}

export interface TagDirective {
  handle: number[];
  prefix: number[];
}

const INPUT_RAW_BUFFER_SIZE = 512;
const INPUT_BUFFER_SIZE = INPUT_RAW_BUFFER_SIZE * 3;

/** `yaml_parser_t` (reader, scanner and parser state). */
export class YamlParser {
  error: ErrorType = ErrorType.None;
  problem = '';
  problem_offset = 0;
  problem_value = 0;
  problem_mark: Mark = { index: 0, line: 0, column: 0, pos: 0 };
  context = '';
  context_mark: Mark = { index: 0, line: 0, column: 0, pos: 0 };

  readonly input: Uint8Array;
  input_pos = 0;
  eof = false;

  /** Working buffer: `buffer_len` valid bytes (Go's `len(parser.buffer)`). */
  buffer = new Uint8Array(INPUT_BUFFER_SIZE + 8);
  buffer_len = 0;
  buffer_pos = 0;
  unread = 0;

  raw_buffer = new Uint8Array(INPUT_RAW_BUFFER_SIZE);
  raw_len = 0;
  raw_buffer_pos = 0;

  encoding: Encoding = Encoding.Any;
  offset = 0;
  mark: Mark = { index: 0, line: 0, column: 0, pos: 0 };

  stream_start_produced = false;
  stream_end_produced = false;
  flow_level = 0;

  tokens: Token[] = [];
  tokens_head = 0;
  tokens_parsed = 0;
  token_available = false;

  indent = 0;
  indents: number[] = [];

  simple_key_allowed = false;
  simple_keys: SimpleKey[] = [];
  simple_keys_by_tok = new Map<number, number>();

  state = 0;
  states: number[] = [];
  marks: Mark[] = [];
  tag_directives: TagDirective[] = [];

  constructor(input: Uint8Array) {
    this.input = input;
  }
}

function setReaderError(parser: YamlParser, problem: string, offset: number, value: number): false {
  parser.error = ErrorType.Reader;
  parser.problem = problem;
  parser.problem_offset = offset;
  parser.problem_value = value;
  return false;
}

function determineEncoding(parser: YamlParser): boolean {
  while (!parser.eof && parser.raw_len - parser.raw_buffer_pos < 3) {
    if (!updateRawBuffer(parser)) return false;
  }
  const buf = parser.raw_buffer;
  const pos = parser.raw_buffer_pos;
  const avail = parser.raw_len - pos;
  if (avail >= 2 && buf[pos] === 0xff && buf[pos + 1] === 0xfe) {
    parser.encoding = Encoding.Utf16le;
    parser.raw_buffer_pos += 2;
    parser.offset += 2;
    parser.mark.pos += 1;
  } else if (avail >= 2 && buf[pos] === 0xfe && buf[pos + 1] === 0xff) {
    parser.encoding = Encoding.Utf16be;
    parser.raw_buffer_pos += 2;
    parser.offset += 2;
    parser.mark.pos += 1;
  } else if (avail >= 3 && buf[pos] === 0xef && buf[pos + 1] === 0xbb && buf[pos + 2] === 0xbf) {
    parser.encoding = Encoding.Utf8;
    parser.raw_buffer_pos += 3;
    parser.offset += 3;
    parser.mark.pos += 1;
  } else {
    parser.encoding = Encoding.Utf8;
  }
  return true;
}

/** `yaml_parser_update_raw_buffer` with the string read handler. */
function updateRawBuffer(parser: YamlParser): boolean {
  if (parser.raw_buffer_pos === 0 && parser.raw_len === parser.raw_buffer.length) return true;
  if (parser.eof) return true;
  if (parser.raw_buffer_pos > 0 && parser.raw_buffer_pos < parser.raw_len) {
    parser.raw_buffer.copyWithin(0, parser.raw_buffer_pos, parser.raw_len);
  }
  parser.raw_len -= parser.raw_buffer_pos;
  parser.raw_buffer_pos = 0;
  if (parser.input_pos === parser.input.length) {
    parser.eof = true;
    return true;
  }
  const n = Math.min(parser.raw_buffer.length - parser.raw_len, parser.input.length - parser.input_pos);
  parser.raw_buffer.set(parser.input.subarray(parser.input_pos, parser.input_pos + n), parser.raw_len);
  parser.input_pos += n;
  parser.raw_len += n;
  return true;
}

function isAllowedChar(value: number): boolean {
  return (
    value === 0x09 ||
    value === 0x0a ||
    value === 0x0d ||
    (value >= 0x20 && value <= 0x7e) ||
    value === 0x85 ||
    (value >= 0xa0 && value <= 0xd7ff) ||
    (value >= 0xe000 && value <= 0xfffd) ||
    (value >= 0x10000 && value <= 0x10ffff)
  );
}

/** Decodes one character at `raw_buffer_pos`: [value, width], 0 width = need more input, -1 = error set. */
function decodeOne(parser: YamlParser): [number, number] {
  const raw = parser.raw_buffer;
  const p = parser.raw_buffer_pos;
  const rawUnread = parser.raw_len - p;
  if (parser.encoding === Encoding.Utf8) {
    let octet = raw[p] as number;
    let width: number;
    if ((octet & 0x80) === 0) width = 1;
    else if ((octet & 0xe0) === 0xc0) width = 2;
    else if ((octet & 0xf0) === 0xe0) width = 3;
    else if ((octet & 0xf8) === 0xf0) width = 4;
    else return [setReaderError(parser, 'invalid leading UTF-8 octet', parser.offset, octet) ? 0 : 0, -1];
    if (width > rawUnread) {
      if (parser.eof) {
        setReaderError(parser, 'incomplete UTF-8 octet sequence', parser.offset, -1);
        return [0, -1];
      }
      return [0, 0];
    }
    let value =
      width === 1 ? octet & 0x7f : width === 2 ? octet & 0x1f : width === 3 ? octet & 0x0f : octet & 0x07;
    for (let k = 1; k < width; k++) {
      octet = raw[p + k] as number;
      if ((octet & 0xc0) !== 0x80) {
        setReaderError(parser, 'invalid trailing UTF-8 octet', parser.offset + k, octet);
        return [0, -1];
      }
      value = (value << 6) + (octet & 0x3f);
    }
    if (
      !(width === 1 || (width === 2 && value >= 0x80) || (width === 3 && value >= 0x800) || value >= 0x10000)
    ) {
      setReaderError(parser, 'invalid length of a UTF-8 sequence', parser.offset, -1);
      return [0, -1];
    }
    if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) {
      setReaderError(parser, 'invalid Unicode character', parser.offset, value);
      return [0, -1];
    }
    return [value, width];
  }
  const [low, high] = parser.encoding === Encoding.Utf16le ? [0, 1] : [1, 0];
  if (rawUnread < 2) {
    if (parser.eof) {
      setReaderError(parser, 'incomplete UTF-16 character', parser.offset, -1);
      return [0, -1];
    }
    return [0, 0];
  }
  let value = (raw[p + low] as number) + ((raw[p + high] as number) << 8);
  if ((value & 0xfc00) === 0xdc00) {
    setReaderError(parser, 'unexpected low surrogate area', parser.offset, value);
    return [0, -1];
  }
  if ((value & 0xfc00) === 0xd800) {
    if (rawUnread < 4) {
      if (parser.eof) {
        setReaderError(parser, 'incomplete UTF-16 surrogate pair', parser.offset, -1);
        return [0, -1];
      }
      return [0, 0];
    }
    const value2 = (raw[p + low + 2] as number) + ((raw[p + high + 2] as number) << 8);
    if ((value2 & 0xfc00) !== 0xdc00) {
      setReaderError(parser, 'expected low surrogate area', parser.offset + 2, value2);
      return [0, -1];
    }
    value = 0x10000 + ((value & 0x3ff) << 10) + (value2 & 0x3ff);
    return [value, 4];
  }
  return [value, 2];
}

/** `yaml_parser_update_buffer`: ensure `length` characters are decoded ahead. */
export function updateBuffer(parser: YamlParser, length: number): boolean {
  if (parser.unread >= length) return true;
  if (parser.encoding === Encoding.Any && !determineEncoding(parser)) return false;
  let bufferLen = parser.buffer_len;
  if (parser.buffer_pos > 0 && parser.buffer_pos < bufferLen) {
    parser.buffer.copyWithin(0, parser.buffer_pos, bufferLen);
    bufferLen -= parser.buffer_pos;
    parser.buffer_pos = 0;
  } else if (parser.buffer_pos === bufferLen) {
    bufferLen = 0;
    parser.buffer_pos = 0;
  }
  let first = true;
  while (parser.unread < length) {
    if (!first || parser.raw_buffer_pos === parser.raw_len) {
      if (!updateRawBuffer(parser)) {
        parser.buffer_len = bufferLen;
        return false;
      }
    }
    first = false;
    while (parser.raw_buffer_pos !== parser.raw_len) {
      const [value, width] = decodeOne(parser);
      if (width < 0) return false;
      if (width === 0) break;
      if (!isAllowedChar(value)) {
        return setReaderError(parser, 'control characters are not allowed', parser.offset, value);
      }
      parser.raw_buffer_pos += width;
      parser.offset += width;
      const need = bufferLen + 4;
      if (need > parser.buffer.length) {
        const grown = new Uint8Array(parser.buffer.length * 2);
        grown.set(parser.buffer.subarray(0, bufferLen));
        parser.buffer = grown;
      }
      const b = parser.buffer;
      if (value <= 0x7f) {
        b[bufferLen++] = value;
      } else if (value <= 0x7ff) {
        b[bufferLen++] = 0xc0 + (value >> 6);
        b[bufferLen++] = 0x80 + (value & 0x3f);
      } else if (value <= 0xffff) {
        b[bufferLen++] = 0xe0 + (value >> 12);
        b[bufferLen++] = 0x80 + ((value >> 6) & 0x3f);
        b[bufferLen++] = 0x80 + (value & 0x3f);
      } else {
        b[bufferLen++] = 0xf0 + (value >> 18);
        b[bufferLen++] = 0x80 + ((value >> 12) & 0x3f);
        b[bufferLen++] = 0x80 + ((value >> 6) & 0x3f);
        b[bufferLen++] = 0x80 + (value & 0x3f);
      }
      parser.unread++;
    }
    if (parser.eof) {
      if (bufferLen + 1 > parser.buffer.length) growBuffer(parser, bufferLen);
      parser.buffer[bufferLen++] = 0;
      parser.unread++;
      break;
    }
  }
  if (bufferLen + length + 4 > parser.buffer.length) growBuffer(parser, bufferLen);
  while (bufferLen < length) parser.buffer[bufferLen++] = 0;
  // Bytes past the end read as NUL, as go-yaml's callers only look there after caching.
  parser.buffer.fill(0, bufferLen, Math.min(parser.buffer.length, bufferLen + 4));
  parser.buffer_len = bufferLen;
  return true;
}

function growBuffer(parser: YamlParser, keep: number): void {
  const grown = new Uint8Array(parser.buffer.length * 2);
  grown.set(parser.buffer.subarray(0, keep));
  parser.buffer = grown;
}

// ---------------------------------------------------------------------------------------------
// yamlprivateh.go character classes (b = working buffer, i = byte index)
// ---------------------------------------------------------------------------------------------

export function at(b: Uint8Array, i: number): number {
  return b[i] ?? 0;
}

export function isAlpha(b: Uint8Array, i: number): boolean {
  const c = at(b, i);
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f ||
    c === 0x2d
  );
}

export function isDigit(b: Uint8Array, i: number): boolean {
  const c = at(b, i);
  return c >= 0x30 && c <= 0x39;
}

export function isHex(b: Uint8Array, i: number): boolean {
  const c = at(b, i);
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

export function asHex(b: Uint8Array, i: number): number {
  const c = at(b, i);
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return c - 0x30;
}

/** Faithful to go-yaml: tests the start of the buffer, whatever `i` is. */
export function isBom(b: Uint8Array, _i: number): boolean {
  return b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
}

export function isBlank(b: Uint8Array, i: number): boolean {
  const c = b[i];
  return c === 0x20 || c === 0x09;
}

export function isBreak(b: Uint8Array, i: number): boolean {
  const c = b[i];
  return (
    c === 0x0d ||
    c === 0x0a ||
    (c === 0xc2 && b[i + 1] === 0x85) ||
    (c === 0xe2 && b[i + 1] === 0x80 && (b[i + 2] === 0xa8 || b[i + 2] === 0xa9))
  );
}

export function isCrlf(b: Uint8Array, i: number): boolean {
  return b[i] === 0x0d && b[i + 1] === 0x0a;
}

export function isBreakz(b: Uint8Array, i: number): boolean {
  return b[i] === 0 || isBreak(b, i);
}

export function isSpacez(b: Uint8Array, i: number): boolean {
  return b[i] === 0x20 || isBreakz(b, i);
}

export function isBlankz(b: Uint8Array, i: number): boolean {
  const c = b[i];
  return c === 0x20 || c === 0x09 || isBreakz(b, i);
}

export function width(c: number): number {
  if ((c & 0x80) === 0) return 1;
  if ((c & 0xe0) === 0xc0) return 2;
  if ((c & 0xf0) === 0xe0) return 3;
  if ((c & 0xf8) === 0xf0) return 4;
  return 0;
}
