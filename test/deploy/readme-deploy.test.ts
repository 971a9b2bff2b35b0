import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_VARIABLES } from '../../shared/app/config.ts';
import { ROOT } from '../fakes/snapshot-builder.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const deploy = readme.slice(
  readme.indexOf('## Deploy'),
  readme.indexOf('\n## ', readme.indexOf('## Deploy') + 1),
);

describe('README "Deploy"', () => {
  it('documents every variable of the config schema, with its default', () => {
    expect(deploy.length).toBeGreaterThan(100);
    for (const [name, spec] of Object.entries(CONFIG_VARIABLES)) {
      const row = deploy.split('\n').find((line) => line.startsWith(`| \`${name}\``));
      expect(row, name).toBeDefined();
      expect(row).toContain(spec.required ? '| yes |' : '| no |');
      if ('default' in spec) expect(row).toContain(`\`${spec.default}\``);
    }
  });

  it('documents every parameter of serverless.yml', () => {
    // CloudFormation short tags are irrelevant here: read them as plain strings.
    const tags = ['!Ref', '!GetAtt', '!Sub', '!If', '!Not', '!Equals', '!Join'].map((tag) => ({
      tag,
      resolve: (v: unknown) => v,
    }));
    const sls = parse(readFileSync(join(ROOT, 'serverless.yml'), 'utf8'), {
      customTags: [...tags, ...tags.map((t) => ({ ...t, collection: 'seq' as const }))],
    }) as { params: Record<string, Record<string, unknown>> };
    const names = new Set([
      ...Object.keys(sls.params.default ?? {}),
      ...[...readFileSync(join(ROOT, 'serverless.yml'), 'utf8').matchAll(/\$\{param:(\w+)/g)].map(
        (m) => m[1] ?? '',
      ),
    ]);
    names.delete('target'); // internal: which values the functions' environment points at
    for (const name of names) expect(deploy, name).toContain(`\`${name}\``);
  });
});
