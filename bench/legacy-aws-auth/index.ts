/**
 * The aws-auth parser's former YAML front end, kept only to measure the go-yaml v2 port against
 * (issue 9: the engine benchmark's parse share compared with the old path, in the same run).
 *
 * It read what the fast path does not with the `yaml` npm package (a YAML 1.2 parser, set to 1.1)
 * and patched libyaml's differences one by one (`go-yaml-decode.ts`, `go-yaml-resolve.ts`,
 * `yaml-load.ts`); 854 of 10,000 generated documents decoded differently from the authenticator.
 * The product (shared/, functions/, the CLI) does not import this folder, and `yaml` is a dev
 * dependency. The entry decoder, the fast path and the issue texts are the product's
 * (`parseAwsAuthWithFront`), so a comparison measures the front ends alone.
 */

import { isSeq } from 'yaml';
import { DecodeFailure } from '../../shared/core/aws-auth/decode-failure.ts';
import { compareCodePoints } from '../../shared/core/aws-auth/go-text.ts';
import type { AccountsResult } from '../../shared/core/aws-auth/go-yaml-front.ts';
import { formatFloatG } from '../../shared/core/aws-auth/goyaml/go-format.ts';
import type { JEntry, JVal } from '../../shared/core/aws-auth/json-decode.ts';
import { parseAwsAuthWithFront, type YamlFront } from '../../shared/core/aws-auth/parse.ts';
import type { ParsedAwsAuth } from '../../shared/core/aws-auth/parse-result.ts';
import { decodeAccounts } from './accounts.ts';
import { type GoVal, GoYamlDecoder } from './go-yaml-decode.ts';
import { INT64_MAX } from './go-yaml-resolve.ts';
import { loadYaml } from './yaml-load.ts';

/** Go `strconv.FormatFloat(f, 'g', -1, 32)` with sigs.k8s.io/yaml's `.inf`/`.nan` spellings (float map keys). */
function formatFloat32G(x: number): string {
  const s = formatFloatG(x, 32);
  return s === '+Inf' ? '.inf' : s === '-Inf' ? '-.inf' : s === 'NaN' ? '.nan' : s;
}

function jsonKey(k: GoVal): string {
  switch (k.t) {
    case 'str':
      return k.v;
    case 'int':
      if (k.v > INT64_MAX) {
        throw new DecodeFailure(`unsupported map key of type: uint64, key: ${k.v}`, k.pos);
      }
      return k.v.toString();
    case 'float':
      return formatFloat32G(k.v);
    case 'bool':
      return k.v ? 'true' : 'false';
    default:
      throw new DecodeFailure('unsupported map key of type: <nil> (an empty or null mapping key)', k.pos);
  }
}

function toJsonable(v: GoVal): JVal {
  switch (v.t) {
    case 'map': {
      const byKey = new Map<string, JEntry>();
      for (const e of v.entries) {
        const key = jsonKey(e.key);
        byKey.set(key, { key, keyPos: e.key.pos, value: toJsonable(e.value) });
      }
      const entries = [...byKey.values()].sort((a, b) => compareCodePoints(a.key, b.key));
      return { t: 'object', entries, pos: v.pos };
    }
    case 'seq':
      return { t: 'array', items: v.items.map(toJsonable), pos: v.pos };
    case 'float':
      if (!Number.isFinite(v.v)) {
        const name = Number.isNaN(v.v) ? 'NaN' : v.v > 0 ? '+Inf' : '-Inf';
        throw new DecodeFailure(`json: unsupported value: ${name}`, v.pos);
      }
      return { t: 'number', text: String(v.v), pos: v.pos };
    case 'int':
      return { t: 'number', text: v.v.toString(), pos: v.pos };
    case 'str':
      return { t: 'string', v: v.v, pos: v.pos, dashFold: v.dashFold };
    case 'bool':
      return { t: 'bool', v: v.v, pos: v.pos };
    default:
      return { t: 'null', pos: v.pos };
  }
}

const YAML_PACKAGE: YamlFront = {
  entries(text: string): JVal {
    const loaded = loadYaml(text);
    return toJsonable(new GoYamlDecoder(loaded.doc, text).value(loaded.root, 0));
  },
  accounts(text: string): AccountsResult & { total: number } {
    const loaded = loadYaml(text);
    const res = decodeAccounts(loaded, text);
    return { ...res, total: isSeq(loaded.root) ? loaded.root.items.length : res.accounts.length };
  },
};

/** `parseAwsAuth` as it was before the go-yaml port: fast path, then the `yaml`-package front end. */
export function parseAwsAuthLegacy(data: Record<string, string>): ParsedAwsAuth {
  return parseAwsAuthWithFront(data, YAML_PACKAGE);
}
