import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedReadme, README } from '../../scripts/gen-readme.ts';
import { RULES } from '../../shared/core/rules/registry.ts';

describe('README', () => {
  const text = readFileSync(README, 'utf8');

  it('lists every rule of the registry, as generated (run npx tsx scripts/gen-readme.ts)', () => {
    expect(text).toBe(generatedReadme(text));
    for (const r of RULES) expect(text).toContain(`\`${r.id}\``);
  });

  it('opens with the two commands that work on a fresh clone', () => {
    const firstScreen = text.split('\n').slice(0, 30).join('\n');
    expect(firstScreen).toContain('npm start');
    expect(firstScreen).toContain('npm test');
  });
});
