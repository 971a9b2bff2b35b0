/**
 * Hostile `mapRoles` values for issue 8, cases 2 and 3 (shared by the CLI and the alert-renderer
 * tests): alias and depth bombs, a 1 MiB ConfigMap, control and bidi characters, and the node-role
 * scenario they are put into.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../scripts/gen-cli-golden.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';

export const NODE_ROLE = 'arn:aws:iam::111122223333:role/prod-node-role';
export const NODE_ENTRY = `- rolearn: ${NODE_ROLE}\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n  - system:bootstrappers\n  - system:nodes\n`;

/** The node-role scenario (two node groups, six nodes, CONFIG_MAP mode) with `mapRoles` replaced. */
export function scenarioWithMapRoles(mapRoles: string): ClusterSnapshot {
  const s = JSON.parse(
    readFileSync(join(REPO_ROOT, 'scenarios', 'a-two-nodegroups-share-role.json'), 'utf8'),
  ) as ClusterSnapshot;
  if (s.awsAuth.status !== 'ok') throw new Error('scenario without aws-auth');
  s.awsAuth = { ...s.awsAuth, data: { ...s.awsAuth.data, data: { mapRoles } } };
  return s;
}

/** `n` aliases of one anchor, each a list item: linear work, the authenticator keeps nothing. */
export function flatAliases(n: number): string {
  return `- &a x\n${'- *a\n'.repeat(n)}`;
}

/** The classic billion-laughs: nine levels of nine aliases; go-yaml refuses it (alias ratio). */
export function billionLaughs(): string {
  let s = 'a: &a [x, x, x, x, x, x, x, x, x]\n';
  let prev = 'a';
  for (const l of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']) {
    s += `${l}: &${l} [${Array(9).fill(`*${prev}`).join(', ')}]\n`;
    prev = l;
  }
  return s;
}

export const flowNest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
export const blockNest = (n: number) =>
  `${Array.from({ length: n }, (_, i) => `${' '.repeat(i)}- `).join('\n')}x\n`;

/** Realistic node, developer and admin entries up to `bytes`, the node entry first. */
export function realistic(bytes: number): string {
  const out: string[] = [NODE_ENTRY];
  let size = NODE_ENTRY.length;
  for (let i = 0; size < bytes; i++) {
    const e = `- rolearn: arn:aws:iam::111122223333:role/team-${i}-deployer\n  username: team-${i}:{{SessionName}}\n  groups:\n  - team-${i}-editors\n  - team-${i}-viewers\n`;
    out.push(e);
    size += e.length;
  }
  return out.join('');
}

/**
 * `n` entries that each break on a line of their own (`groups` a string, not a list) with a raw
 * right-to-left override and zero-width space in every broken line, before the node entry:
 * thousands of distinct broken lines, each one hostile. With `control`, the last entry's line also
 * holds a raw bell and escape sequence, which go-yaml refuses: the whole key fails.
 */
export function hostileBrokenLines(n: number, control = false): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const ctl = control && i === n - 1 ? '\u0007\u001b[2J' : '';
    out.push(
      `- rolearn: arn:aws:iam::111122223333:role/ops-${i}\n  username: ops-${i}\n  groups: sys\u202etem:masters\u200b${ctl}-${i}\n`,
    );
  }
  return `${out.join('')}${NODE_ENTRY}`;
}
