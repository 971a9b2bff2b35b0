/**
 * The entry of `shared/core/fixes/`: what code outside `shared/core` imports from this folder.
 */
export { dedupeFixCommands } from './dedupe.ts';
