/**
 * Port of gopkg.in/yaml.v2 2.4.0 `parserc.go`, part 2: the states of block and flow sequences
 * and mappings.
 */

import * as parserEventsModule from './parser-events.ts';
import { EventType, State, type YamlEvent } from './parser-events.ts';
import * as readerModule from './reader.ts';
import { type Mark, type Token, TokenType, type YamlParser } from './reader.ts';

// Functions bound once: tsx and vitest reach imported bindings through getters, which
// dominates a byte-at-a-time scanner (the bundled Lambda code is not affected).
const { emptyScalar, event, parseNode, peekToken, popState, setParserErrorContext, skipToken } =
  parserEventsModule;
const { copyMark } = readerModule;
const TokenType_ = TokenType;
const EventType_ = EventType;
const State_ = State;

function firstMark(parser: YamlParser): void {
  const token = peekToken(parser) as Token;
  parser.marks.push(copyMark(token.start_mark));
  skipToken(parser);
}

function popMark(parser: YamlParser): Mark {
  return parser.marks.pop() ?? { index: 0, line: 0, column: 0, pos: 0 };
}

export function parseBlockSequenceEntry(parser: YamlParser, first: boolean): YamlEvent | undefined {
  if (first) firstMark(parser);
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ === TokenType_.BlockEntry) {
    const mark = copyMark(token.end_mark);
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ !== TokenType_.BlockEntry && token.typ !== TokenType_.BlockEnd) {
      parser.states.push(State_.BlockSequenceEntry);
      return parseNode(parser, true, false);
    }
    parser.state = State_.BlockSequenceEntry;
    return emptyScalar(mark);
  }
  if (token.typ === TokenType_.BlockEnd) {
    popState(parser);
    popMark(parser);
    const e = event(EventType_.SequenceEnd, token.start_mark, token.end_mark);
    skipToken(parser);
    return e;
  }
  const contextMark = popMark(parser);
  return setParserErrorContext(
    parser,
    'while parsing a block collection',
    contextMark,
    "did not find expected '-' indicator",
    token.start_mark,
  );
}

export function parseIndentlessSequenceEntry(parser: YamlParser): YamlEvent | undefined {
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ === TokenType_.BlockEntry) {
    const mark = copyMark(token.end_mark);
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (
      token.typ !== TokenType_.BlockEntry &&
      token.typ !== TokenType_.Key &&
      token.typ !== TokenType_.Value &&
      token.typ !== TokenType_.BlockEnd
    ) {
      parser.states.push(State_.IndentlessSequenceEntry);
      return parseNode(parser, true, false);
    }
    parser.state = State_.IndentlessSequenceEntry;
    return emptyScalar(mark);
  }
  popState(parser);
  return event(EventType_.SequenceEnd, token.start_mark, token.start_mark);
}

export function parseBlockMappingKey(parser: YamlParser, first: boolean): YamlEvent | undefined {
  if (first) firstMark(parser);
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ === TokenType_.Key) {
    const mark = copyMark(token.end_mark);
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ !== TokenType_.Key && token.typ !== TokenType_.Value && token.typ !== TokenType_.BlockEnd) {
      parser.states.push(State_.BlockMappingValue);
      return parseNode(parser, true, true);
    }
    parser.state = State_.BlockMappingValue;
    return emptyScalar(mark);
  }
  if (token.typ === TokenType_.BlockEnd) {
    popState(parser);
    popMark(parser);
    const e = event(EventType_.MappingEnd, token.start_mark, token.end_mark);
    skipToken(parser);
    return e;
  }
  const contextMark = popMark(parser);
  return setParserErrorContext(
    parser,
    'while parsing a block mapping',
    contextMark,
    'did not find expected key',
    token.start_mark,
  );
}

export function parseBlockMappingValue(parser: YamlParser): YamlEvent | undefined {
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ === TokenType_.Value) {
    const mark = copyMark(token.end_mark);
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ !== TokenType_.Key && token.typ !== TokenType_.Value && token.typ !== TokenType_.BlockEnd) {
      parser.states.push(State_.BlockMappingKey);
      return parseNode(parser, true, true);
    }
    parser.state = State_.BlockMappingKey;
    return emptyScalar(mark);
  }
  parser.state = State_.BlockMappingKey;
  return emptyScalar(token.start_mark);
}

export function parseFlowSequenceEntry(parser: YamlParser, first: boolean): YamlEvent | undefined {
  if (first) firstMark(parser);
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ !== TokenType_.FlowSequenceEnd) {
    if (!first) {
      if (token.typ === TokenType_.FlowEntry) {
        skipToken(parser);
        token = peekToken(parser);
        if (token === undefined) return undefined;
      } else {
        const contextMark = popMark(parser);
        return setParserErrorContext(
          parser,
          'while parsing a flow sequence',
          contextMark,
          "did not find expected ',' or ']'",
          token.start_mark,
        );
      }
    }
    if (token.typ === TokenType_.Key) {
      parser.state = State_.FlowSequenceEntryMappingKey;
      const e = event(EventType_.MappingStart, token.start_mark, token.end_mark, { implicit: true });
      skipToken(parser);
      return e;
    }
    if (token.typ !== TokenType_.FlowSequenceEnd) {
      parser.states.push(State_.FlowSequenceEntry);
      return parseNode(parser, false, false);
    }
  }
  popState(parser);
  popMark(parser);
  const e = event(EventType_.SequenceEnd, token.start_mark, token.end_mark);
  skipToken(parser);
  return e;
}

export function parseFlowSequenceEntryMappingKey(parser: YamlParser): YamlEvent | undefined {
  const token = peekToken(parser);
  if (token === undefined) return undefined;
  if (
    token.typ !== TokenType_.Value &&
    token.typ !== TokenType_.FlowEntry &&
    token.typ !== TokenType_.FlowSequenceEnd
  ) {
    parser.states.push(State_.FlowSequenceEntryMappingValue);
    return parseNode(parser, false, false);
  }
  const mark = copyMark(token.end_mark);
  skipToken(parser);
  parser.state = State_.FlowSequenceEntryMappingValue;
  return emptyScalar(mark);
}

export function parseFlowSequenceEntryMappingValue(parser: YamlParser): YamlEvent | undefined {
  const token = peekToken(parser);
  if (token === undefined) return undefined;
  // go-yaml reads the next token into a shadowed variable: the empty value's mark stays this token's.
  const mark = copyMark(token.start_mark);
  if (token.typ === TokenType_.Value) {
    skipToken(parser);
    const next = peekToken(parser);
    if (next === undefined) return undefined;
    if (next.typ !== TokenType_.FlowEntry && next.typ !== TokenType_.FlowSequenceEnd) {
      parser.states.push(State_.FlowSequenceEntryMappingEnd);
      return parseNode(parser, false, false);
    }
  }
  parser.state = State_.FlowSequenceEntryMappingEnd;
  return emptyScalar(mark);
}

export function parseFlowSequenceEntryMappingEnd(parser: YamlParser): YamlEvent | undefined {
  const token = peekToken(parser);
  if (token === undefined) return undefined;
  parser.state = State_.FlowSequenceEntry;
  return event(EventType_.MappingEnd, token.start_mark, token.start_mark);
}

export function parseFlowMappingKey(parser: YamlParser, first: boolean): YamlEvent | undefined {
  if (first) firstMark(parser);
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ !== TokenType_.FlowMappingEnd) {
    if (!first) {
      if (token.typ === TokenType_.FlowEntry) {
        skipToken(parser);
        token = peekToken(parser);
        if (token === undefined) return undefined;
      } else {
        const contextMark = popMark(parser);
        return setParserErrorContext(
          parser,
          'while parsing a flow mapping',
          contextMark,
          "did not find expected ',' or '}'",
          token.start_mark,
        );
      }
    }
    if (token.typ === TokenType_.Key) {
      skipToken(parser);
      token = peekToken(parser);
      if (token === undefined) return undefined;
      if (
        token.typ !== TokenType_.Value &&
        token.typ !== TokenType_.FlowEntry &&
        token.typ !== TokenType_.FlowMappingEnd
      ) {
        parser.states.push(State_.FlowMappingValue);
        return parseNode(parser, false, false);
      }
      parser.state = State_.FlowMappingValue;
      return emptyScalar(token.start_mark);
    }
    if (token.typ !== TokenType_.FlowMappingEnd) {
      parser.states.push(State_.FlowMappingEmptyValue);
      return parseNode(parser, false, false);
    }
  }
  popState(parser);
  popMark(parser);
  const e = event(EventType_.MappingEnd, token.start_mark, token.end_mark);
  skipToken(parser);
  return e;
}

export function parseFlowMappingValue(parser: YamlParser, empty: boolean): YamlEvent | undefined {
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (empty) {
    parser.state = State_.FlowMappingKey;
    return emptyScalar(token.start_mark);
  }
  if (token.typ === TokenType_.Value) {
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ !== TokenType_.FlowEntry && token.typ !== TokenType_.FlowMappingEnd) {
      parser.states.push(State_.FlowMappingKey);
      return parseNode(parser, false, false);
    }
  }
  parser.state = State_.FlowMappingKey;
  return emptyScalar(token.start_mark);
}
