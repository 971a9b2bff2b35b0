/**
 * Writes shared/core/snapshot/shape.generated.ts, the checks of the precompiled ClusterSnapshot
 * validator (shared/core/snapshot/accept.ts), generated from the zod schema
 * (shared/core/snapshot/snapshot-schema.ts):
 *   npx tsx scripts/gen-snapshot-validator.ts          write it
 *   npx tsx scripts/gen-snapshot-validator.ts --check  exit 1 when the committed file is stale
 * The generator knows only the zod constructs the schema uses and fails on any other (a
 * transform, a default, a non-exact optional, a check it does not know), so that a schema change
 * cannot make the two validators disagree silently; test/core/snapshot-accept.property.test.ts
 * checks that they agree and that the committed file is fresh.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clusterSnapshotSchema } from '../shared/core/snapshot/snapshot-schema.ts';

// biome-ignore lint/suspicious/noExplicitAny: walks zod's internal definitions
type Node = any;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SHAPE_FILE = join(root, 'shared', 'core', 'snapshot', 'shape.generated.ts');

function unsupported(path: string, what: string): never {
  throw new Error(`gen-snapshot-validator: ${path}: ${what} is not supported; extend snapshot/accept.ts`);
}

/** Turns zod nodes into `Shape` literals; objects and unions become named constants. */
class Generator {
  readonly regexes = new Map<string, string>();
  readonly consts = new Map<string, { name: string; path: string }>();

  private regex(re: RegExp, path: string): string {
    if (re.global || re.sticky) unsupported(path, `the flag of /${re.source}/${re.flags}`);
    const text = `/${re.source}/${re.flags}`;
    if (!this.regexes.has(text)) this.regexes.set(text, `R${this.regexes.size}`);
    return this.regexes.get(text) as string;
  }

  private named(text: string, path: string): string {
    if (!this.consts.has(text)) this.consts.set(text, { name: `S${this.consts.size}`, path });
    return (this.consts.get(text) as { name: string }).name;
  }

  shape(node: Node, path: string): string {
    const def = node._zod.def;
    if (def.coerce) unsupported(path, 'coercion');
    const checks: Node[] = (def.checks ?? []).filter((c: Node) => c !== node);
    const noChecks = () => {
      if (checks.length > 0) unsupported(path, `the check "${checks[0]._zod.def.check}"`);
    };
    switch (def.type) {
      case 'string': {
        const patterns: string[] = [];
        let minLength = 0;
        // A string format (z.iso.datetime) checks its own pattern.
        if (def.format !== undefined) {
          if (!(def.pattern instanceof RegExp)) unsupported(path, `the string format "${def.format}"`);
          patterns.push(this.regex(def.pattern, path));
        }
        for (const check of checks) {
          const c = check._zod.def;
          if (c.check === 'string_format' && c.format === 'regex' && c.pattern instanceof RegExp)
            patterns.push(this.regex(c.pattern, path));
          else if (c.check === 'min_length' && (c.minimum === 0 || c.minimum === 1)) minLength = c.minimum;
          else unsupported(path, `the string check "${c.check}" (${c.format ?? c.minimum ?? ''})`);
        }
        return `{ string: [${patterns.join(', ')}]${minLength > 0 ? `, minLength: ${minLength}` : ''} }`;
      }
      case 'number': {
        // z.int() is a number format that checks itself (safe integer); then one inclusive minimum.
        const [min, ...rest] = checks.map((c) => c._zod.def);
        const ok =
          def.format === 'safeint' &&
          min?.check === 'greater_than' &&
          min.inclusive === true &&
          typeof min.value === 'number' &&
          rest.length === 0;
        if (!ok) unsupported(path, 'a number other than z.int() with one inclusive minimum');
        return `{ int: true, min: ${min.value} }`;
      }
      case 'boolean':
        noChecks();
        return "'boolean'";
      case 'literal':
      case 'enum': {
        noChecks();
        const values: unknown[] = def.type === 'literal' ? def.values : Object.values(def.entries);
        if (!values.every((x) => ['string', 'number', 'boolean'].includes(typeof x)))
          unsupported(path, 'a literal or enum value other than a string, number or boolean');
        return `{ oneOf: ${JSON.stringify(values)} }`;
      }
      case 'array':
        noChecks();
        return `{ array: ${this.shape(def.element, `${path}[]`)} }`;
      case 'record': {
        noChecks();
        const key = def.keyType._zod.def;
        if (key.type !== 'string' || (key.checks ?? []).length > 0 || def.mode === 'loose')
          unsupported(path, 'a record whose keys are not plain strings');
        return `{ record: ${this.shape(def.valueType, `${path}{}`)} }`;
      }
      case 'object': {
        noChecks();
        if (def.catchall?._zod.def.type !== 'never') unsupported(path, 'an object that is not strict');
        const fields: string[] = [];
        const optional: string[] = [];
        for (const key of Object.keys(def.shape)) {
          if (key === '__proto__') unsupported(path, 'the key __proto__');
          let field = def.shape[key];
          if (field._zod.def.type === 'optional') {
            if (!field._zod.traits.has('$ZodExactOptional'))
              unsupported(`${path}.${key}`, 'a non-exact optional');
            optional.push(key);
            field = field._zod.def.innerType;
          } else if (field._zod.optin !== undefined) {
            unsupported(`${path}.${key}`, 'an optional-in field');
          }
          fields.push(`${JSON.stringify(key)}: ${this.shape(field, `${path}.${key}`)}`);
        }
        const opt = optional.length > 0 ? `, optional: ${JSON.stringify(optional)}` : '';
        return this.named(`{ object: { ${fields.join(', ')} }${opt} }`, path);
      }
      case 'union': {
        noChecks();
        const tag: string | undefined = def.discriminator;
        if (tag === undefined || def.unionFallback)
          unsupported(path, 'a union that is not a discriminated union');
        const options: string[] = [];
        const seen = new Set<unknown>();
        def.options.forEach((option: Node, i: number) => {
          const disc = option._zod.def.shape?.[tag];
          if (disc?._zod.def.type !== 'literal')
            unsupported(`${path}|${i}`, 'a discriminator that is not a literal');
          const body = this.shape(option, `${path}|${i}`);
          for (const value of disc._zod.def.values) {
            if (typeof value !== 'string' || seen.has(value))
              unsupported(`${path}|${i}`, 'a discriminator value that is not a string, or used twice');
            seen.add(value);
            options.push(`${JSON.stringify(value)}: ${body}`);
          }
        });
        return this.named(`{ union: ${JSON.stringify(tag)}, options: { ${options.join(', ')} } }`, path);
      }
      default:
        return unsupported(path, `the zod type "${def.type}"`);
    }
  }
}

/** The generated file's text, formatted by the repo's Biome (as committed). */
export function generateSnapshotShape(): string {
  const gen = new Generator();
  const top = gen.shape(clusterSnapshotSchema(), '$');
  const text = [
    '// Generated by scripts/gen-snapshot-validator.ts from the zod schema of snapshot-schema.ts: do not',
    '// edit; run `npx tsx scripts/gen-snapshot-validator.ts` after changing the schema.',
    "import type { Shape } from './shape.ts';",
    '',
    ...[...gen.regexes].map(([re, name]) => `const ${name} = ${re};`),
    '',
    ...[...gen.consts].flatMap(([body, { name, path }]) => [
      `/** ${path} */`,
      `const ${name}: Shape = ${body};`,
    ]),
    '',
    '/** ClusterSnapshot (schemaVersion 1). */',
    `export const SNAPSHOT_SHAPE: Shape = ${top};`,
    '',
  ].join('\n');
  const biome = join(root, 'node_modules', '.bin', 'biome');
  return execFileSync(biome, ['format', `--stdin-file-path=${SHAPE_FILE}`], {
    cwd: root,
    input: text,
    encoding: 'utf8',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = generateSnapshotShape();
  if (process.argv.includes('--check')) {
    if (readFileSync(SHAPE_FILE, 'utf8') !== text) {
      console.error(`${SHAPE_FILE} is stale: run npx tsx scripts/gen-snapshot-validator.ts`);
      process.exit(1);
    }
    console.log(`${SHAPE_FILE} is up to date`);
  } else {
    writeFileSync(SHAPE_FILE, text);
    console.log(`wrote ${SHAPE_FILE}`);
  }
}
