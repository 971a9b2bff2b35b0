/**
 * Port of gopkg.in/yaml.v2 2.4.0 `scannerc.go`, part 1: the token queue, simple keys,
 * indentation and the `fetch_*` dispatch. The `scan_*` routines for directives, anchors, tags
 * and scalars are in `scanner-scan.ts`.
 */

import * as readerModule from './reader.ts';
import { type Mark, type Token, TokenType, type YamlParser } from './reader.ts';
import * as scannerInputModule from './scanner-input.ts';
import * as scannerScalarsModule from './scanner-scalars.ts';
import * as scannerScanModule from './scanner-scan.ts';

// Functions bound once: tsx and vitest reach imported bindings through getters, which
// dominates a byte-at-a-time scanner (the bundled Lambda code is not affected).
const { copyMark, isBlank, isBlankz, isBom, isBreak, isBreakz, newToken } = readerModule;
const { cache, setScannerError, skip, skipLine } = scannerInputModule;
const { scanBlockScalar, scanFlowScalar, scanPlainScalar } = scannerScalarsModule;
const { scanAnchor, scanDirective, scanTag } = scannerScanModule;
const TokenType_ = TokenType;

export const MAX_FLOW_LEVEL = 10000;
export const MAX_INDENTS = 10000;

/** apic.go `yaml_insert_token`: `pos` relative to the queue head, -1 = append. */
function insertToken(parser: YamlParser, pos: number, token: Token): void {
  if (parser.tokens_head > 256 && parser.tokens_head === parser.tokens.length) {
    parser.tokens.length = 0;
    parser.tokens_head = 0;
  }
  if (pos < 0) parser.tokens.push(token);
  else parser.tokens.splice(parser.tokens_head + pos, 0, token);
}

export function fetchMoreTokens(parser: YamlParser): boolean {
  for (;;) {
    if (parser.tokens_head !== parser.tokens.length) {
      const headTokIdx = parser.simple_keys_by_tok.get(parser.tokens_parsed);
      if (headTokIdx === undefined) break;
      const key = parser.simple_keys[headTokIdx];
      if (key === undefined) break;
      const r = simpleKeyIsValid(parser, key);
      if (r === undefined) return false;
      if (!r) break;
    }
    if (!fetchNextToken(parser)) return false;
  }
  parser.token_available = true;
  return true;
}

function fetchNextToken(parser: YamlParser): boolean {
  if (!cache(parser, 1)) return false;
  if (!parser.stream_start_produced) return fetchStreamStart(parser);
  if (!scanToNextToken(parser)) return false;
  if (!unrollIndent(parser, parser.mark.column)) return false;
  if (!cache(parser, 4)) return false;
  const buf = parser.buffer;
  const pos = parser.buffer_pos;
  const c = buf[pos];
  if (c === 0) return fetchStreamEnd(parser);
  const col0 = parser.mark.column === 0;
  if (col0 && c === 0x25) return fetchDirective(parser);
  if (col0 && c === 0x2d && buf[pos + 1] === 0x2d && buf[pos + 2] === 0x2d && isBlankz(buf, pos + 3)) {
    return fetchDocumentIndicator(parser, TokenType_.DocumentStart);
  }
  if (col0 && c === 0x2e && buf[pos + 1] === 0x2e && buf[pos + 2] === 0x2e && isBlankz(buf, pos + 3)) {
    return fetchDocumentIndicator(parser, TokenType_.DocumentEnd);
  }
  switch (c) {
    case 0x5b: // [
      return fetchFlowCollectionStart(parser, TokenType_.FlowSequenceStart);
    case 0x7b: // {
      return fetchFlowCollectionStart(parser, TokenType_.FlowMappingStart);
    case 0x5d: // ]
      return fetchFlowCollectionEnd(parser, TokenType_.FlowSequenceEnd);
    case 0x7d: // }
      return fetchFlowCollectionEnd(parser, TokenType_.FlowMappingEnd);
    case 0x2c: // ,
      return fetchFlowEntry(parser);
  }
  if (c === 0x2d && isBlankz(buf, pos + 1)) return fetchBlockEntry(parser);
  if (c === 0x3f && (parser.flow_level > 0 || isBlankz(buf, pos + 1))) return fetchKey(parser);
  if (c === 0x3a && (parser.flow_level > 0 || isBlankz(buf, pos + 1))) return fetchValue(parser);
  if (c === 0x2a) return fetchAnchor(parser, TokenType_.Alias);
  if (c === 0x26) return fetchAnchor(parser, TokenType_.Anchor);
  if (c === 0x21) return fetchTag(parser);
  if (c === 0x7c && parser.flow_level === 0) return fetchBlockScalar(parser, true);
  if (c === 0x3e && parser.flow_level === 0) return fetchBlockScalar(parser, false);
  if (c === 0x27) return fetchFlowScalar(parser, true);
  if (c === 0x22) return fetchFlowScalar(parser, false);
  // - ? : , [ ] { } # & * ! | > ' " % @ `
  const indicator = '-?:,[]{}#&*!|>\'"%@`'.includes(String.fromCharCode(c ?? 0));
  if (
    !(isBlankz(buf, pos) || indicator) ||
    (c === 0x2d && !isBlank(buf, pos + 1)) ||
    (parser.flow_level === 0 && (c === 0x3f || c === 0x3a) && !isBlankz(buf, pos + 1))
  ) {
    return fetchPlainScalar(parser);
  }
  return setScannerError(
    parser,
    'while scanning for the next token',
    parser.mark,
    'found character that cannot start any token',
  );
}

/** `yaml_simple_key_is_valid`: true/false, or undefined when an error was set. */
function simpleKeyIsValid(
  parser: YamlParser,
  key: { possible: boolean; required: boolean; mark: Mark },
): boolean | undefined {
  if (!key.possible) return false;
  if (key.mark.line < parser.mark.line || key.mark.index + 1024 < parser.mark.index) {
    if (key.required) {
      setScannerError(parser, 'while scanning a simple key', key.mark, "could not find expected ':'");
      return undefined;
    }
    key.possible = false;
    return false;
  }
  return true;
}

function saveSimpleKey(parser: YamlParser): boolean {
  const required = parser.flow_level === 0 && parser.indent === parser.mark.column;
  if (parser.simple_key_allowed) {
    const key = {
      possible: true,
      required,
      token_number: parser.tokens_parsed + (parser.tokens.length - parser.tokens_head),
      mark: copyMark(parser.mark),
    };
    if (!removeSimpleKey(parser)) return false;
    parser.simple_keys[parser.simple_keys.length - 1] = key;
    parser.simple_keys_by_tok.set(key.token_number, parser.simple_keys.length - 1);
  }
  return true;
}

function removeSimpleKey(parser: YamlParser): boolean {
  const key = parser.simple_keys[parser.simple_keys.length - 1];
  if (key?.possible) {
    if (key.required) {
      return setScannerError(parser, 'while scanning a simple key', key.mark, "could not find expected ':'");
    }
    key.possible = false;
    parser.simple_keys_by_tok.delete(key.token_number);
  }
  return true;
}

function increaseFlowLevel(parser: YamlParser): boolean {
  parser.simple_keys.push({
    possible: false,
    required: false,
    token_number: parser.tokens_parsed + (parser.tokens.length - parser.tokens_head),
    mark: copyMark(parser.mark),
  });
  parser.flow_level++;
  if (parser.flow_level > MAX_FLOW_LEVEL) {
    const last = parser.simple_keys[parser.simple_keys.length - 1] as { mark: Mark };
    return setScannerError(
      parser,
      'while increasing flow level',
      last.mark,
      `exceeded max depth of ${MAX_FLOW_LEVEL}`,
    );
  }
  return true;
}

function decreaseFlowLevel(parser: YamlParser): boolean {
  if (parser.flow_level > 0) {
    parser.flow_level--;
    const last = parser.simple_keys.pop();
    if (last !== undefined) parser.simple_keys_by_tok.delete(last.token_number);
  }
  return true;
}

function rollIndent(parser: YamlParser, column: number, number: number, typ: TokenType, mark: Mark): boolean {
  if (parser.flow_level > 0) return true;
  if (parser.indent < column) {
    parser.indents.push(parser.indent);
    parser.indent = column;
    if (parser.indents.length > MAX_INDENTS) {
      const last = parser.simple_keys[parser.simple_keys.length - 1] as { mark: Mark };
      return setScannerError(
        parser,
        'while increasing indent level',
        last.mark,
        `exceeded max depth of ${MAX_INDENTS}`,
      );
    }
    const token = newToken(typ, copyMark(mark), copyMark(mark));
    insertToken(parser, number > -1 ? number - parser.tokens_parsed : number, token);
  }
  return true;
}

function unrollIndent(parser: YamlParser, column: number): boolean {
  if (parser.flow_level > 0) return true;
  while (parser.indent > column) {
    insertToken(parser, -1, newToken(TokenType_.BlockEnd, copyMark(parser.mark), copyMark(parser.mark)));
    parser.indent = parser.indents.pop() ?? -1;
  }
  return true;
}

function fetchStreamStart(parser: YamlParser): boolean {
  parser.indent = -1;
  parser.simple_keys.push({
    possible: false,
    required: false,
    token_number: 0,
    mark: { index: 0, line: 0, column: 0, pos: 0 },
  });
  parser.simple_keys_by_tok = new Map();
  parser.simple_key_allowed = true;
  parser.stream_start_produced = true;
  insertToken(parser, -1, newToken(TokenType_.StreamStart, copyMark(parser.mark), copyMark(parser.mark)));
  return true;
}

function fetchStreamEnd(parser: YamlParser): boolean {
  if (parser.mark.column !== 0) {
    parser.mark.column = 0;
    parser.mark.line++;
  }
  if (!unrollIndent(parser, -1)) return false;
  if (!removeSimpleKey(parser)) return false;
  parser.simple_key_allowed = false;
  insertToken(parser, -1, newToken(TokenType_.StreamEnd, copyMark(parser.mark), copyMark(parser.mark)));
  return true;
}

function fetchDirective(parser: YamlParser): boolean {
  if (!unrollIndent(parser, -1)) return false;
  if (!removeSimpleKey(parser)) return false;
  parser.simple_key_allowed = false;
  const token = scanDirective(parser);
  if (token === undefined) return false;
  insertToken(parser, -1, token);
  return true;
}

function simpleToken(parser: YamlParser, typ: TokenType, n: number): void {
  const start = copyMark(parser.mark);
  for (let i = 0; i < n; i++) skip(parser);
  insertToken(parser, -1, newToken(typ, start, copyMark(parser.mark)));
}

function fetchDocumentIndicator(parser: YamlParser, typ: TokenType): boolean {
  if (!unrollIndent(parser, -1)) return false;
  if (!removeSimpleKey(parser)) return false;
  parser.simple_key_allowed = false;
  simpleToken(parser, typ, 3);
  return true;
}

function fetchFlowCollectionStart(parser: YamlParser, typ: TokenType): boolean {
  if (!saveSimpleKey(parser)) return false;
  if (!increaseFlowLevel(parser)) return false;
  parser.simple_key_allowed = true;
  simpleToken(parser, typ, 1);
  return true;
}

function fetchFlowCollectionEnd(parser: YamlParser, typ: TokenType): boolean {
  if (!removeSimpleKey(parser)) return false;
  if (!decreaseFlowLevel(parser)) return false;
  parser.simple_key_allowed = false;
  simpleToken(parser, typ, 1);
  return true;
}

function fetchFlowEntry(parser: YamlParser): boolean {
  if (!removeSimpleKey(parser)) return false;
  parser.simple_key_allowed = true;
  simpleToken(parser, TokenType_.FlowEntry, 1);
  return true;
}

function fetchBlockEntry(parser: YamlParser): boolean {
  if (parser.flow_level === 0) {
    if (!parser.simple_key_allowed) {
      return setScannerError(
        parser,
        '',
        parser.mark,
        'block sequence entries are not allowed in this context',
      );
    }
    if (!rollIndent(parser, parser.mark.column, -1, TokenType_.BlockSequenceStart, parser.mark)) return false;
  }
  if (!removeSimpleKey(parser)) return false;
  parser.simple_key_allowed = true;
  simpleToken(parser, TokenType_.BlockEntry, 1);
  return true;
}

function fetchKey(parser: YamlParser): boolean {
  if (parser.flow_level === 0) {
    if (!parser.simple_key_allowed) {
      return setScannerError(parser, '', parser.mark, 'mapping keys are not allowed in this context');
    }
    if (!rollIndent(parser, parser.mark.column, -1, TokenType_.BlockMappingStart, parser.mark)) return false;
  }
  if (!removeSimpleKey(parser)) return false;
  parser.simple_key_allowed = parser.flow_level === 0;
  simpleToken(parser, TokenType_.Key, 1);
  return true;
}

function fetchValue(parser: YamlParser): boolean {
  const key = parser.simple_keys[parser.simple_keys.length - 1];
  if (key === undefined) throw new Error('simple key stack empty');
  const valid = simpleKeyIsValid(parser, key);
  if (valid === undefined) return false;
  if (valid) {
    insertToken(
      parser,
      key.token_number - parser.tokens_parsed,
      newToken(TokenType_.Key, copyMark(key.mark), copyMark(key.mark)),
    );
    if (!rollIndent(parser, key.mark.column, key.token_number, TokenType_.BlockMappingStart, key.mark)) {
      return false;
    }
    key.possible = false;
    parser.simple_keys_by_tok.delete(key.token_number);
    parser.simple_key_allowed = false;
  } else {
    if (parser.flow_level === 0) {
      if (!parser.simple_key_allowed) {
        return setScannerError(parser, '', parser.mark, 'mapping values are not allowed in this context');
      }
      if (!rollIndent(parser, parser.mark.column, -1, TokenType_.BlockMappingStart, parser.mark))
        return false;
    }
    parser.simple_key_allowed = parser.flow_level === 0;
  }
  simpleToken(parser, TokenType_.Value, 1);
  return true;
}

function fetchAnchor(parser: YamlParser, typ: TokenType): boolean {
  if (!saveSimpleKey(parser)) return false;
  parser.simple_key_allowed = false;
  const token = scanAnchor(parser, typ);
  if (token === undefined) return false;
  insertToken(parser, -1, token);
  return true;
}

function fetchTag(parser: YamlParser): boolean {
  if (!saveSimpleKey(parser)) return false;
  parser.simple_key_allowed = false;
  const token = scanTag(parser);
  if (token === undefined) return false;
  insertToken(parser, -1, token);
  return true;
}

function fetchBlockScalar(parser: YamlParser, literal: boolean): boolean {
  if (!removeSimpleKey(parser)) return false;
  parser.simple_key_allowed = true;
  const token = scanBlockScalar(parser, literal);
  if (token === undefined) return false;
  insertToken(parser, -1, token);
  return true;
}

function fetchFlowScalar(parser: YamlParser, single: boolean): boolean {
  if (!saveSimpleKey(parser)) return false;
  parser.simple_key_allowed = false;
  const token = scanFlowScalar(parser, single);
  if (token === undefined) return false;
  insertToken(parser, -1, token);
  return true;
}

function fetchPlainScalar(parser: YamlParser): boolean {
  if (!saveSimpleKey(parser)) return false;
  parser.simple_key_allowed = false;
  const token = scanPlainScalar(parser);
  if (token === undefined) return false;
  insertToken(parser, -1, token);
  return true;
}

function scanToNextToken(parser: YamlParser): boolean {
  for (;;) {
    if (!cache(parser, 1)) return false;
    if (parser.mark.column === 0 && isBom(parser.buffer, parser.buffer_pos)) skip(parser);
    if (!cache(parser, 1)) return false;
    for (;;) {
      const c = parser.buffer[parser.buffer_pos];
      if (!(c === 0x20 || ((parser.flow_level > 0 || !parser.simple_key_allowed) && c === 0x09))) break;
      skip(parser);
      if (!cache(parser, 1)) return false;
    }
    if (parser.buffer[parser.buffer_pos] === 0x23) {
      while (!isBreakz(parser.buffer, parser.buffer_pos)) {
        skip(parser);
        if (!cache(parser, 1)) return false;
      }
    }
    if (isBreak(parser.buffer, parser.buffer_pos)) {
      if (!cache(parser, 2)) return false;
      skipLine(parser);
      if (parser.flow_level === 0) parser.simple_key_allowed = true;
    } else {
      break;
    }
  }
  return true;
}
