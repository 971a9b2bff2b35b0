/**
 * The checks of the precompiled snapshot validator (`accept.ts`), as data: what a value must be,
 * as the zod schema says it (only the constructs the schema uses). Its own file so that the
 * generated shapes (`shape.generated.ts`) and the validator that compiles them both import it.
 */
export type Shape =
  | { string: RegExp[]; minLength?: number }
  | { int: true; min: number }
  | 'boolean'
  | { oneOf: Array<string | number | boolean> }
  | { array: Shape }
  | { record: Shape }
  | { object: Record<string, Shape>; optional?: string[] }
  | { union: string; options: Record<string, Shape> };
