/**
 * The entry of `shared/core/snapshot/`: what code outside `shared/core` imports from this folder.
 */
export { acceptSnapshot } from './accept.ts';
export { findJsonSyntaxFault, lineAndColumn } from './json-fault.ts';
export { formatSnapshotErrors, parseSnapshotJson, validateSnapshot } from './snapshot-schema.ts';
