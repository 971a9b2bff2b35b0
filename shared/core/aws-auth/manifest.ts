/**
 * Whole-manifest reading (`kubectl get cm aws-auth -o yaml`, or `-o json`): `configMapDataFromManifest`
 * takes `data` out of a ConfigMap manifest and rejects what the API server would refuse to store.
 * The manifest is read as `kubectl apply` reads it: sigs.k8s.io/yaml over go-yaml v2 (the port in
 * `goyaml/`; JSON is a YAML flow mapping to it).
 */
import { DecodeFailure } from './decode-failure.ts';
import { truncate } from './go-text.ts';
import { goYamlToJVal } from './go-yaml-front.ts';
import { describeJVal, type JVal } from './json-decode.ts';
import { LineIndex } from './line-index.ts';

/** Levels read: the manifest, `data` / `metadata`, their values (deeper ones keep only their kind). */
const MANIFEST_DEPTH = 3;

const CONFIG_MAP_KEY_RE = /^[-._a-zA-Z0-9]+$/;

export type ConfigMapManifestResult =
  | { ok: true; data: Record<string, string>; resourceVersion?: string }
  | { ok: false; error: string; line?: number };

/**
 * Reads `data` from a ConfigMap manifest. Rejects what the API server would refuse to store: a
 * data value that is not a string (e.g. `mapRoles:` without `|`, upstream `aws-auth-missing-bar.yaml`)
 * or an invalid data key.
 */
export function configMapDataFromManifest(yamlText: string): ConfigMapManifestResult {
  let lc: LineIndex | undefined;
  const fail = (error: string, pos?: number): ConfigMapManifestResult =>
    pos !== undefined && lc !== undefined
      ? { ok: false, error, line: lc.linePos(pos).line }
      : { ok: false, error };
  try {
    if (typeof yamlText !== 'string') return fail('the manifest is not a string');
    lc = LineIndex.of(yamlText);
    let json: JVal;
    try {
      json = goYamlToJVal(yamlText, MANIFEST_DEPTH);
    } catch (e) {
      if (!(e instanceof DecodeFailure)) throw e;
      return fail(`the manifest is not valid YAML: ${e.message}`, e.offset);
    }
    if (json.t !== 'object')
      return fail('the manifest is not a mapping (expected a ConfigMap object)', json.pos);
    const field = (obj: JVal & { t: 'object' }, name: string) =>
      obj.entries.find((e) => e.key === name)?.value;
    const kind = field(json, 'kind');
    if (kind !== undefined && !(kind.t === 'string' && kind.v === 'ConfigMap')) {
      return fail(
        `the manifest is not a ConfigMap (kind: ${kind.t === 'string' ? kind.v : describeJVal(kind)})`,
        kind.pos,
      );
    }
    const data: Record<string, string> = {};
    const dataVal = field(json, 'data');
    if (dataVal !== undefined && dataVal.t !== 'null') {
      if (dataVal.t !== 'object') {
        return fail(
          `creating the ConfigMap object fails: "data" is ${describeJVal(dataVal)}, not a mapping of strings`,
          dataVal.pos,
        );
      }
      for (const { key, keyPos, value } of dataVal.entries) {
        if (key.length > 253 || !CONFIG_MAP_KEY_RE.test(key) || key === '.' || key.startsWith('..')) {
          return fail(
            `creating the ConfigMap object fails: data key ${JSON.stringify(truncate(key, 60))} is not a valid ConfigMap key (alphanumerics, "-", "_" or ".")`,
            keyPos,
          );
        }
        if (value.t === 'null') data[key] = '';
        else if (value.t === 'string') data[key] = value.v;
        else {
          const bar = value.t === 'array' || value.t === 'object' ? ` (missing "|" after "${key}:"?)` : '';
          return fail(
            `creating the ConfigMap object fails: data.${key} is ${describeJVal(value)}, but ConfigMap data values must be strings${bar}`,
            keyPos,
          );
        }
      }
    }
    const metadata = field(json, 'metadata');
    const rv = metadata?.t === 'object' ? field(metadata, 'resourceVersion') : undefined;
    return rv?.t === 'string' ? { ok: true, data, resourceVersion: rv.v } : { ok: true, data };
  } catch (e) {
    return fail(`internal error while reading the manifest: ${String(e)}`);
  }
}
