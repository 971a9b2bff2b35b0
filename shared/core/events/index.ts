/**
 * The entry of `shared/core/events/`: what code outside `shared/core` imports from this folder.
 */

export {
  type AuditChange,
  type AuditConfigMap,
  type AuditEventParse,
  type AuditIgnored,
  type AuditPayloadParse,
  type AuditVerb,
  actorOfAuditEvent,
  clusterOfLogGroup,
  MAX_LOG_EVENTS,
  parseAuditEvent,
  parseAuditSubscription,
} from './audit-subscription.ts';
export { clusterNameIn, type EksEventParse, parseEksEvent } from './cloudtrail.ts';
