/**
 * Port of gopkg.in/yaml.v2 2.4.0 `scannerc.go`'s input primitives: `cache`, `skip`,
 * `skip_line`, `read`, `read_line` and the scanner error setter.
 */

import * as readerModule from './reader.ts';
import { ErrorType, type Mark, type YamlParser } from './reader.ts';

// Functions bound once: tsx and vitest reach imported bindings through getters, which
// dominates a byte-at-a-time scanner (the bundled Lambda code is not affected).
const { at, copyMark, isBreak, isCrlf, updateBuffer, width } = readerModule;
const ErrorType_ = ErrorType;

export function cache(parser: YamlParser, length: number): boolean {
  return parser.unread >= length || updateBuffer(parser, length);
}

export function skip(parser: YamlParser): void {
  const w = width(at(parser.buffer, parser.buffer_pos));
  parser.mark.index++;
  parser.mark.column++;
  parser.mark.pos += w === 4 ? 2 : 1;
  parser.unread--;
  parser.buffer_pos += w;
}

export function skipLine(parser: YamlParser): void {
  if (isCrlf(parser.buffer, parser.buffer_pos)) {
    parser.mark.index += 2;
    parser.mark.pos += 2;
    parser.mark.column = 0;
    parser.mark.line++;
    parser.unread -= 2;
    parser.buffer_pos += 2;
  } else if (isBreak(parser.buffer, parser.buffer_pos)) {
    parser.mark.index++;
    parser.mark.pos++;
    parser.mark.column = 0;
    parser.mark.line++;
    parser.unread--;
    parser.buffer_pos += width(at(parser.buffer, parser.buffer_pos));
  }
}

/** Appends the current character to `s`. */
export function read(parser: YamlParser, s: number[]): void {
  const w = width(at(parser.buffer, parser.buffer_pos));
  if (w === 0) throw new Error('invalid character sequence');
  for (let k = 0; k < w; k++) s.push(at(parser.buffer, parser.buffer_pos + k));
  parser.buffer_pos += w;
  parser.mark.index++;
  parser.mark.column++;
  parser.mark.pos += w === 4 ? 2 : 1;
  parser.unread--;
}

/** Appends a line break to `s`, normalised as go-yaml does (LS/PS kept, others become `\n`). */
export function readLine(parser: YamlParser, s: number[]): void {
  const buf = parser.buffer;
  const pos = parser.buffer_pos;
  const c = buf[pos];
  if (c === 0x0d && buf[pos + 1] === 0x0a) {
    s.push(0x0a);
    parser.buffer_pos += 2;
    parser.mark.index++;
    parser.mark.pos++;
    parser.unread--;
  } else if (c === 0x0d || c === 0x0a) {
    s.push(0x0a);
    parser.buffer_pos += 1;
  } else if (c === 0xc2 && buf[pos + 1] === 0x85) {
    s.push(0x0a);
    parser.buffer_pos += 2;
  } else if (c === 0xe2 && buf[pos + 1] === 0x80 && (buf[pos + 2] === 0xa8 || buf[pos + 2] === 0xa9)) {
    s.push(0xe2, 0x80, at(buf, pos + 2));
    parser.buffer_pos += 3;
  } else {
    return;
  }
  parser.mark.index++;
  parser.mark.pos++;
  parser.mark.column = 0;
  parser.mark.line++;
  parser.unread--;
}

export function setScannerError(
  parser: YamlParser,
  context: string,
  contextMark: Mark,
  problem: string,
): false {
  parser.error = ErrorType_.Scanner;
  parser.context = context;
  parser.context_mark = copyMark(contextMark);
  parser.problem = problem;
  parser.problem_mark = copyMark(parser.mark);
  return false;
}
