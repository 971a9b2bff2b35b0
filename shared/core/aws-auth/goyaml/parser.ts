/**
 * Port of gopkg.in/yaml.v2 2.4.0 `parserc.go`, part 3: the state machine, stream and document
 * events, and %YAML / %TAG directives.
 */

import * as parserCollectionsModule from './parser-collections.ts';
import * as parserEventsModule from './parser-events.ts';
import { EventType, State, type YamlEvent } from './parser-events.ts';
import * as readerModule from './reader.ts';
import { ErrorType, type Mark, TokenType, type YamlParser } from './reader.ts';

// Functions bound once: tsx and vitest reach imported bindings through getters, which
// dominates a byte-at-a-time scanner (the bundled Lambda code is not affected).
const {
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
} = parserCollectionsModule;
const { bytesEq, emptyScalar, event, parseNode, peekToken, popState, setParserError, skipToken } =
  parserEventsModule;
const { copyMark } = readerModule;
const TokenType_ = TokenType;
const ErrorType_ = ErrorType;
const EventType_ = EventType;
const State_ = State;

/** `yaml_parser_parse`: the next event, a stream-end-like empty event when done, or undefined on error. */
export function parseEvent(parser: YamlParser): YamlEvent | undefined {
  if (parser.stream_end_produced || parser.error !== ErrorType_.None || parser.state === State_.End) {
    const m = { index: 0, line: 0, column: 0, pos: 0 };
    return event(EventType_.None, m, m);
  }
  return stateMachine(parser);
}

function stateMachine(parser: YamlParser): YamlEvent | undefined {
  switch (parser.state as State) {
    case State_.StreamStart:
      return parseStreamStart(parser);
    case State_.ImplicitDocumentStart:
      return parseDocumentStart(parser, true);
    case State_.DocumentStart:
      return parseDocumentStart(parser, false);
    case State_.DocumentContent:
      return parseDocumentContent(parser);
    case State_.DocumentEnd:
      return parseDocumentEnd(parser);
    case State_.BlockNode:
      return parseNode(parser, true, false);
    case State_.BlockNodeOrIndentlessSequence:
      return parseNode(parser, true, true);
    case State_.FlowNode:
      return parseNode(parser, false, false);
    case State_.BlockSequenceFirstEntry:
      return parseBlockSequenceEntry(parser, true);
    case State_.BlockSequenceEntry:
      return parseBlockSequenceEntry(parser, false);
    case State_.IndentlessSequenceEntry:
      return parseIndentlessSequenceEntry(parser);
    case State_.BlockMappingFirstKey:
      return parseBlockMappingKey(parser, true);
    case State_.BlockMappingKey:
      return parseBlockMappingKey(parser, false);
    case State_.BlockMappingValue:
      return parseBlockMappingValue(parser);
    case State_.FlowSequenceFirstEntry:
      return parseFlowSequenceEntry(parser, true);
    case State_.FlowSequenceEntry:
      return parseFlowSequenceEntry(parser, false);
    case State_.FlowSequenceEntryMappingKey:
      return parseFlowSequenceEntryMappingKey(parser);
    case State_.FlowSequenceEntryMappingValue:
      return parseFlowSequenceEntryMappingValue(parser);
    case State_.FlowSequenceEntryMappingEnd:
      return parseFlowSequenceEntryMappingEnd(parser);
    case State_.FlowMappingFirstKey:
      return parseFlowMappingKey(parser, true);
    case State_.FlowMappingKey:
      return parseFlowMappingKey(parser, false);
    case State_.FlowMappingValue:
      return parseFlowMappingValue(parser, false);
    case State_.FlowMappingEmptyValue:
      return parseFlowMappingValue(parser, true);
    default:
      throw new Error('invalid parser state');
  }
}

function parseStreamStart(parser: YamlParser): YamlEvent | undefined {
  const token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ !== TokenType_.StreamStart) {
    return setParserError(parser, 'did not find expected <stream-start>', token.start_mark);
  }
  parser.state = State_.ImplicitDocumentStart;
  const e = event(EventType_.StreamStart, token.start_mark, token.end_mark);
  skipToken(parser);
  return e;
}

function parseDocumentStart(parser: YamlParser, implicit: boolean): YamlEvent | undefined {
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (!implicit) {
    while (token.typ === TokenType_.DocumentEnd) {
      skipToken(parser);
      token = peekToken(parser);
      if (token === undefined) return undefined;
    }
  }
  if (
    implicit &&
    token.typ !== TokenType_.VersionDirective &&
    token.typ !== TokenType_.TagDirective &&
    token.typ !== TokenType_.DocumentStart &&
    token.typ !== TokenType_.StreamEnd
  ) {
    if (!processDirectives(parser)) return undefined;
    parser.states.push(State_.DocumentEnd);
    parser.state = State_.BlockNode;
    return event(EventType_.DocumentStart, token.start_mark, token.end_mark);
  }
  if (token.typ !== TokenType_.StreamEnd) {
    const start = copyMark(token.start_mark);
    if (!processDirectives(parser)) return undefined;
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ !== TokenType_.DocumentStart) {
      return setParserError(parser, 'did not find expected <document start>', token.start_mark);
    }
    parser.states.push(State_.DocumentEnd);
    parser.state = State_.DocumentContent;
    const e = event(EventType_.DocumentStart, start, token.end_mark);
    skipToken(parser);
    return e;
  }
  parser.state = State_.End;
  const e = event(EventType_.StreamEnd, token.start_mark, token.end_mark);
  skipToken(parser);
  return e;
}

function parseDocumentContent(parser: YamlParser): YamlEvent | undefined {
  const token = peekToken(parser);
  if (token === undefined) return undefined;
  if (
    token.typ === TokenType_.VersionDirective ||
    token.typ === TokenType_.TagDirective ||
    token.typ === TokenType_.DocumentStart ||
    token.typ === TokenType_.DocumentEnd ||
    token.typ === TokenType_.StreamEnd
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
  if (token.typ === TokenType_.DocumentEnd) {
    end = copyMark(token.end_mark);
    skipToken(parser);
    implicit = false;
  }
  parser.tag_directives = [];
  parser.state = State_.DocumentStart;
  return event(EventType_.DocumentEnd, start, end, { implicit });
}

const DEFAULT_TAG_DIRECTIVES = [
  { handle: [0x21], prefix: [0x21] },
  { handle: [0x21, 0x21], prefix: Array.from('tag:yaml.org,2002:', (c) => c.charCodeAt(0)) },
];

function processDirectives(parser: YamlParser): boolean {
  let versionSeen = false;
  let token = peekToken(parser);
  if (token === undefined) return false;
  while (token.typ === TokenType_.VersionDirective || token.typ === TokenType_.TagDirective) {
    if (token.typ === TokenType_.VersionDirective) {
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
