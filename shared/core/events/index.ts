/**
 * The entry of `shared/core/events/`: what code outside `shared/core` imports from this folder.
 */
export { clusterNameIn, type EksEventParse, parseEksEvent } from './cloudtrail.ts';
