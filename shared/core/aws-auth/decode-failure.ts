/** A failure that makes go-yaml / sigs.k8s.io/yaml reject the whole value. Internal only. */
export class DecodeFailure extends Error {
  override readonly name = 'DecodeFailure';
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}
