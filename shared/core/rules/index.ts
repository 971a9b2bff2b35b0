/**
 * The entry of `shared/core/rules/`: what code outside `shared/core` imports from this folder.
 */
export { awsAuthWriterActor } from './aws-auth-entry-removed.ts';
export {
  type AlertSeen,
  ATTRIBUTION_WINDOW_MS,
  type AttributedWrite,
  attributeWrite,
  WRITE_ATTRIBUTED,
} from './aws-auth-write-attributed.ts';
export {
  blindsTheMonitor,
  clusterUnreadableFinding,
  SOURCE_UNAVAILABLE,
  storedSnapshotUnreadableFinding,
} from './monitor-source-unavailable.ts';
export { RULES } from './registry.ts';
