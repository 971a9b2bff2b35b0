/**
 * go-yaml v2.4.0 behaviours of the port, each expectation recorded from Go (Debian's
 * gopkg.in/yaml.v2 2.4.0 + sigs.k8s.io/yaml 1.3.0, `YAMLToJSON` and `Unmarshal` into []string).
 */
import { describe, expect, it } from 'vitest';
import {
  type JsonValue,
  unmarshalGoYaml,
  unmarshalGoYamlStrings,
  yamlToJson,
} from '../../../shared/core/aws-auth/goyaml/index.ts';

/** `YAMLToJSON(text)` as Go writes it (error text, or the JSON as a plain JS value). */
function toJson(text: string): { error: string } | { json: unknown } {
  const y = unmarshalGoYaml(text);
  if (!y.ok) return { error: y.error };
  const j = yamlToJson(y.value);
  if (!j.ok) return { error: j.error };
  return { json: plain(j.value) };
}

function plain(v: JsonValue): unknown {
  switch (v.t) {
    case 'array':
      return v.items.map(plain);
    case 'object':
      return Object.fromEntries(v.entries.map((e) => [e.key, plain(e.value)]));
    case 'number':
      return Number(v.text);
    case 'null':
      return null;
    default:
      return v.v;
  }
}

function strings(text: string): { values: readonly string[]; error?: string } {
  const r = unmarshalGoYamlStrings(text);
  return r.ok
    ? { values: r.values, ...(r.error === undefined ? {} : { error: r.error }) }
    : { values: r.values, error: r.error };
}

describe('go-yaml v2 port: what fails the whole value', () => {
  it('fails on a line holding only a tab after the entries', () => {
    expect(
      toJson('- rolearn: arn:aws:iam::111122223333:role/node\n  groups:\n  - system:nodes\n\t\n'),
    ).toEqual({
      error: 'yaml: line 4: found a tab character that violates indentation',
    });
  });

  it('rejects the YAML 1.2 escape \\/ in a double-quoted scalar', () => {
    expect(toJson('- rolearn: "arn:aws:iam::111122223333:role\\/x"\n')).toEqual({
      error: 'yaml: found unknown escape character',
    });
  });

  it('rejects a %YAML 1.2 directive and accepts %YAML 1.1', () => {
    expect(toJson('%YAML 1.2\n---\n- a\n')).toEqual({ error: 'yaml: found incompatible YAML document' });
    expect(toJson('%YAML 1.1\n---\n- a\n')).toEqual({ json: ['a'] });
  });

  it('fails on a ... marker before any content', () => {
    expect(toJson('...\n- a\n')).toEqual({ error: 'yaml: did not find expected node content' });
  });

  it("rejects control characters in the reader, with libyaml's message", () => {
    expect(toJson('- a\u0007\n')).toEqual({ error: 'yaml: control characters are not allowed' });
  });

  it('fails on an unquoted {{SessionName}} (a flow mapping used as a map key)', () => {
    expect(toJson('- username: {{SessionName}}\n')).toEqual({
      error: 'yaml: invalid map key: map[interface {}]interface {}{"SessionName":interface {}(nil)}',
    });
  });

  it('fails on unknown and self-referencing anchors', () => {
    expect(toJson('- *x\n')).toEqual({ error: "yaml: unknown anchor 'x' referenced" });
    expect(toJson('&a [*a]\n')).toEqual({ error: "yaml: anchor 'a' value contains itself" });
  });

  it('rejects an alias bomb with the excessive-aliasing ratio check, and allows modest aliasing', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const [name, prev] = [String.fromCharCode(97 + i), String.fromCharCode(96 + i)];
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    expect(toJson(`${lines.join('\n')}\n`)).toEqual({ error: 'yaml: document contains excessive aliasing' });
    const small = toJson(`${lines.slice(0, 3).join('\n')}\n`);
    expect(small).toHaveProperty('json.c.length', 9);
  });

  it('allows 10000 levels of flow nesting and rejects the 10001st', () => {
    const y = unmarshalGoYaml('['.repeat(10000) + ']'.repeat(10000));
    expect(y.ok && yamlToJson(y.value).ok).toBe(true);
    expect(toJson('['.repeat(10001) + ']'.repeat(10001))).toEqual({
      error: 'yaml: exceeded max depth of 10000',
    });
  });

  it('gives up on a simple key longer than 1024 characters', () => {
    expect(toJson(`${'k'.repeat(1025)}: v\n`)).toEqual({
      error: 'yaml: mapping values are not allowed in this context',
    });
    expect(toJson(`${'k'.repeat(1000)}: v\n`)).toEqual({ json: { ['k'.repeat(1000)]: 'v' } });
  });

  it("fails the JSON conversion on a null key and on NaN, with sigs.k8s.io/yaml's and encoding/json's texts", () => {
    expect(toJson('? \n: v\n')).toEqual({
      error: 'Unsupported map key of type: %!s(<nil>), key: <nil>, value: "v"',
    });
    expect(toJson('- .nan\n')).toEqual({ error: 'json: unsupported value: NaN' });
  });
});

describe('go-yaml v2 port: what loads', () => {
  it('treats NEL, LS and PS as line breaks', () => {
    expect(toJson('- a\u0085- b\n')).toEqual({ json: ['a', 'b'] });
    expect(toJson('- a\u2028- b\n')).toEqual({ json: ['a', 'b'] });
    expect(toJson('- rolearn: x\u2029  username: y\n')).toEqual({ json: [{ rolearn: 'x', username: true }] });
  });

  it('accepts a byte-order mark at the start, and at column 0 of a later line', () => {
    expect(toJson('\ufeff- a\n')).toEqual({ json: ['a'] });
    expect(toJson('- a\n\ufeff- b\n')).toEqual({ error: "yaml: line 3: could not find expected ':'" });
  });

  it('reads the root node and ignores what follows it', () => {
    expect(toJson('[a, b] trailing ]]] {{\n')).toEqual({ json: ['a', 'b'] });
    expect(toJson('[a]\nfoo: [\n')).toEqual({ json: ['a'] });
  });

  it('reads the first document only', () => {
    expect(toJson('- a\n---\n- b\n')).toEqual({ json: ['a'] });
    expect(toJson('- a\n---\n- [b\n')).toEqual({ json: ['a'] });
  });

  it('accepts unindented continuation lines of quoted scalars and flow lists', () => {
    expect(toJson("- 'a\nb'\n")).toEqual({ json: ['a b'] });
    expect(toJson('- groups: [a,\nb]\n')).toEqual({ json: [{ groups: ['a', 'b'] }] });
  });

  it('accepts a lone CR as a line ending', () => {
    expect(toJson('- a\r- b\r')).toEqual({ json: ['a', 'b'] });
  });

  it('accepts a comment right after a bracket or a quote', () => {
    expect(toJson('[a]#c\n')).toEqual({ json: ['a'] });
    expect(toJson("['a']#c\n")).toEqual({ json: ['a'] });
    expect(toJson('- "a"#c\n')).toEqual({ json: ['a'] });
  });

  it('reads [-] as a list holding the string "-"', () => {
    expect(toJson('[-]\n')).toEqual({ json: ['-'] });
  });

  it('ends a block scalar at the end of the value without adding a newline', () => {
    expect(toJson('- |\n  text')).toEqual({ json: ['text'] });
    expect(toJson('- >\n  a\n  b')).toEqual({ json: ['a b'] });
  });

  it('resolves YAML 1.1 scalars and formats float keys the Go way', () => {
    expect(toJson('- yes\n- 0x10\n- 012\n- 08\n- .5_5\n- 0o\n- ~\n')).toEqual({
      json: [true, 16, 10, 8, 0.55, '0o', null],
    });
    expect(toJson('{1.5: a, 1e7: b}\n')).toEqual({ json: { '1.5': 'a', '1e+07': 'b' } });
  });
});

describe('go-yaml v2 port: Unmarshal into []string (mapAccounts)', () => {
  it('keeps the source text of scalars and skips mappings with a type error', () => {
    expect(strings('- 0x10\n- {a: 1}\n- "555"\n')).toEqual({
      values: ['0x10', '555'],
      error: 'yaml: unmarshal errors:\n  line 2: cannot unmarshal !!map into string',
    });
  });

  it('keeps the slice go-yaml sized before a failure part-way (decoded items, then empty strings)', () => {
    expect(strings('- !!int x\n')).toEqual({
      values: [''],
      error: 'yaml: cannot decode !!str `x` as a !!int',
    });
  });

  it('reports a mapping root as a type error and decodes nothing', () => {
    expect(strings('a: 1\n')).toEqual({
      values: [],
      error: 'yaml: unmarshal errors:\n  line 1: cannot unmarshal !!map into []string',
    });
  });
});
