/**
 * Port of gopkg.in/yaml.v2 2.4.0 `parserc.go`, part 1: events, parser states, the token queue
 * access and `yaml_parser_parse_node` (properties, tags resolved through %TAG directives).
 */

import * as readerModule from './reader.ts';
import { ErrorType, type Mark, ScalarStyleCode, type Token, TokenType, type YamlParser } from './reader.ts';
import * as scannerModule from './scanner.ts';

// Functions bound once: tsx and vitest reach imported bindings through getters, which
// dominates a byte-at-a-time scanner (the bundled Lambda code is not affected).
const { copyMark } = readerModule;
const { fetchMoreTokens } = scannerModule;
const TokenType_ = TokenType;
const ErrorType_ = ErrorType;
const ScalarStyleCode_ = ScalarStyleCode;

export enum EventType {
  None = 0,
  StreamStart,
  StreamEnd,
  DocumentStart,
  DocumentEnd,
  Alias,
  Scalar,
  SequenceStart,
  SequenceEnd,
  MappingStart,
  MappingEnd,
}

export const EVENT_NAMES = [
  'none',
  'stream start',
  'stream end',
  'document start',
  'document end',
  'alias',
  'scalar',
  'sequence start',
  'sequence end',
  'mapping start',
  'mapping end',
];

export interface YamlEvent {
  typ: EventType;
  start_mark: Mark;
  end_mark: Mark;
  anchor: number[] | null;
  tag: number[];
  value: number[];
  implicit: boolean;
  quoted_implicit: boolean;
  style: ScalarStyleCode;
}

export enum State {
  StreamStart = 0,
  ImplicitDocumentStart,
  DocumentStart,
  DocumentContent,
  DocumentEnd,
  BlockNode,
  BlockNodeOrIndentlessSequence,
  FlowNode,
  BlockSequenceFirstEntry,
  BlockSequenceEntry,
  IndentlessSequenceEntry,
  BlockMappingFirstKey,
  BlockMappingKey,
  BlockMappingValue,
  FlowSequenceFirstEntry,
  FlowSequenceEntry,
  FlowSequenceEntryMappingKey,
  FlowSequenceEntryMappingValue,
  FlowSequenceEntryMappingEnd,
  FlowMappingFirstKey,
  FlowMappingKey,
  FlowMappingValue,
  FlowMappingEmptyValue,
  End,
}

export function event(typ: EventType, start: Mark, end: Mark, extra?: Partial<YamlEvent>): YamlEvent {
  return {
    typ,
    start_mark: copyMark(start),
    end_mark: copyMark(end),
    anchor: null,
    tag: [],
    value: [],
    implicit: false,
    quoted_implicit: false,
    style: ScalarStyleCode_.Any,
    ...extra,
  };
}

export function peekToken(parser: YamlParser): Token | undefined {
  if (parser.token_available || fetchMoreTokens(parser)) return parser.tokens[parser.tokens_head];
  return undefined;
}

export function skipToken(parser: YamlParser): void {
  parser.token_available = false;
  parser.tokens_parsed++;
  parser.stream_end_produced = parser.tokens[parser.tokens_head]?.typ === TokenType_.StreamEnd;
  parser.tokens_head++;
}

export function setParserError(parser: YamlParser, problem: string, mark: Mark): undefined {
  parser.error = ErrorType_.Parser;
  parser.problem = problem;
  parser.problem_mark = copyMark(mark);
  return undefined;
}

export function setParserErrorContext(
  parser: YamlParser,
  context: string,
  contextMark: Mark,
  problem: string,
  problemMark: Mark,
): undefined {
  parser.error = ErrorType_.Parser;
  parser.context = context;
  parser.context_mark = copyMark(contextMark);
  parser.problem = problem;
  parser.problem_mark = copyMark(problemMark);
  return undefined;
}

export function popState(parser: YamlParser): void {
  parser.state = parser.states.pop() ?? State.End;
}

export function bytesEq(a: number[], b: number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function parseNode(
  parser: YamlParser,
  block: boolean,
  indentlessSequence: boolean,
): YamlEvent | undefined {
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ === TokenType_.Alias) {
    popState(parser);
    const e = event(EventType.Alias, token.start_mark, token.end_mark, { anchor: token.value });
    skipToken(parser);
    return e;
  }
  let start = copyMark(token.start_mark);
  let end = copyMark(token.start_mark);
  let tagToken = false;
  let tagHandle: number[] = [];
  let tagSuffix: number[] = [];
  let anchor: number[] | null = null;
  let tagMark = start;
  if (token.typ === TokenType_.Anchor) {
    anchor = token.value;
    start = copyMark(token.start_mark);
    end = copyMark(token.end_mark);
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ === TokenType_.Tag) {
      tagToken = true;
      tagHandle = token.value;
      tagSuffix = token.suffix;
      tagMark = copyMark(token.start_mark);
      end = copyMark(token.end_mark);
      skipToken(parser);
      token = peekToken(parser);
      if (token === undefined) return undefined;
    }
  } else if (token.typ === TokenType_.Tag) {
    tagToken = true;
    tagHandle = token.value;
    tagSuffix = token.suffix;
    start = copyMark(token.start_mark);
    tagMark = copyMark(token.start_mark);
    end = copyMark(token.end_mark);
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ === TokenType_.Anchor) {
      anchor = token.value;
      end = copyMark(token.end_mark);
      skipToken(parser);
      token = peekToken(parser);
      if (token === undefined) return undefined;
    }
  }
  let tag: number[] = [];
  if (tagToken) {
    if (tagHandle.length === 0) {
      tag = tagSuffix;
    } else {
      for (const d of parser.tag_directives) {
        if (bytesEq(d.handle, tagHandle)) {
          tag = [...d.prefix, ...tagSuffix];
          break;
        }
      }
      if (tag.length === 0) {
        return setParserErrorContext(
          parser,
          'while parsing a node',
          start,
          'found undefined tag handle',
          tagMark,
        );
      }
    }
  }
  const implicit = tag.length === 0;
  const props = { anchor, tag, implicit };
  if (indentlessSequence && token.typ === TokenType_.BlockEntry) {
    end = copyMark(token.end_mark);
    parser.state = State.IndentlessSequenceEntry;
    return event(EventType.SequenceStart, start, end, props);
  }
  if (token.typ === TokenType_.Scalar) {
    let plainImplicit = false;
    let quotedImplicit = false;
    end = copyMark(token.end_mark);
    if (
      (tag.length === 0 && token.style === ScalarStyleCode_.Plain) ||
      (tag.length === 1 && tag[0] === 0x21)
    ) {
      plainImplicit = true;
    } else if (tag.length === 0) {
      quotedImplicit = true;
    }
    popState(parser);
    const e = event(EventType.Scalar, start, end, {
      anchor,
      tag,
      value: token.value,
      implicit: plainImplicit,
      quoted_implicit: quotedImplicit,
      style: token.style,
    });
    skipToken(parser);
    return e;
  }
  if (token.typ === TokenType_.FlowSequenceStart) {
    parser.state = State.FlowSequenceFirstEntry;
    return event(EventType.SequenceStart, start, token.end_mark, props);
  }
  if (token.typ === TokenType_.FlowMappingStart) {
    parser.state = State.FlowMappingFirstKey;
    return event(EventType.MappingStart, start, token.end_mark, props);
  }
  if (block && token.typ === TokenType_.BlockSequenceStart) {
    parser.state = State.BlockSequenceFirstEntry;
    return event(EventType.SequenceStart, start, token.end_mark, props);
  }
  if (block && token.typ === TokenType_.BlockMappingStart) {
    parser.state = State.BlockMappingFirstKey;
    return event(EventType.MappingStart, start, token.end_mark, props);
  }
  if (anchor !== null || tag.length > 0) {
    popState(parser);
    return event(EventType.Scalar, start, end, {
      anchor,
      tag,
      implicit,
      quoted_implicit: false,
      style: ScalarStyleCode_.Plain,
    });
  }
  return setParserErrorContext(
    parser,
    block ? 'while parsing a block node' : 'while parsing a flow node',
    start,
    'did not find expected node content',
    token.start_mark,
  );
}

export function emptyScalar(mark: Mark): YamlEvent {
  return event(EventType.Scalar, mark, mark, { implicit: true, style: ScalarStyleCode_.Plain });
}
