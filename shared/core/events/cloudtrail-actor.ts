/**
 * Who made a CloudTrail call: `userIdentity` (type, ARN, principal ID, the role of an assumed-role
 * session), `sourceIPAddress` and `userAgent`. Every field is optional and attacker-written: a
 * field of the wrong type is dropped (never fails the record); renderers sanitise what is kept.
 */
import type { Actor } from '../model.ts';
import * as z from '../zod-mini.ts';

const MAX_FIELD = 512;
const field = () => z.catch(z.optional(z.string()), undefined);

const actorRecord = z.looseObject({
  userIdentity: z.catch(
    z.optional(
      z.looseObject({
        type: field(),
        arn: field(),
        principalId: field(),
        sessionContext: z.catch(
          z.optional(
            z.looseObject({
              sessionIssuer: z.catch(z.optional(z.looseObject({ userName: field() })), undefined),
            }),
          ),
          undefined,
        ),
      }),
    ),
    undefined,
  ),
  sourceIPAddress: field(),
  userAgent: field(),
  eventID: field(),
});

const ASSUMED_ROLE = /^arn:[^:]*:sts::[^:]*:assumed-role\/([^/]+)\/(.+)$/;

function kept(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return value.length > MAX_FIELD ? value.slice(0, MAX_FIELD) : value;
}

/** The actor of a CloudTrail record, or undefined when it names no one. */
export function actorOfRecord(record: unknown): Actor | undefined {
  const parsed = actorRecord.safeParse(record);
  if (!parsed.success) return undefined;
  const { userIdentity: id, sourceIPAddress, userAgent, eventID } = parsed.data;
  const arn = kept(id?.arn);
  const assumed = arn === undefined ? null : ASSUMED_ROLE.exec(arn);
  const parts: Record<Exclude<keyof Actor, 'source'>, string | undefined> = {
    type: kept(id?.type),
    arn,
    principalId: kept(id?.principalId),
    sessionName: kept(assumed?.[2]),
    roleName: kept(id?.sessionContext?.sessionIssuer?.userName) ?? kept(assumed?.[1]),
    sourceIp: kept(sourceIPAddress),
    userAgent: kept(userAgent),
    canonicalArn: undefined,
    username: undefined,
    manager: undefined,
    operation: undefined,
    time: undefined,
    eventId: undefined,
  };
  const actor: Actor = { source: 'cloudtrail' };
  for (const [key, value] of Object.entries(parts) as [keyof typeof parts, string | undefined][]) {
    if (value !== undefined) actor[key] = value;
  }
  if (Object.keys(actor).length === 1) return undefined;
  // The record itself, for the CloudTrail event-history link (not who, so it names no one alone).
  const eventId = kept(eventID);
  if (eventId !== undefined) actor.eventId = eventId;
  return actor;
}
