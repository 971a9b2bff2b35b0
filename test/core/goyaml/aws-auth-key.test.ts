/**
 * `decodeAwsAuthKey`: the authenticator's ParseMap for one data key over the go-yaml port. Each
 * expectation was recorded from tools/go-reference (ParseMap of aws-iam-authenticator 81b1dab;
 * the reference names the struct types `main.`, upstream and this port `config.`).
 */
import { describe, expect, it } from 'vitest';
import { decodeAwsAuthKey } from '../../../shared/core/aws-auth/goyaml/index.ts';

const ARN = 'arn:aws:iam::111122223333:role/x';

describe('decodeAwsAuthKey', () => {
  it('decodes the canonical entry', () => {
    const r = decodeAwsAuthKey(
      'mapRoles',
      `- rolearn: ${ARN}\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:bootstrappers\n    - system:nodes\n`,
    );
    expect(r).toMatchObject({ ok: true, skipped: false, errors: [] });
    expect(r.roles).toEqual([
      {
        rolearn: ARN,
        sso: null,
        username: 'system:node:{{EC2PrivateDNSName}}',
        groups: ['system:bootstrappers', 'system:nodes'],
        userid: '',
      },
    ]);
  });

  it('allocates sso for a string or a list, so the entry is then rejected', () => {
    const s = decodeAwsAuthKey('mapRoles', `- rolearn: ${ARN}\n  sso: AdminAccess\n`);
    expect(s.roles).toEqual([]);
    expect(s.errors).toEqual([
      'json: cannot unmarshal string into Go struct field RoleMapping.sso of type config.SSOARNMatcher',
      'only one of rolearn or SSO can be supplied',
    ]);
    const l = decodeAwsAuthKey('mapRoles', '- sso: [a]\n  username: u\n');
    expect(l.errors).toEqual([
      'json: cannot unmarshal array into Go struct field RoleMapping.sso of type config.SSOARNMatcher',
      "AccountID '' is not a valid AWS Account ID",
    ]);
  });

  it('decodes case-variant duplicates in sorted key order, reusing the slice (Groups: [a, b] then groups: [1])', () => {
    const r = decodeAwsAuthKey('mapRoles', `- rolearn: ${ARN}\n  Groups: [a, b]\n  groups: [1]\n`);
    expect(r.roles.map((x) => x.groups)).toEqual([['a']]);
    expect(r.errors).toEqual([
      'json: cannot unmarshal number into Go struct field RoleMapping.groups of type string',
    ]);
  });

  it('folds field names like Go 1.26 encoding/json: ſ matches s, ı and İ match nothing, é matches nothing', () => {
    expect(decodeAwsAuthKey('mapRoles', `- rolearn: ${ARN}\n  uſername: u\n`).roles[0]?.username).toBe('u');
    const r = decodeAwsAuthKey('mapRoles', `- rolearn: ${ARN}\n  usernamı: u\n  userİd: v\n  useriD: w\n`);
    // Only useriD folds to USERID: ı and İ are simple-folding orbits of their own.
    expect(r.roles[0]).toMatchObject({ username: '', userid: 'w' });
    const d = decodeAwsAuthKey('mapRoles', `- rolearn: ${ARN}\n  userıd: v\n`);
    expect(d.roles[0]).toMatchObject({ userid: '' });
    const n = decodeAwsAuthKey('mapRoles', `- rolearn: ${ARN}\n  usernamé: u\n`);
    expect(n.roles[0]).toMatchObject({ username: '' });
  });

  it('accepts the aws-eusc SSO partition', () => {
    const r = decodeAwsAuthKey(
      'mapRoles',
      '- sso:\n    permissionSetName: Admin\n    accountID: "111122223333"\n    partition: aws-eusc\n  username: u\n',
    );
    expect(r.roles[0]?.sso).toEqual({
      permissionSetName: 'Admin',
      accountID: '111122223333',
      partition: 'aws-eusc',
    });
  });

  it('adds no newline to a folded scalar at the very end of the value', () => {
    expect(decodeAwsAuthKey('mapRoles', `- rolearn: >\n    ${ARN}`).roles[0]?.rolearn).toBe(ARN);
  });

  it('fails mapAccounts on an unknown alias', () => {
    expect(decodeAwsAuthKey('mapAccounts', '- "111122223333"\n- *nope\n')).toMatchObject({
      ok: false,
      accounts: [],
      errors: ["yaml: unknown anchor 'nope' referenced"],
    });
  });

  it('passes a value starting with { through as JSON, which is not a list', () => {
    expect(decodeAwsAuthKey('mapUsers', ' {"userarn": "x"}')).toMatchObject({
      ok: false,
      users: [],
      errors: ['json: cannot unmarshal object into Go value of type []config.UserMapping'],
    });
  });

  it('skips empty and quoted-empty values', () => {
    for (const v of ['', ' \n', '""', "''", '``']) {
      expect(decodeAwsAuthKey('mapRoles', v)).toMatchObject({ ok: true, skipped: true, errors: [] });
    }
  });
});
