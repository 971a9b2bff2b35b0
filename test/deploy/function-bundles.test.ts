/**
 * What the onEksEvent bundle carries (scripts/bundle-functions.mjs), and that the two SDK plugins
 * of the function bundles (scripts/sdk-bundle-plugins.mjs) only rewrite sources into ones of the
 * same meaning: every schema module of the SDK clients the functions use exports the same values
 * built with and without them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a build script without type declarations
import { inlineSchemaKeys, sdkSchemaKeys, usesOnlyVersion } from '../../scripts/sdk-bundle-plugins.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
let work: string;
let meta: Record<string, { bytes: number; initBytes: number; packages: string[]; sources: string[] }>;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'function-bundles-'));
  execFileSync(process.execPath, ['scripts/bundle-functions.mjs', '--outdir', work, 'onEksEvent'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  meta = JSON.parse(readFileSync(join(work, 'meta.json'), 'utf8'));
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the onEksEvent bundle', () => {
  it('carries the event path, without the parity rules, EC2, IAM or @kubernetes/client-node', () => {
    const { sources, packages } = meta.onEksEvent ?? { sources: [], packages: [] };
    expect(sources).toContain('shared/app/handle-eks-event.ts');
    expect(sources).toContain('shared/core/rules/monitor-rules.ts');
    expect(sources.filter((s) => /parity/.test(s))).toEqual([]);
    for (const p of ['@aws-sdk/client-ec2', '@aws-sdk/client-iam', '@kubernetes/client-node'])
      expect(packages).not.toContain(p);
  });

  it('loads at init only its entry and the chunks it imports statically, not the on-demand ones', () => {
    const dir = join(work, 'onEksEvent');
    const files = ['index.js', ...readdirSync(join(dir, 'chunks')).map((f) => `chunks/${f}`)].filter((f) =>
      f.endsWith('.js'),
    );
    const text = files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    // The clients of the SDK's credential providers that a Lambda with environment credentials
    // never calls: imported with import() only, never statically. (The browser user-agent
    // parser, `bowser`, is a chunk nothing imports once tree shaking dropped its caller.)
    for (const onDemand of ['sts-', 'sso-oidc-', 'signin-', 'bowser-']) {
      expect(
        files.some((f) => f.startsWith(`chunks/${onDemand}`)),
        onDemand,
      ).toBe(true);
      expect(text, onDemand).not.toMatch(new RegExp(`from"\\./(?:chunks/)?${onDemand}`));
      if (onDemand !== 'bowser-')
        expect(text, onDemand).toMatch(new RegExp(`import\\("\\./(?:chunks/)?${onDemand}`));
    }
    const { bytes = 0, initBytes = 0 } = meta.onEksEvent ?? {};
    expect(initBytes).toBeLessThan(bytes);
  });

  it('loads on its own (module init, as a cold start does)', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        'const m = await import(process.argv.at(-1)); process.stdout.write(typeof m.handler);',
        pathToFileURL(join(work, 'onEksEvent', 'index.js')).href,
      ],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
    );
    expect(out).toBe('function');
  });
});

describe('sdkSchemaKeys', () => {
  it('writes a computed key of a file constant as the string, and leaves any other key alone', () => {
    const source = [
      'const _hH = "httpHeader";',
      'const _q = "a \\"quoted\\" name";',
      'export var A$ = [3, n0, _A, 0, [_B], [[0, { [_hH]: _x }], [0, { [_q]: 1, [_hH]: 2 }]]];',
      'export var B$ = [3, n0, _B, 0, [_B], [[0, { [other]: 1 }]]];',
    ].join('\n');
    expect(inlineSchemaKeys(source).split('\n').slice(2)).toEqual([
      'export var A$ = [3, n0, _A, 0, [_B], [[0, { "httpHeader": _x }], [0, { "a \\"quoted\\" name": 1, "httpHeader": 2 }]]];',
      'export var B$ = [3, n0, _B, 0, [_B], [[0, { [other]: 1 }]]];',
    ]);
  });

  /** The schema modules of the SDK clients in package.json, nested clients (STS, SSO, …) included. */
  const schemaFiles = (): string[] => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const dirs = [
      ...Object.keys(pkg.dependencies)
        .filter((d) => d.startsWith('@aws-sdk/client-'))
        .map((d) => join(ROOT, 'node_modules', d, 'dist-es')),
      join(ROOT, 'node_modules', '@aws-sdk', 'nested-clients', 'dist-es'),
    ];
    return dirs.flatMap((dir) =>
      (readdirSync(dir, { recursive: true }) as string[])
        .filter((f) => /(?:^|\/)schemas\/schemas_\d+\.js$/.test(f))
        .map((f) => join(dir, f)),
    );
  };

  /** Every export of `file`, bundled as is or through the plugin, as one comparable string. */
  async function exportsOf(file: string, plugins: unknown[], name: string): Promise<string> {
    const out = join(work, `${name}.mjs`);
    await build({
      absWorkingDir: ROOT,
      stdin: { contents: `export * from ${JSON.stringify(file)};`, resolveDir: ROOT, loader: 'js' },
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      mainFields: ['module', 'main'],
      plugins: plugins as never[],
      logLevel: 'error',
    });
    const mod = (await import(pathToFileURL(out).href)) as Record<string, unknown>;
    return JSON.stringify(mod, (_key, value: unknown) => {
      if (typeof value === 'function') return `fn ${value.toString()}`;
      if (value instanceof Map) return { map: [...value] };
      return value;
    });
  }

  it('every schema module of the bundled SDK clients exports the same shapes with the plugin', async () => {
    const files = schemaFiles();
    expect(files.length).toBeGreaterThanOrEqual(10);
    let rewritten = 0;
    for (const [i, file] of files.entries()) {
      const source = readFileSync(file, 'utf8');
      if (inlineSchemaKeys(source) !== source) rewritten++;
      const plain = await exportsOf(file, [], `plain-${i}`);
      const inlined = await exportsOf(file, [sdkSchemaKeys], `inlined-${i}`);
      expect(inlined.length, file).toBe(plain.length);
      expect(inlined === plain, file).toBe(true);
    }
    // The plugin still finds its pattern in this SDK version (else it would silently do nothing).
    expect(rewritten).toBeGreaterThanOrEqual(files.length / 2);
  }, 120_000);
});

describe('sdkPackageVersion', () => {
  it('takes over a manifest import only when the importer reads nothing but its version', () => {
    const importing = 'import packageInfo from "../package.json";\n';
    expect(usesOnlyVersion(`${importing}f({ clientVersion: packageInfo.version });`, '../package.json')).toBe(
      true,
    );
    expect(usesOnlyVersion(`${importing}f(packageInfo.version, packageInfo.name);`, '../package.json')).toBe(
      false,
    );
    expect(usesOnlyVersion(`${importing}f(packageInfo);`, '../package.json')).toBe(false);
    expect(usesOnlyVersion(`${importing}f(packageInfo.version);`, '../../package.json')).toBe(false);
    expect(usesOnlyVersion('import { version } from "../package.json";', '../package.json')).toBe(false);
  });

  it('the bundle still carries each client version for the user agent', () => {
    const text = readFileSync(join(work, 'onEksEvent', 'index.js'), 'utf8');
    for (const client of ['client-eks', 'client-s3', 'client-ssm']) {
      const { name, version } = JSON.parse(
        readFileSync(join(ROOT, 'node_modules', '@aws-sdk', client, 'package.json'), 'utf8'),
      ) as { name: string; version: string };
      expect(text).toContain(`name:${JSON.stringify(name)},version:${JSON.stringify(version)}`);
    }
  });
});
