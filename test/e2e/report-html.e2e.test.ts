/**
 * The HTML report in a real browser: Debian's Chromium driven by playwright-core (headless, no
 * network of its own). The page is opened from the file the CLI wrote; every request is routed
 * and any but the file itself fails the test; the console must stay free of errors; the picture
 * must hold one node per principal and per compute group of the scenario; a screenshot is written
 * to test-artifacts/ (gitignored) for a person to look at.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/run-cli.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { analyzeSnapshot } from '../../shared/core/predict/analysis.ts';
import { ROOT } from '../support/snapshot-builder.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(ROOT, 'test-artifacts');
const SCENARIOS = join(ROOT, 'scenarios');

let browser: Browser;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'report-html-'));
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `report --snapshot FILE --format html --out PAGE` through the CLI's own code. */
async function writeReport(scenario: string): Promise<string> {
  const page = join(dir, `${scenario}.html`);
  const { createNodeIo } = await import('../../shared/cli/node-io.ts');
  const io = createNodeIo(import.meta.url);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(
    ['report', '--snapshot', join(SCENARIOS, `${scenario}.json`), '--format', 'html', '--out', page],
    { ...io, stdout: (t) => stdout.push(t), stderr: (t) => stderr.push(t) },
  );
  expect(code, stderr.join('')).toBeLessThanOrEqual(1);
  expect(stdout.join('')).toBe('');
  return page;
}

/** Principals and compute groups the scenario has, as the picture must show them. */
function expectedNodes(snapshot: ClusterSnapshot): { principals: number; compute: number } {
  const a = analyzeSnapshot(snapshot);
  const principals = new Set<string>();
  for (const r of a.index.roles.keys()) principals.add(r.replace(/:role\/.*\//, ':role/'));
  for (const u of a.index.usersByKey.keys()) principals.add(u);
  for (const e of a.accessEntries ?? [])
    principals.add(e.principalArn.toLowerCase().replace(/:role\/.*\//, ':role/'));
  for (const k of a.consumers.byRole.keys()) principals.add(k);
  const compute =
    (snapshot.nodegroups.status === 'ok' ? snapshot.nodegroups.data.length : 0) +
    (snapshot.fargateProfiles.status === 'ok' ? snapshot.fargateProfiles.data.length : 0) +
    (snapshot.karpenterNodeClasses?.status === 'ok' ? snapshot.karpenterNodeClasses.data.length : 0);
  return { principals: principals.size, compute };
}

describe('report --format html in Chromium', () => {
  it.each(['a-karpenter-shares-last-nodegroup-role', 'b-fargate-entry-removed-by-terraform'])(
    '%s: renders with no console error, no request leaving the page, one node per principal and compute group',
    async (scenario) => {
      const file = await writeReport(scenario);
      const url = pathToFileURL(file).href;
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const errors: string[] = [];
      const foreign: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      await context.route('**/*', (route) => {
        const requested = route.request().url();
        if (requested === url) return route.continue();
        foreign.push(requested);
        return route.abort();
      });
      const response = await page.goto(url, { waitUntil: 'load' });
      expect(response?.ok() ?? true).toBe(true);

      const snapshot = JSON.parse(
        readFileSync(join(SCENARIOS, `${scenario}.json`), 'utf8'),
      ) as ClusterSnapshot;
      const want = expectedNodes(snapshot);
      expect(await page.locator('svg g.node[data-kind="principal"]').count()).toBe(want.principals);
      expect(await page.locator('svg g.node[data-kind="compute"]').count()).toBe(want.compute);
      // the incident's path is marked (broken now in b, at risk of a deletion in a); its finding shown
      expect(await page.locator('svg g.node.broken, svg g.node.at-risk').count()).toBeGreaterThan(0);
      expect(await page.locator('article.finding[data-severity="critical"]').count()).toBeGreaterThan(0);
      expect(await page.locator('table.summary').isVisible()).toBe(true);
      const box = await page.locator('div.graph svg').boundingBox();
      expect(box?.width ?? 0).toBeGreaterThan(200);

      mkdirSync(ARTIFACTS, { recursive: true });
      const shot = join(ARTIFACTS, `report-${scenario}.png`);
      await page.screenshot({ path: shot, fullPage: true });
      expect(statSync(shot).size).toBeGreaterThan(10_000);
      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
      await context.close();
    },
  );
});
