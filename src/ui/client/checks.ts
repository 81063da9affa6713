import { FaultRequest, SeedGroupRequest } from 'user-group-mock:admin-checks';
import type { Diagnostic } from '../../spec/types.js';
import { diagnosticsFromAjv } from '../../validate/ajvDiagnostics.js';

type Check = typeof SeedGroupRequest;

const diagnosticsOf = (check: Check, value: unknown): Diagnostic[] =>
  check(value) ? [] : diagnosticsFromAjv(check.errors ?? [], '/body');

/**
 * The forms' bodies checked against openapi/admin.yaml before they are sent, by the checks generated from it at
 * build time, with the server's own wording of each problem.
 */
export const checkSeed = (value: unknown): Diagnostic[] => diagnosticsOf(SeedGroupRequest, value);
export const checkFault = (value: unknown): Diagnostic[] => diagnosticsOf(FaultRequest, value);

/** A number field's text as sent: a number when it is an integer, else the text (which the check refuses). */
export const numberOrText = (text: string): unknown => (/^-?\d+$/.test(text.trim()) ? Number(text) : text);

/** The form field a diagnostic points at (`/body/name` -> `name`), or '' for the body as a whole. */
export const fieldOf = (diagnostic: Diagnostic): string => diagnostic.path.split('/')[2] ?? '';
