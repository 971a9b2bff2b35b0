/** The output formats, apart from the renderers: argument parsing and help need only the names. */
export const RENDER_FORMATS = ['text', 'markdown', 'json'] as const;
export type RenderFormat = (typeof RENDER_FORMATS)[number];
