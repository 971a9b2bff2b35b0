/**
 * Port of gopkg.in/yaml.v2 2.4.0 `parserc.go`, part 2: the states of block and flow sequences
 * and mappings.
 */
import {
  EventType,
  emptyScalar,
  event,
  parseNode,
  peekToken,
  popState,
  State,
  setParserErrorContext,
  skipToken,
  type YamlEvent,
} from './parser-events.ts';
import { copyMark, type Mark, type Token, TokenType, type YamlParser } from './reader.ts';

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
  if (token.typ === TokenType.BlockEntry) {
    const mark = copyMark(token.end_mark);
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ !== TokenType.BlockEntry && token.typ !== TokenType.BlockEnd) {
      parser.states.push(State.BlockSequenceEntry);
      return parseNode(parser, true, false);
    }
    parser.state = State.BlockSequenceEntry;
    return emptyScalar(mark);
  }
  if (token.typ === TokenType.BlockEnd) {
    popState(parser);
    popMark(parser);
    const e = event(EventType.SequenceEnd, token.start_mark, token.end_mark);
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
  if (token.typ === TokenType.BlockEntry) {
    const mark = copyMark(token.end_mark);
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (
      token.typ !== TokenType.BlockEntry &&
      token.typ !== TokenType.Key &&
      token.typ !== TokenType.Value &&
      token.typ !== TokenType.BlockEnd
    ) {
      parser.states.push(State.IndentlessSequenceEntry);
      return parseNode(parser, true, false);
    }
    parser.state = State.IndentlessSequenceEntry;
    return emptyScalar(mark);
  }
  popState(parser);
  return event(EventType.SequenceEnd, token.start_mark, token.start_mark);
}

export function parseBlockMappingKey(parser: YamlParser, first: boolean): YamlEvent | undefined {
  if (first) firstMark(parser);
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ === TokenType.Key) {
    const mark = copyMark(token.end_mark);
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ !== TokenType.Key && token.typ !== TokenType.Value && token.typ !== TokenType.BlockEnd) {
      parser.states.push(State.BlockMappingValue);
      return parseNode(parser, true, true);
    }
    parser.state = State.BlockMappingValue;
    return emptyScalar(mark);
  }
  if (token.typ === TokenType.BlockEnd) {
    popState(parser);
    popMark(parser);
    const e = event(EventType.MappingEnd, token.start_mark, token.end_mark);
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
  if (token.typ === TokenType.Value) {
    const mark = copyMark(token.end_mark);
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ !== TokenType.Key && token.typ !== TokenType.Value && token.typ !== TokenType.BlockEnd) {
      parser.states.push(State.BlockMappingKey);
      return parseNode(parser, true, true);
    }
    parser.state = State.BlockMappingKey;
    return emptyScalar(mark);
  }
  parser.state = State.BlockMappingKey;
  return emptyScalar(token.start_mark);
}

export function parseFlowSequenceEntry(parser: YamlParser, first: boolean): YamlEvent | undefined {
  if (first) firstMark(parser);
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ !== TokenType.FlowSequenceEnd) {
    if (!first) {
      if (token.typ === TokenType.FlowEntry) {
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
    if (token.typ === TokenType.Key) {
      parser.state = State.FlowSequenceEntryMappingKey;
      const e = event(EventType.MappingStart, token.start_mark, token.end_mark, { implicit: true });
      skipToken(parser);
      return e;
    }
    if (token.typ !== TokenType.FlowSequenceEnd) {
      parser.states.push(State.FlowSequenceEntry);
      return parseNode(parser, false, false);
    }
  }
  popState(parser);
  popMark(parser);
  const e = event(EventType.SequenceEnd, token.start_mark, token.end_mark);
  skipToken(parser);
  return e;
}

export function parseFlowSequenceEntryMappingKey(parser: YamlParser): YamlEvent | undefined {
  const token = peekToken(parser);
  if (token === undefined) return undefined;
  if (
    token.typ !== TokenType.Value &&
    token.typ !== TokenType.FlowEntry &&
    token.typ !== TokenType.FlowSequenceEnd
  ) {
    parser.states.push(State.FlowSequenceEntryMappingValue);
    return parseNode(parser, false, false);
  }
  const mark = copyMark(token.end_mark);
  skipToken(parser);
  parser.state = State.FlowSequenceEntryMappingValue;
  return emptyScalar(mark);
}

export function parseFlowSequenceEntryMappingValue(parser: YamlParser): YamlEvent | undefined {
  const token = peekToken(parser);
  if (token === undefined) return undefined;
  // go-yaml reads the next token into a shadowed variable: the empty value's mark stays this token's.
  const mark = copyMark(token.start_mark);
  if (token.typ === TokenType.Value) {
    skipToken(parser);
    const next = peekToken(parser);
    if (next === undefined) return undefined;
    if (next.typ !== TokenType.FlowEntry && next.typ !== TokenType.FlowSequenceEnd) {
      parser.states.push(State.FlowSequenceEntryMappingEnd);
      return parseNode(parser, false, false);
    }
  }
  parser.state = State.FlowSequenceEntryMappingEnd;
  return emptyScalar(mark);
}

export function parseFlowSequenceEntryMappingEnd(parser: YamlParser): YamlEvent | undefined {
  const token = peekToken(parser);
  if (token === undefined) return undefined;
  parser.state = State.FlowSequenceEntry;
  return event(EventType.MappingEnd, token.start_mark, token.start_mark);
}

export function parseFlowMappingKey(parser: YamlParser, first: boolean): YamlEvent | undefined {
  if (first) firstMark(parser);
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ !== TokenType.FlowMappingEnd) {
    if (!first) {
      if (token.typ === TokenType.FlowEntry) {
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
    if (token.typ === TokenType.Key) {
      skipToken(parser);
      token = peekToken(parser);
      if (token === undefined) return undefined;
      if (
        token.typ !== TokenType.Value &&
        token.typ !== TokenType.FlowEntry &&
        token.typ !== TokenType.FlowMappingEnd
      ) {
        parser.states.push(State.FlowMappingValue);
        return parseNode(parser, false, false);
      }
      parser.state = State.FlowMappingValue;
      return emptyScalar(token.start_mark);
    }
    if (token.typ !== TokenType.FlowMappingEnd) {
      parser.states.push(State.FlowMappingEmptyValue);
      return parseNode(parser, false, false);
    }
  }
  popState(parser);
  popMark(parser);
  const e = event(EventType.MappingEnd, token.start_mark, token.end_mark);
  skipToken(parser);
  return e;
}

export function parseFlowMappingValue(parser: YamlParser, empty: boolean): YamlEvent | undefined {
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (empty) {
    parser.state = State.FlowMappingKey;
    return emptyScalar(token.start_mark);
  }
  if (token.typ === TokenType.Value) {
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ !== TokenType.FlowEntry && token.typ !== TokenType.FlowMappingEnd) {
      parser.states.push(State.FlowMappingKey);
      return parseNode(parser, false, false);
    }
  }
  parser.state = State.FlowMappingKey;
  return emptyScalar(token.start_mark);
}
