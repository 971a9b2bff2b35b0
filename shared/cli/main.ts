#!/usr/bin/env node
/** Entry point of the `eks-auth-sentinel` command, run from source (the bundle: scripts/build.mjs). */
import { startCli } from './start.ts';

await startCli(import.meta.url);
