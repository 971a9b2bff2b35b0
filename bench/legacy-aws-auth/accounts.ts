/**
 * The former mapAccounts decoder (benchmark only): go-yaml v2 Unmarshal straight into []string
 * (scalars keep their source text), with type errors per item and go-yaml's part-way failure.
 */
import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import { DecodeFailure } from '../../shared/core/aws-auth/decode-failure.ts';
import { truncate } from '../../shared/core/aws-auth/go-text.ts';
import type { AccountsResult } from '../../shared/core/aws-auth/go-yaml-front.ts';
import { GoYamlDecoder } from './go-yaml-decode.ts';
import { type LoadedYaml, nodeStart } from './yaml-load.ts';

function kindName(n: unknown): string {
  if (isMap(n)) return '!!map';
  if (isSeq(n)) return '!!seq';
  return '!!str';
}

export function decodeAccounts(loaded: LoadedYaml, text: string): AccountsResult {
  const dec = new GoYamlDecoder(loaded.doc, text);
  const res: AccountsResult = { accounts: [], typeErrors: [], isNull: false };
  let root = loaded.root;
  if (loaded.doc === undefined || root === null || root === undefined) return { ...res, isNull: true };
  while (isAlias(root)) root = dec.target(root);
  if (isScalar(root)) {
    const { r } = dec.resolveScalar(root, nodeStart(root, 0));
    if (r.tag === 'null') return { ...res, isNull: true };
    return {
      ...res,
      notAList: {
        pos: nodeStart(root, 0),
        what: `a scalar (${JSON.stringify(truncate(String(root.source ?? root.value), 40))})`,
      },
    };
  }
  if (!isSeq(root)) return { ...res, notAList: { pos: nodeStart(root, 0), what: 'a mapping' } };
  const items = root.items;
  try {
    items.forEach((item, index) => {
      const pos = nodeStart(item, nodeStart(root, 0));
      const one = (n: unknown): void => {
        if (isAlias(n)) {
          dec.withAlias(n, one);
          return;
        }
        if (n === null || n === undefined) {
          res.accounts.push({ value: '', pos, index });
          return;
        }
        if (isScalar(n)) {
          const { r, text: t } = dec.resolveScalar(n, pos);
          const value = r.tag === 'null' ? '' : r.tag === 'str' ? r.v : t;
          res.accounts.push({ value, pos, index });
          return;
        }
        res.typeErrors.push({
          pos,
          kind: 'type-mismatch',
          entryIndex: index,
          message: `mapAccounts item ${index} is a ${isMap(n) ? 'mapping' : 'list'}, not a string; the authenticator skips it (yaml: cannot unmarshal ${kindName(n)} into string)`,
          lost: `mapAccounts item ${index}`,
        });
      };
      one(item);
    });
  } catch (e) {
    if (!(e instanceof DecodeFailure)) throw e;
    res.hardFailure = e;
  }
  return res;
}
