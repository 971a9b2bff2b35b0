/**
 * `UpdateClusterConfig` records. One API call carries many kinds of update (its response's
 * `update.type`): the authentication mode (`AccessConfigUpdate`) is the only one the monitor
 * reads; every other kind — endpoint access, logging, upgrade policy, zonal shift, Auto Mode
 * compute/storage/network config, remote networks (hybrid nodes), deletion protection, control
 * plane scaling, egress, vended logs, component config, version rollback, capabilities — is
 * ignored with a reason naming it, whatever shape its request has (EKS adds such fields over time:
 * docs/eks-auth-semantics.md#updateclusterconfig-update-types). A record that changes the mode
 * together with other fields is still read. The mode comes from `requestParameters.accessConfig`,
 * else from the response's `update.params` (`AuthenticationMode`).
 */

import { AUTHENTICATION_MODES, type AuthenticationMode } from '../model.ts';
import * as z from '../zod-mini.ts';
import { type Handled, handler, isRecord, quote, REQ, RES, RecordProblem } from './cloudtrail-helpers.ts';
import { clusterShape, headerShape, responseOf, text } from './cloudtrail-schemas.ts';

/** The `update.type` values EKS's API model lists (botocore 1.43, SDK v3 3.11xx) for UpdateClusterConfig and its kin. */
export const CLUSTER_UPDATE_TYPES = [
  'AccessConfigUpdate',
  'EndpointAccessUpdate',
  'LoggingUpdate',
  'VpcConfigUpdate',
  'UpgradePolicyUpdate',
  'ZonalShiftConfigUpdate',
  'AutoModeUpdate',
  'RemoteNetworkConfigUpdate',
  'DeletionProtectionUpdate',
  'CapabilityUpdate',
  'ControlPlaneScalingConfigUpdate',
  'VendedLogsUpdate',
  'ControlPlaneEgressUpdate',
  'VersionRollback',
  'ControlPlaneComponentConfigUpdate',
  'CertificateAuthorityUpdate',
] as const;

/** Request fields that name no kind of update. */
const NOT_AN_UPDATE = new Set(['name', 'clusterName', 'clientRequestToken']);
const PLAIN_NAME = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

const lenient = z.looseObject({
  ...headerShape,
  requestParameters: z.nullish(z.unknown()),
  responseElements: z.optional(z.unknown()),
});

const strict = z.looseObject({
  ...headerShape,
  requestParameters: z.looseObject({
    ...clusterShape,
    accessConfig: z.nullish(z.looseObject({ authenticationMode: z.nullish(text()) })),
  }),
  responseElements: responseOf({}),
});

interface ResponseUpdate {
  type?: unknown;
  /** The `AuthenticationMode` param's value, when the response lists one. */
  mode?: unknown;
  modeIndex?: number;
}

function responseUpdate(response: unknown): ResponseUpdate {
  const update = isRecord(response) ? response.update : undefined;
  if (!isRecord(update)) return {};
  const params = Array.isArray(update.params) ? update.params : [];
  const modeIndex = params.findIndex((p) => isRecord(p) && p.type === 'AuthenticationMode');
  const param = params[modeIndex] as Record<string, unknown> | undefined;
  return {
    type: update.type,
    ...(param === undefined || param.value == null ? {} : { mode: param.value, modeIndex }),
  };
}

/** `DeletionProtectionUpdate (deletionProtection)`: what kind of update the record is, from data the caller wrote. */
function updateKind(request: Record<string, unknown>, type: unknown): string {
  const named = (s: string) => (PLAIN_NAME.test(s) ? s : quote(s));
  const fields = Object.keys(request).filter((k) => !NOT_AN_UPDATE.has(k));
  const shown = fields.slice(0, 5).map(named).join(', ');
  const more = fields.length > 5 ? ` and ${fields.length - 5} more` : '';
  const kind = typeof type === 'string' && type !== '' ? named(type) : 'update';
  return fields.length === 0 ? kind : `${kind} (${shown}${more})`;
}

function checkMode(mode: unknown, path: (string | number)[]): AuthenticationMode {
  if (typeof mode === 'string' && (AUTHENTICATION_MODES as readonly string[]).includes(mode))
    return mode as AuthenticationMode;
  throw new RecordProblem(
    path,
    `unknown authentication mode ${quote(mode)} (expected one of ${AUTHENTICATION_MODES.join(', ')})`,
  );
}

const readMode = (fromResponse: ResponseUpdate) =>
  handler(strict, ({ requestParameters: req }) => {
    const requested = req.accessConfig?.authenticationMode;
    if (requested != null)
      return {
        kind: 'set-auth-mode',
        mode: checkMode(requested, [REQ, 'accessConfig', 'authenticationMode']),
      };
    if (fromResponse.mode !== undefined)
      return {
        kind: 'set-auth-mode',
        mode: checkMode(fromResponse.mode, [RES, 'update', 'params', fromResponse.modeIndex ?? 0, 'value']),
      };
    return {
      ignore:
        'UpdateClusterConfig AccessConfigUpdate without an authentication mode: not an authentication change',
    };
  });

/** UpdateClusterConfig → `set-auth-mode`, or ignored with the kind of update it is. Throws RecordProblem. */
export function updateClusterConfig(record: unknown): Handled {
  const first = lenient.safeParse(record, { reportInput: true });
  if (!first.success) return { ok: false, issues: first.error.issues };
  const request = isRecord(first.data.requestParameters) ? first.data.requestParameters : {};
  const update = responseUpdate(first.data.responseElements);
  const requested = isRecord(request.accessConfig) ? request.accessConfig.authenticationMode : undefined;
  if (requested == null && update.mode === undefined && update.type !== 'AccessConfigUpdate') {
    return {
      ok: true,
      header: { ...first.data, requestParameters: {} },
      change: {
        ignore: `UpdateClusterConfig ${updateKind(request, update.type)}: not an authentication change`,
      },
    };
  }
  return readMode(update)(record);
}

// ---------------------------------------------------------------------------------------------
// Cluster CA rotation: CreateCertificateAuthority, ActivateCertificateAuthority

const caIdShape = z.optional(text());

export const certificateAuthorityHandlers = {
  CreateCertificateAuthority: handler(
    z.looseObject({
      ...headerShape,
      requestParameters: z.looseObject({ ...clusterShape }),
      responseElements: responseOf({
        certificateAuthority: z.optional(z.looseObject({ id: caIdShape })),
      }),
    }),
    ({ responseElements: res }) => {
      const id = res?.certificateAuthority?.id;
      return {
        kind: 'create-certificate-authority',
        ...(id === undefined ? {} : { certificateAuthorityId: id }),
      };
    },
  ),
  ActivateCertificateAuthority: handler(
    z.looseObject({
      ...headerShape,
      requestParameters: z.looseObject({ ...clusterShape, certificateAuthorityId: text() }),
      responseElements: responseOf({}),
    }),
    ({ requestParameters: req }) => ({
      kind: 'activate-certificate-authority',
      certificateAuthorityId: req.certificateAuthorityId,
    }),
  ),
};
export const CERTIFICATE_AUTHORITY_EVENTS = [
  'CreateCertificateAuthority',
  'ActivateCertificateAuthority',
] as const;
