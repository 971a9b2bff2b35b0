import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Notice } from '../../shared/core/alerts/lifecycle.ts';
import type { Finding } from '../../shared/core/model.ts';
import {
  alertLinks,
  cloudTrailEventLink,
  consoleOrigin,
  eksConsoleLink,
} from '../../shared/core/render/links.ts';
import { renderMarkdown } from '../../shared/core/render/markdown.ts';
import {
  renderSlackMessages,
  SLACK_LIMITS,
  shortenArns,
  slackHeader,
} from '../../shared/core/render/slack.ts';
import { renderSnsMessage } from '../../shared/core/render/sns.ts';
import { createFinding, TEST_CLUSTER } from '../support/findings.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 2000);
const ROLE = 'arn:aws:iam::111122223333:role/platform/KarpenterNodeRole-prod';

function eventFinding(overrides: Partial<Finding> = {}): Finding {
  return createFinding({
    trigger: 'event:DeleteNodegroup',
    title: `Deleting node group general removes ${ROLE} from aws-auth: 3 other node(s) lose access`,
    subject: ROLE,
    actor: {
      source: 'cloudtrail',
      sessionName: 'jane.doe',
      roleName: 'Admin',
      eventId: '1f9437c8-e639-4d07-a715-149b45a16694',
    },
    ...overrides,
  });
}

const opened = (finding: Finding): Notice => ({ kind: 'opened', finding, at: '2026-12-01T12:00:00Z' });

describe('console and CloudTrail links', () => {
  it('uses the console host of the partition, and none for a Region it cannot vouch for', () => {
    expect(consoleOrigin('eu-west-1')).toBe('https://eu-west-1.console.aws.amazon.com');
    expect(consoleOrigin('cn-north-1')).toBe('https://cn-north-1.console.amazonaws.cn');
    expect(consoleOrigin('us-gov-west-1')).toBe('https://us-gov-west-1.console.amazonaws-us-gov.com');
    expect(consoleOrigin('us-iso-east-1')).toBeUndefined();
    expect(consoleOrigin('eusc-de-east-1')).toBeUndefined();
    for (const bad of ['eu-west-1.evil.example', 'evil.example/#', 'EU-WEST-1', '', 'eu-west-1 ']) {
      expect(consoleOrigin(bad)).toBeUndefined();
      expect(alertLinks(createFinding({ cluster: { ...TEST_CLUSTER, region: bad } }))).toEqual([]);
    }
  });

  it('opens node and Fargate findings on the Compute tab, authentication ones on Access', () => {
    expect(eksConsoleLink(createFinding({ ruleId: 'nodes/role-unauthorized' }))?.url).toBe(
      'https://eu-west-1.console.aws.amazon.com/eks/home?region=eu-west-1#/clusters/prod?selectedTab=cluster-compute-tab',
    );
    expect(eksConsoleLink(createFinding({ ruleId: 'aws-auth/parse-failure' }))?.url).toBe(
      'https://eu-west-1.console.aws.amazon.com/eks/home?region=eu-west-1#/clusters/prod?selectedTab=cluster-access-tab',
    );
  });

  it('links the CloudTrail event of an event-triggered finding only', () => {
    expect(cloudTrailEventLink(eventFinding())?.url).toBe(
      'https://eu-west-1.console.aws.amazon.com/cloudtrailv2/home?region=eu-west-1#/events/1f9437c8-e639-4d07-a715-149b45a16694',
    );
    expect(cloudTrailEventLink(eventFinding({ trigger: 'schedule' }))).toBeUndefined();
    expect(cloudTrailEventLink(createFinding({ trigger: 'event:DeleteNodegroup' }))).toBeUndefined();
  });

  it('percent-encodes every attacker-written part: the URL keeps its host and decodes back to the value', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 120 }),
        fc.string({ minLength: 1, maxLength: 60 }),
        (name, eventId) => {
          const f = eventFinding({
            cluster: { ...TEST_CLUSTER, name },
            actor: { source: 'cloudtrail', arn: 'x', eventId },
          });
          const [console, trail] = alertLinks(f);
          for (const link of [console, trail]) {
            expect(link).toBeDefined();
            const url = new URL(link?.url ?? '');
            expect(url.origin).toBe('https://eu-west-1.console.aws.amazon.com');
            expect(url.search).toBe('?region=eu-west-1');
            expect(link?.url).toMatch(/^[\x21-\x7e]+$/);
            expect(link?.url).not.toMatch(/[<>()'"`!*]/);
          }
          const fragment = new URL(console?.url ?? '').hash;
          const encoded = /^#\/clusters\/([^?]*)\?selectedTab=cluster-compute-tab$/.exec(fragment)?.[1];
          expect(decodeURIComponent(encoded ?? '')).toBe(name);
          expect(decodeURIComponent(new URL(trail?.url ?? '').hash.slice('#/events/'.length))).toBe(eventId);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('are in Slack (rich-text links), SNS (one URL a line) and Markdown (angle-bracket links)', () => {
    const f = eventFinding({ cluster: { ...TEST_CLUSTER, name: 'prod)[x](<!channel>' } });
    const [consoleLink, trail] = alertLinks(f);
    const blocks = renderSlackMessages([opened(f)]).flatMap((m) => m.payload.blocks);
    const links = blocks.flatMap((b) =>
      b.type === 'rich_text' ? b.elements.flatMap((e) => e.elements.filter((x) => x.type === 'link')) : [],
    );
    expect(links).toEqual([
      { type: 'link', url: consoleLink?.url, text: 'EKS console (compute)' },
      { type: 'link', url: trail?.url, text: 'CloudTrail event' },
    ]);
    const sns = (JSON.parse(renderSnsMessage([opened(f)]).message) as { default: string }).default;
    expect(sns).toContain(`  EKS console (compute): ${consoleLink?.url}\n`);
    expect(sns).toContain(`  CloudTrail event: ${trail?.url}\n`);
    const md = renderMarkdown([f]);
    expect(md).toContain(
      `[EKS console (compute)](<${consoleLink?.url}>) · [CloudTrail event](<${trail?.url}>)`,
    );
    expect(consoleLink?.url).toContain('prod%29%5Bx%5D%28%3C%21channel%3E');
  });
});

describe('Slack header', () => {
  it('leads with severity, cluster and what happened; the ARN goes to the body', () => {
    const f = eventFinding();
    const header = slackHeader(opened(f));
    expect(header).toBe(
      ':red_circle: CRITICAL · prod · Deleting node group general removes role KarpenterNodeRole-prod from aws-auth: 3 other node(s) lose access',
    );
    expect(header).not.toContain('arn:aws');
    const [message] = renderSlackMessages([opened(f)]);
    const blocks = message?.payload.blocks ?? [];
    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: header, emoji: true } });
    expect(JSON.stringify(blocks.slice(1))).toContain(
      `Deleting node group general removes ${ROLE} from aws-auth`,
    );
  });

  it('keeps severity and cluster in 150 characters whatever the title', () => {
    const f = eventFinding({
      title: `${ROLE} `.repeat(20),
      cluster: { ...TEST_CLUSTER, name: 'p'.repeat(90) },
    });
    const header = slackHeader({ kind: 'escalated', finding: f, at: 'now' });
    expect(header.length).toBeLessThanOrEqual(SLACK_LIMITS.maxHeaderChars);
    expect(header).toMatch(/^:red_circle: CRITICAL \(escalated\) · p{39}… · role KarpenterNodeRole-prod /);
    expect(slackHeader({ kind: 'resolved', finding: f, at: 'now' })).toMatch(
      /^:white_check_mark: Resolved · p+…/,
    );
  });

  it('shortens role, user and assumed-role ARNs of any partition, path or not', () => {
    expect(
      shortenArns(
        'a arn:aws-cn:iam::111122223333:role/a/b/Node, arn:aws:iam::111122223333:user/jane and arn:aws-us-gov:sts::111122223333:assumed-role/Admin/s1',
      ),
    ).toBe('a role Node, user jane and role Admin');
  });

  it('does not repeat "role" after a title that already says it ("IAM role role x")', () => {
    expect(shortenArns('IAM role arn:aws:iam::111122223333:role/payments-api does not exist')).toBe(
      'IAM role payments-api does not exist',
    );
    expect(shortenArns('Node role arn:aws:iam::111122223333:role/team/prod-node-role may not call')).toBe(
      'Node role prod-node-role may not call',
    );
    expect(
      shortenArns('IAM user arn:aws:iam::111122223333:user/jane, then arn:aws:iam::111122223333:role/x'),
    ).toBe('IAM user jane, then role x');
  });
});
