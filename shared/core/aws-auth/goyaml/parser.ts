/**
 * Port of gopkg.in/yaml.v2 2.4.0 `parserc.go`: the event state machine over the token queue.
 */
import {
  copyMark,
  ErrorType,
  type Mark,
  ScalarStyleCode,
  type Token,
  TokenType,
  type YamlParser,
} from './reader.ts';
import { fetchMoreTokens } from './scanner.ts';

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

enum State {
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

function event(typ: EventType, start: Mark, end: Mark, extra?: Partial<YamlEvent>): YamlEvent {
  return {
    typ,
    start_mark: copyMark(start),
    end_mark: copyMark(end),
    anchor: null,
    tag: [],
    value: [],
    implicit: false,
    quoted_implicit: false,
    style: ScalarStyleCode.Any,
    ...extra,
  };
}

function peekToken(parser: YamlParser): Token | undefined {
  if (parser.token_available || fetchMoreTokens(parser)) return parser.tokens[parser.tokens_head];
  return undefined;
}

function skipToken(parser: YamlParser): void {
  parser.token_available = false;
  parser.tokens_parsed++;
  parser.stream_end_produced = parser.tokens[parser.tokens_head]?.typ === TokenType.StreamEnd;
  parser.tokens_head++;
}

function setParserError(parser: YamlParser, problem: string, mark: Mark): undefined {
  parser.error = ErrorType.Parser;
  parser.problem = problem;
  parser.problem_mark = copyMark(mark);
  return undefined;
}

function setParserErrorContext(
  parser: YamlParser,
  context: string,
  contextMark: Mark,
  problem: string,
  problemMark: Mark,
): undefined {
  parser.error = ErrorType.Parser;
  parser.context = context;
  parser.context_mark = copyMark(contextMark);
  parser.problem = problem;
  parser.problem_mark = copyMark(problemMark);
  return undefined;
}

function popState(parser: YamlParser): void {
  parser.state = parser.states.pop() ?? State.End;
}

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

function bytesEq(a: number[], b: number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function parseNode(parser: YamlParser, block: boolean, indentlessSequence: boolean): YamlEvent | undefined {
  let token = peekToken(parser);
  if (token === undefined) return undefined;
  if (token.typ === TokenType.Alias) {
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
  if (token.typ === TokenType.Anchor) {
    anchor = token.value;
    start = copyMark(token.start_mark);
    end = copyMark(token.end_mark);
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ === TokenType.Tag) {
      tagToken = true;
      tagHandle = token.value;
      tagSuffix = token.suffix;
      tagMark = copyMark(token.start_mark);
      end = copyMark(token.end_mark);
      skipToken(parser);
      token = peekToken(parser);
      if (token === undefined) return undefined;
    }
  } else if (token.typ === TokenType.Tag) {
    tagToken = true;
    tagHandle = token.value;
    tagSuffix = token.suffix;
    start = copyMark(token.start_mark);
    tagMark = copyMark(token.start_mark);
    end = copyMark(token.end_mark);
    skipToken(parser);
    token = peekToken(parser);
    if (token === undefined) return undefined;
    if (token.typ === TokenType.Anchor) {
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
  if (indentlessSequence && token.typ === TokenType.BlockEntry) {
    end = copyMark(token.end_mark);
    parser.state = State.IndentlessSequenceEntry;
    return event(EventType.SequenceStart, start, end, props);
  }
  if (token.typ === TokenType.Scalar) {
    let plainImplicit = false;
    let quotedImplicit = false;
    end = copyMark(token.end_mark);
    if (
      (tag.length === 0 && token.style === ScalarStyleCode.Plain) ||
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
  if (token.typ === TokenType.FlowSequenceStart) {
    parser.state = State.FlowSequenceFirstEntry;
    return event(EventType.SequenceStart, start, token.end_mark, props);
  }
  if (token.typ === TokenType.FlowMappingStart) {
    parser.state = State.FlowMappingFirstKey;
    return event(EventType.MappingStart, start, token.end_mark, props);
  }
  if (block && token.typ === TokenType.BlockSequenceStart) {
    parser.state = State.BlockSequenceFirstEntry;
    return event(EventType.SequenceStart, start, token.end_mark, props);
  }
  if (block && token.typ === TokenType.BlockMappingStart) {
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
      style: ScalarStyleCode.Plain,
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

function firstMark(parser: YamlParser): void {
  const token = peekToken(parser) as Token;
  parser.marks.push(copyMark(token.start_mark));
  skipToken(parser);
}

function popMark(parser: YamlParser): Mark {
  return parser.marks.pop() ?? { index: 0, line: 0, column: 0, pos: 0 };
}

function parseBlockSequenceEntry(parser: YamlParser, first: boolean): YamlEvent | undefined {
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

function parseIndentlessSequenceEntry(parser: YamlParser): YamlEvent | undefined {
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

function parseBlockMappingKey(parser: YamlParser, first: boolean): YamlEvent | undefined {
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

function parseBlockMappingValue(parser: YamlParser): YamlEvent | undefined {
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

function parseFlowSequenceEntry(parser: YamlParser, first: boolean): YamlEvent | undefined {
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

function parseFlowSequenceEntryMappingKey(parser: YamlParser): YamlEvent | undefined {
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

function parseFlowSequenceEntryMappingValue(parser: YamlParser): YamlEvent | undefined {
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

function parseFlowSequenceEntryMappingEnd(parser: YamlParser): YamlEvent | undefined {
  const token = peekToken(parser);
  if (token === undefined) return undefined;
  parser.state = State.FlowSequenceEntry;
  return event(EventType.MappingEnd, token.start_mark, token.start_mark);
}

function parseFlowMappingKey(parser: YamlParser, first: boolean): YamlEvent | undefined {
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

function parseFlowMappingValue(parser: YamlParser, empty: boolean): YamlEvent | undefined {
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

function emptyScalar(mark: Mark): YamlEvent {
  return event(EventType.Scalar, mark, mark, { implicit: true, style: ScalarStyleCode.Plain });
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
