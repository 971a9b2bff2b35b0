/** The output formats, apart from the renderers: argument parsing and help need only the names. */
export const RENDER_FORMATS = ['text', 'markdown', 'json'] as const;
export type RenderFormat = (typeof RENDER_FORMATS)[number];

/** `migrate`'s output formats: the plan, not findings. */
export const MIGRATE_FORMATS = ['text', 'json', 'terraform', 'aws-cli'] as const;
export type MigrateFormat = (typeof MIGRATE_FORMATS)[number];

/** `report` also writes one self-contained HTML page. */
export const REPORT_FORMATS = [...RENDER_FORMATS, 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
