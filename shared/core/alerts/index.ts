/**
 * The entry of `shared/core/alerts/`: what code outside `shared/core` imports from this folder.
 */
export {
  type AlertRecord,
  CHANNELS,
  type Channel,
  type ChannelPolicy,
  type EvaluationScope,
  type LifecycleResult,
  type Notice,
  type PendingNotice,
  planAlerts,
  recordDeliveries,
} from './lifecycle.ts';
export {
  recordsToKeep,
  type SlackThreadRef,
  type ThreadedRecord,
  threadBoard,
  threadKey,
  threadOfRecord,
} from './threads.ts';
