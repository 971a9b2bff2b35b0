/**
 * Port of gopkg.in/yaml.v2 2.4.0 `decode.go`'s `parser` type: libyaml events to a node tree
 * (first document only), with `p.fail()`'s error text.
 */
import * as goFormatModule from './go-format.ts';
import type { GoMark, ScalarStyle } from './go-values.ts';
import * as parserModule from './parser.ts';
import { EVENT_NAMES, EventType, type YamlEvent } from './parser-events.ts';
import { ErrorType, ScalarStyleCode, YamlParser } from './reader.ts';
import { GoYamlFailure } from './resolve.ts';

// Functions bound once: tsx and vitest reach imported bindings through getters, which
// dominates a byte-at-a-time scanner (the bundled Lambda code is not affected).
const { goBytesToString } = goFormatModule;
const { parseEvent } = parserModule;
const ErrorType_ = ErrorType;
const ScalarStyleCode_ = ScalarStyleCode;
const EventType_ = EventType;

export enum Kind {
  Document = 1,
  Mapping = 2,
  Sequence = 4,
  Scalar = 8,
  Alias = 16,
}

export interface Node {
  kind: Kind;
  mark: GoMark;
  end: number;
  style: ScalarStyle;
  tag: string;
  alias: Node | undefined;
  value: string;
  implicit: boolean;
  children: Node[];
}

const STYLES: Record<number, ScalarStyle> = {
  [ScalarStyleCode_.SingleQuoted]: 'single',
  [ScalarStyleCode_.DoubleQuoted]: 'double',
  [ScalarStyleCode_.Literal]: 'literal',
  [ScalarStyleCode_.Folded]: 'folded',
};

/** The `parser` type of decode.go: events to nodes. */
export class NodeParser {
  private readonly p: YamlParser;
  private ev: YamlEvent | undefined;
  private anchors = new Map<string, Node>();
  private doneInit = false;

  constructor(input: Uint8Array) {
    this.p = new YamlParser(input.length === 0 ? new Uint8Array([0x0a]) : input);
  }

  private fail(): never {
    const pr = this.p;
    let line = 0;
    if (pr.problem_mark.line !== 0) {
      line = pr.problem_mark.line;
      if (pr.error === ErrorType_.Scanner) line++;
    } else if (pr.context_mark.line !== 0) {
      line = pr.context_mark.line;
    }
    const where = line !== 0 ? `line ${line}: ` : '';
    const msg = pr.problem.length > 0 ? pr.problem : 'unknown problem parsing YAML content';
    const cause =
      pr.error === ErrorType_.Reader ? { byteOffset: pr.problem_offset } : { pos: pr.problem_mark.pos };
    throw new GoYamlFailure(`${where}${msg}`, { cause });
  }

  private peek(): YamlEvent {
    if (this.ev !== undefined) return this.ev;
    const e = parseEvent(this.p);
    if (e === undefined) this.fail();
    this.ev = e;
    return e;
  }

  private expect(t: EventType): void {
    const e = this.ev ?? parseEvent(this.p);
    if (e === undefined) this.fail();
    this.ev = e;
    if (e.typ === EventType_.StreamEnd)
      throw new GoYamlFailure('attempted to go past the end of stream; corrupted value?');
    if (e.typ !== t) {
      this.p.problem = `expected ${EVENT_NAMES[t]} event but got ${EVENT_NAMES[e.typ]}`;
      this.fail();
    }
    this.ev = undefined;
  }

  private node(kind: Kind): Node {
    const e = this.ev as YamlEvent;
    return {
      kind,
      mark: { pos: e.start_mark.pos, line: e.start_mark.line, column: e.start_mark.column },
      end: e.end_mark.pos,
      style: STYLES[e.style] ?? 'plain',
      tag: '',
      alias: undefined,
      value: '',
      implicit: false,
      children: [],
    };
  }

  private anchor(n: Node, anchor: number[] | null): void {
    if (anchor !== null) this.anchors.set(goBytesToString(anchor), n);
  }

  /** `p.parse()` at the top: the first document's node, or undefined for an empty stream. */
  parse(): Node | undefined {
    if (!this.doneInit) {
      this.expect(EventType_.StreamStart);
      this.doneInit = true;
    }
    switch (this.peek().typ) {
      case EventType_.DocumentStart:
        return this.document();
      case EventType_.StreamEnd:
        return undefined;
      default:
        return this.tree();
    }
  }

  /**
   * `p.parse()` for a node and everything under it, with an explicit stack instead of Go's
   * recursion (go-yaml allows 10000 levels; JavaScript's call stack does not).
   */
  private tree(): Node {
    const open: Node[] = [];
    for (;;) {
      const t = this.peek().typ;
      let done: Node;
      if (t === EventType_.Scalar) done = this.scalar();
      else if (t === EventType_.Alias) done = this.alias();
      else if (t === EventType_.MappingStart || t === EventType_.SequenceStart) {
        const n = this.node(t === EventType_.MappingStart ? Kind.Mapping : Kind.Sequence);
        this.anchor(n, (this.ev as YamlEvent).anchor);
        this.expect(t);
        open.push(n);
        continue;
      } else {
        const top = open[open.length - 1];
        const endType = top?.kind === Kind.Mapping ? EventType_.MappingEnd : EventType_.SequenceEnd;
        if (top === undefined || t !== endType) {
          if (t === EventType_.StreamEnd) {
            throw new GoYamlFailure('attempted to go past the end of stream; corrupted value?');
          }
          throw new Error(`attempted to parse unknown event: ${EVENT_NAMES[t]}`);
        }
        this.expect(endType);
        done = open.pop() as Node;
      }
      const parent = open[open.length - 1];
      if (parent === undefined) return done;
      parent.children.push(done);
    }
  }

  private document(): Node {
    const n = this.node(Kind.Document);
    this.anchors = new Map();
    this.expect(EventType_.DocumentStart);
    n.children.push(this.tree());
    this.expect(EventType_.DocumentEnd);
    return n;
  }

  private alias(): Node {
    const n = this.node(Kind.Alias);
    n.value = goBytesToString((this.ev as YamlEvent).anchor ?? []);
    n.alias = this.anchors.get(n.value);
    if (n.alias === undefined) {
      throw new GoYamlFailure(`unknown anchor '${n.value}' referenced`, { cause: { pos: n.mark.pos } });
    }
    this.expect(EventType_.Alias);
    return n;
  }

  private scalar(): Node {
    const e = this.ev as YamlEvent;
    const n = this.node(Kind.Scalar);
    n.value = goBytesToString(e.value);
    n.tag = goBytesToString(e.tag);
    n.implicit = e.implicit;
    this.anchor(n, e.anchor);
    this.expect(EventType_.Scalar);
    return n;
  }
}
