/**
 * The errors the sandbox services answer with: EKS (REST JSON: `x-amzn-errortype` + `{ message }`)
 * and the query-protocol services (XML `<ErrorResponse>`). Thrown by a handler, turned into the
 * service's error reply by its server.
 */
export class EksError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export class QueryError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
