/**
 * `zod/mini` (the tree-shakable functional API), configured as `zod` classic configures itself:
 * English messages and the container memoizer (cycle support), each only when none is set yet.
 * Import it as a namespace (`import * as z from './zod-mini.ts'`), not from 'zod/mini', so
 * messages stay those of classic zod. Re-exported with `export *`, never as a namespace value:
 * an exported namespace object keeps every export of zod/mini (all locales, the JSON Schema
 * generator, the compiler) in the bundle, whereas `z.member` accesses are tree-shaken.
 */
import * as z from 'zod/mini';
import { globalConfig } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

if (!globalConfig.localeError) z.config(en());
if (!globalConfig.memoizer) z.config({ memoizer: z.memoizer() });

/** Report a custom issue from a `z.transform` (zod/mini's context has no `addIssue`). */
export function addIssue(ctx: z.core.ParsePayload, message: string): void {
  ctx.issues.push({ code: 'custom', message, input: ctx.value });
}

export * from 'zod/mini';
