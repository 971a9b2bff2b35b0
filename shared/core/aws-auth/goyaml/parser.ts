/**
 * Port of gopkg.in/yaml.v2 2.4.0 `parserc.go`, part 3: the state machine, stream and document
 * events, and %YAML / %TAG directives.
 */

import {
  parseBlockMappingKey,
  parseBlockMappingValue,
  parseBlockSequenceEntry,
  parseFlowMappingKey,
  parseFlowMappingValue,
  parseFlowSequenceEntry,
  parseFlowSequenceEntryMappingEnd,
  parseFlowSequenceEntryMappingKey,
  parseFlowSequenceEntryMappingValue,
  parseIndentlessSequenceEntry,
} from './parser-collections.ts';
import {
  bytesEq,
  EventType,
  emptyScalar,
  event,
  parseNode,
  peekToken,
  popState,
  State,
  setParserError,
  skipToken,
  type YamlEvent,
} from './parser-events.ts';
import { copyMark, ErrorType, type Mark, TokenType, type YamlParser } from './reader.ts';

/** `yaml_parser_parse`: the next event, a stream-end-like empty event when done, or undefined on error. */
export function parseEvent(parser: YamlParser): YamlEvent | undefined {
  if (parser.stream_end_produced || parser.error !== ErrorType.None || parser.state === State.End) {
    const m = { index: 0, line: 0, column: 0, pos: 0 };
    return event(EventType.None, m, m);
  }
  return stateMachine(parser);
}

function stateMachine(parser: YamlParser): YamlEvent | undefined {
  switch (parser.state as State) {
    case State.StreamStart:
      return parseStreamStart(parser);
    case State.ImplicitDocumentStart:
      return parseDocumentStart(parser, true);
    case State.DocumentStart:
      return parseDocumentStart(parser, false);
    case State.DocumentContent:
      return parseDocumentContent(parser);
    case State.DocumentEnd:
      return parseDocumentEnd(parser);
    case State.BlockNode:
      return parseNode(parser, true, false);
    case State.BlockNodeOrIndentlessSequence:
      return parseNode(parser, true, true);
    case State.FlowNode:
      return parseNode(parser, false, false);
    case State.BlockSequenceFirstEntry:
      return parseBlockSequenceEntry(parser, true);
    case State.BlockSequenceEntry:
      return parseBlockSequenceEntry(parser, false);
    case State.IndentlessSequenceEntry:
      return parseIndentlessSequenceEntry(parser);
    case State.BlockMappingFirstKey:
      return parseBlockMappingKey(parser, true);
    case State.BlockMappingKey:
      return parseBlockMappingKey(parser, false);
    case State.BlockMappingValue:
      return parseBlockMappingValue(parser);
    case State.FlowSequenceFirstEntry:
      return parseFlowSequenceEntry(parser, true);
    case State.FlowSequenceEntry:
      return parseFlowSequenceEntry(parser, false);
    case State.FlowSequenceEntryMappingKey:
      return parseFlowSequenceEntryMappingKey(parser);
    case State.FlowSequenceEntryMappingValue:
      return parseFlowSequenceEntryMappingValue(parser);
    case State.FlowSequenceEntryMappingEnd:
      return parseFlowSequenceEntryMappingEnd(parser);
    case State.FlowMappingFirstKey:
      return parseFlowMappingKey(parser, true);
    case State.FlowMappingKey:
      return parseFlowMappingKey(parser, false);
    case State.FlowMappingValue:
      return parseFlowMappingValue(parser, false);
    case State.FlowMappingEmptyValue:
      return parseFlowMappingValue(parser, true);
    default:
      throw new Error('invalid parser state');
  }
}

function parseStreamStart(parser: YamlParser): YamlEvent | undefined {
  const token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ !== TokenType.StreamStart) {
    return setParserError(parser, 'did not find expected <stream-start>', token.start_mark);
  }
  parser.state = State.ImplicitDocumentStart;
  const e = event(EventType.StreamStart, token.start_mark, token.end_mark);
  skipToken(parser);
  return e;
}

function parseDocumentStart(parser: YamlParser, implicit: boolean): YamlEvent | undefined {
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (!implicit) {
    while (token.typ === TokenType.DocumentEnd) {
      skipToken(parser);
      token = peekToken(parser);
      if (token === undefined) return undefined;
    }
  }
  if (
    implicit &&
    token.typ !== TokenType.VersionDirective &&
    token.typ !== TokenType.TagDirective &&
    token.typ !== TokenType.DocumentStart &&
    token.typ !== TokenType.StreamEnd
  ) {
    if (!processDirectives(parser)) return undefined;
    parser.states.push(State.DocumentEnd);
    parser.state = State.BlockNode;
    return event(EventType.DocumentStart, token.start_mark, token.end_mark);
  }
  if (token.typ !== TokenType.StreamEnd) {
    const start = copyMark(token.start_mark);
    if (!processDirectives(parser)) return undefined;
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ !== TokenType.DocumentStart) {
      return setParserError(parser, 'did not find expected <document start>', token.start_mark);
    }
    parser.states.push(State.DocumentEnd);
    parser.state = State.DocumentContent;
    const e = event(EventType.DocumentStart, start, token.end_mark);
    skipToken(parser);
    return e;
  }
  parser.state = State.End;
  const e = event(EventType.StreamEnd, token.start_mark, token.end_mark);
  skipToken(parser);
  return e;
}

function parseDocumentContent(parser: YamlParser): YamlEvent | undefined {
  const token = peekToken(parser);
  if (token === undefined) return undefined;
  if (
    token.typ === TokenType.VersionDirective ||
    token.typ === TokenType.TagDirective ||
    token.typ === TokenType.DocumentStart ||
    token.typ === TokenType.DocumentEnd ||
    token.typ === TokenType.StreamEnd
  ) {
    popState(parser);
    return emptyScalar(token.start_mark);
  }
  return parseNode(parser, true, false);
}

function parseDocumentEnd(parser: YamlParser): YamlEvent | undefined {
  const token = peekToken(parser);
  if (token === undefined) return undefined;
  const start = copyMark(token.start_mark);
  let end = copyMark(token.start_mark);
  let implicit = true;
  if (token.typ === TokenType.DocumentEnd) {
    end = copyMark(token.end_mark);
    skipToken(parser);
    implicit = false;
  }
  parser.tag_directives = [];
  parser.state = State.DocumentStart;
  return event(EventType.DocumentEnd, start, end, { implicit });
}

const DEFAULT_TAG_DIRECTIVES = [
  { handle: [0x21], prefix: [0x21] },
  { handle: [0x21, 0x21], prefix: Array.from('tag:yaml.org,2002:', (c) => c.charCodeAt(0)) },
];

function processDirectives(parser: YamlParser): boolean {
  let versionSeen = false;
  let token = peekToken(parser);
  if (token === undefined) return false;
  while (token.typ === TokenType.VersionDirective || token.typ === TokenType.TagDirective) {
    if (token.typ === TokenType.VersionDirective) {
      if (versionSeen) {
        setParserError(parser, 'found duplicate %YAML directive', token.start_mark);
        return false;
      }
      if (token.major !== 1 || token.minor !== 1) {
        setParserError(parser, 'found incompatible YAML document', token.start_mark);
        return false;
      }
      versionSeen = true;
    } else if (
      !appendTagDirective(parser, { handle: token.value, prefix: token.prefix }, false, token.start_mark)
    ) {
      return false;
    }
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return false;
  }
  for (const d of DEFAULT_TAG_DIRECTIVES) {
    if (!appendTagDirective(parser, d, true, token.start_mark)) return false;
  }
  return true;
}

function appendTagDirective(
  parser: YamlParser,
  value: { handle: number[]; prefix: number[] },
  allowDuplicates: boolean,
  mark: Mark,
): boolean {
  for (const d of parser.tag_directives) {
    if (bytesEq(value.handle, d.handle)) {
      if (allowDuplicates) return true;
      setParserError(parser, 'found duplicate %TAG directive', mark);
      return false;
    }
  }
  parser.tag_directives.push({ handle: [...value.handle], prefix: [...value.prefix] });
  return true;
}
