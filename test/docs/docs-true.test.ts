/**
 * Claims the docs make about the code, held to the code: what is "planned" or "not modelled" does
 * not exist yet, and the counts of CloudTrail calls the stack routes are the handled lists'.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, OPTIONS } from '../../shared/cli/options.ts';
import { HANDLED_EKS_EVENTS, HANDLED_IAM_EVENTS } from '../../shared/core/events/cloudtrail.ts';
import { RULES } from '../../shared/core/rules/registry.ts';
import { ROOT } from '../support/snapshot-builder.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The text under a `## heading` up to the next heading of the same or a higher level. */
function sections(markdown: string, heading: RegExp): string[] {
  const lines = markdown.split('\n');
  const out: string[] = [];
  lines.forEach((line, i) => {
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (!h?.[1] || !heading.test(h[2] ?? '')) return;
    const level = h[1].length;
    const end = lines.findIndex((l, j) => j > i && (/^(#{1,6})\s/.exec(l)?.[1]?.length ?? 99) <= level);
    out.push(lines.slice(i + 1, end === -1 ? undefined : end).join('\n'));
  });
  return out;
}

/** The bullets of a section (a bullet with its continuation lines). */
const bullets = (section: string) =>
  section
    .split(/\n(?=- )/)
    .filter((b) => b.startsWith('- '))
    .join('\n');

describe('docs: nothing that ships is called planned or not modelled', () => {
  const shipped = new Set<string>([
    ...COMMANDS,
    ...Object.keys(OPTIONS).map((o) => `--${o}`),
    ...RULES.map((r) => r.id),
  ]);
  // Rule families: `pod-identity/…` ships, so "Pod Identity" is no planned capability.
  const families = new Set(RULES.map((r) => r.id.split('/')[0] ?? ''));

  it.each(['docs/design.md', 'docs/eks-auth-semantics.md', 'README.md'])('%s', (file) => {
    const found = sections(read(file), /planned|not (yet )?modell?ed|not built|future work/i);
    if (file === 'docs/design.md') expect(found.length).toBe(1);
    for (const section of found) {
      const items = bullets(section);
      const tokens = [...items.matchAll(/`([^`]+)`|(--[a-z][a-z-]*)/g)].flatMap((m) =>
        (m[1] ?? m[2] ?? '').split(/\s+/),
      );
      expect(
        tokens.filter((t) => shipped.has(t)),
        `${file}: a shipped command, option or rule listed as planned`,
      ).toEqual([]);
      const bold = [...items.matchAll(/\*\*([^*]+)\*\*/g)].map((m) =>
        (m[1] ?? '').toLowerCase().replace(/\s+/g, '-'),
      );
      expect(
        bold.filter((b) => families.has(b)),
        `${file}: a rule family that ships listed as planned`,
      ).toEqual([]);
    }
  });
});

describe('docs: the CloudTrail calls the stack routes', () => {
  it('the README counts the EKS and IAM calls of the handled lists (which the EventBridge rules are held to)', () => {
    const m = /rules on the (\d+) EKS calls and the (\d+) IAM calls/.exec(
      read('README.md').replace(/\s+/g, ' '),
    );
    expect(m, 'README "What it creates"').not.toBeNull();
    expect(Number(m?.[1])).toBe(HANDLED_EKS_EVENTS.length);
    expect(Number(m?.[2])).toBe(HANDLED_IAM_EVENTS.length);
    const sls = read('serverless.yml');
    for (const name of [...HANDLED_EKS_EVENTS, ...HANDLED_IAM_EVENTS]) expect(sls).toContain(`- ${name}\n`);
  });

  it('docs/design.md#cloudtrail-events-handled names every handled call', () => {
    const [section = ''] = sections(read('docs/design.md'), /^CloudTrail events handled$/);
    for (const name of [...HANDLED_EKS_EVENTS, ...HANDLED_IAM_EVENTS])
      expect(section, name).toContain(`\`${name}\``);
  });

  it('the README says the forwarder must run in us-east-1 for the IAM calls, clusters there or not', () => {
    const [after = ''] = sections(read('README.md'), /^After the first deploy$/);
    expect(after.replace(/\s+/g, ' ')).toMatch(
      /forward-eks-events[^.]*\. Deploy it in \*\*us-east-1 too, even with no cluster there\*\*[^.]*IAM is global/,
    );
  });
});
