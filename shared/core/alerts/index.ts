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
  planSlackThreads,
  recordsToKeep,
  type SlackThreadPlan,
  type SlackThreadRef,
  type ThreadedRecord,
  type ThreadReplies,
  threadBoard,
  threadKey,
  threadOfRecord,
} from './threads.ts';
