/**
 * The two generic patch formats the Kubernetes API server accepts besides its own strategic merge:
 * JSON Patch (RFC 6902, `application/json-patch+json`) and JSON Merge Patch (RFC 7386,
 * `application/merge-patch+json`). Errors carry the text the API server's json-patch library gives.
 */

export class PatchError extends Error {
  constructor(
    message: string,
    /** 'bad-request' = the patch itself is malformed (400); 'unprocessable' = it does not apply (422). */
    readonly kind: 'bad-request' | 'unprocessable',
  ) {
    super(message);
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 7386: objects merge recursively, `null` removes a key, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function decodePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/'))
    throw new PatchError(`invalid JSON pointer: ${JSON.stringify(path)}`, 'bad-request');
  return path
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

interface Parent {
  container: Record<string, unknown> | unknown[];
  key: string;
}

function parentOf(doc: unknown, tokens: string[], path: string): Parent {
  let cur: unknown = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObject(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined)
      throw new PatchError(`doc is missing path: "${path}": missing value`, 'unprocessable');
  }
  if (!Array.isArray(cur) && !isObject(cur))
    throw new PatchError(`doc is missing path: "${path}": missing value`, 'unprocessable');
  return { container: cur as Record<string, unknown> | unknown[], key: tokens[tokens.length - 1] ?? '' };
}

function getAt(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  for (const t of decodePointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObject(cur)) cur = Object.hasOwn(cur, t) ? cur[t] : undefined;
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const tokens = decodePointer(path);
  if (tokens.length === 0) return structuredClone(value);
  const { container, key } = parentOf(doc, tokens, path);
  if (Array.isArray(container)) {
    const i = key === '-' ? container.length : Number(key);
    if (!Number.isInteger(i) || i < 0 || i > container.length)
      throw new PatchError(`add operation does not apply: doc is missing path: "${path}"`, 'unprocessable');
    container.splice(i, 0, structuredClone(value));
  } else container[key] = structuredClone(value);
  return doc;
}

function remove(doc: unknown, path: string): unknown {
  const tokens = decodePointer(path);
  const { container, key } = parentOf(doc, tokens, path);
  if (Array.isArray(container)) {
    const i = Number(key);
    if (!Number.isInteger(i) || i < 0 || i >= container.length)
      throw new PatchError(
        `remove operation does not apply: doc is missing path: "${path}"`,
        'unprocessable',
      );
    container.splice(i, 1);
  } else {
    if (!Object.hasOwn(container, key))
      throw new PatchError(
        `remove operation does not apply: doc is missing path: "${path}"`,
        'unprocessable',
      );
    delete container[key];
  }
  return doc;
}

/** RFC 6902 over a copy of `doc`; a failed `test` is an unprocessable patch, as the API server answers. */
export function jsonPatch(doc: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations))
    throw new PatchError(
      'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
      'bad-request',
    );
  let out: unknown = structuredClone(doc);
  for (const raw of operations) {
    if (!isObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string')
      throw new PatchError('Unexpected kind: invalid operation', 'bad-request');
    const { op, path } = raw;
    switch (op) {
      case 'add':
        out = add(out, path, raw.value);
        break;
      case 'remove':
        out = remove(out, path);
        break;
      case 'replace':
        if (getAt(out, path) === undefined)
          throw new PatchError(
            `replace operation does not apply: doc is missing key: ${path}: missing value`,
            'unprocessable',
          );
        out = add(remove(out, path), path, raw.value);
        break;
      case 'move':
      case 'copy': {
        if (typeof raw.from !== 'string') throw new PatchError(`${op} operation missing from`, 'bad-request');
        const value = getAt(out, raw.from);
        if (value === undefined)
          throw new PatchError(
            `${op} operation does not apply: doc is missing from path: ${raw.from}`,
            'unprocessable',
          );
        if (op === 'move') out = remove(out, raw.from);
        out = add(out, path, value);
        break;
      }
      case 'test':
        if (!deepEqual(getAt(out, path), raw.value))
          throw new PatchError(`testing value ${path} failed: test failed`, 'unprocessable');
        break;
      default:
        throw new PatchError(`Unexpected kind: ${op}`, 'bad-request');
    }
  }
  return out;
}
