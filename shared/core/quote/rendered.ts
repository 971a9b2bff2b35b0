/** What a quoting layer returns: the code, or why the value cannot be written in that language. */
export type Rendered = { ok: true; text: string } | { ok: false; reason: string };

/** Thrown inside a layer to stop at the first value it cannot write; caught by the layer's entry point. */
export class Unrepresentable extends Error {
  override readonly name = 'Unrepresentable';
}

/** Runs `render`, turning an `Unrepresentable` into `{ ok: false }`. */
export function rendered(render: () => string): Rendered {
  try {
    return { ok: true, text: render() };
  } catch (e) {
    if (e instanceof Unrepresentable) return { ok: false, reason: e.message };
    throw e;
  }
}
