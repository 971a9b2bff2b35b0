/**
 * One version per release, said the same everywhere: package.json (what `--version` and every
 * report print), package-lock.json, the newest release of CHANGELOG.md (Keep a Changelog) and the
 * tag the README pins the Action to.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/fake-io.ts';

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { version: string };
const lock = JSON.parse(read('package-lock.json')) as {
  version: string;
  packages: Record<string, { version?: string }>;
};
const changelog = read('CHANGELOG.md');
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$/;

/** The `## [X.Y.Z] - YYYY-MM-DD` headings, newest first, as written. */
function releases(text: string): { version: string; date: string }[] {
  return [...text.matchAll(/^## \[([^\]]+)\](?: - (\S+))?$/gm)]
    .filter((m) => m[1] !== 'Unreleased')
    .map((m) => ({ version: m[1] ?? '', date: m[2] ?? '' }));
}

function compare(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => (SEMVER.exec(v) ?? []).slice(1, 4).map(Number));
  for (let i = 0; i < 3; i++) if (x?.[i] !== y?.[i]) return (x?.[i] ?? 0) - (y?.[i] ?? 0);
  return 0;
}

describe('the release version', () => {
  it('is semver in package.json and the same in package-lock.json', () => {
    expect(pkg.version).toMatch(SEMVER);
    expect(lock.version).toBe(pkg.version);
    expect(lock.packages['']?.version).toBe(pkg.version);
  });

  it("is CHANGELOG.md's newest release, under an Unreleased section, each release dated", () => {
    expect(changelog).toMatch(/^# Changelog$/m);
    const unreleased = changelog.indexOf('## [Unreleased]');
    const list = releases(changelog);
    expect(unreleased).toBeGreaterThan(-1);
    expect(unreleased).toBeLessThan(changelog.indexOf(`## [${list[0]?.version}]`));
    expect(list[0]?.version).toBe(pkg.version);
    for (const r of list) {
      expect(r.version).toMatch(SEMVER);
      expect(r.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    for (let i = 1; i < list.length; i++)
      expect(compare(list[i - 1]?.version ?? '', list[i]?.version ?? '')).toBeGreaterThan(0);
  });

  it('reads the headings it checks, and only them', () => {
    const text = '## [Unreleased]\n\n## [1.10.0] - 2027-01-02\n### Added\n## [1.9.3] - 2026-12-31\n';
    expect(releases(text)).toEqual([
      { version: '1.10.0', date: '2027-01-02' },
      { version: '1.9.3', date: '2026-12-31' },
    ]);
    expect(compare('1.10.0', '1.9.3')).toBeGreaterThan(0);
  });

  it('is the tag the README pins the Action to, and the README never points it at a branch', () => {
    const readme = read('README.md');
    const uses = [...readme.matchAll(/uses: <owner>\/eks-auth-sentinel@(\S+)/g)].map((m) => m[1]);
    expect(uses.length).toBeGreaterThan(0);
    for (const ref of uses) expect(ref).toBe(`v${pkg.version}`);
  });
});
