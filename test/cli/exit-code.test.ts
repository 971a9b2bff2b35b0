/** The exit code from a use case's exit intent and --fail-on: findings first, then what was not checked. */
import { describe, expect, it } from 'vitest';
import { EXIT, exitCode } from '../../shared/cli/output.ts';

describe('exitCode', () => {
  it('fails at or above the threshold, the command default without --fail-on', () => {
    const intent = { severities: ['medium', 'high'] as const, failOnDefault: 'critical' as const };
    expect(exitCode(intent, undefined)).toBe(EXIT.ok);
    expect(exitCode(intent, 'high')).toBe(EXIT.findings);
    expect(exitCode(intent, 'none')).toBe(EXIT.ok);
    expect(exitCode({ ...intent, severities: ['critical'] }, undefined)).toBe(EXIT.findings);
  });

  it('never fails on findings by default when the default is none (the demo)', () => {
    expect(exitCode({ severities: ['critical'], failOnDefault: 'none' }, undefined)).toBe(EXIT.ok);
    expect(exitCode({ severities: ['critical'], failOnDefault: 'none' }, 'critical')).toBe(EXIT.findings);
  });

  it('exits 2 for what could not be checked unless the findings already fail (after)', () => {
    const intent = {
      severities: ['critical'] as const,
      failOnDefault: 'critical' as const,
      incomplete: 'after' as const,
    };
    expect(exitCode(intent, undefined)).toBe(EXIT.findings);
    expect(exitCode(intent, 'none')).toBe(EXIT.usage);
    expect(exitCode({ ...intent, severities: [] }, undefined)).toBe(EXIT.usage);
  });

  it('exits 2 for what could not be read whatever the findings say (before)', () => {
    const intent = {
      severities: ['critical'] as const,
      failOnDefault: 'none' as const,
      incomplete: 'before' as const,
    };
    expect(exitCode(intent, 'info')).toBe(EXIT.usage);
  });
});
