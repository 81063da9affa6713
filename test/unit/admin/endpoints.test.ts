import { describe, expect, it } from 'vitest';
import type { Controls } from '../../../src/admin/controlsApi.js';
import { endpoints, hasControlsOf } from '../../../src/admin/endpoints.js';

/** Controls that have only the named ones (each a function that is never called here). */
const only = (...names: (keyof Controls)[]): Partial<Controls> =>
  Object.fromEntries(names.map((name) => [name, () => Promise.reject(new Error(`${name} called`))]));

const served = (controls: Partial<Controls>): string[] =>
  Object.entries(endpoints)
    .filter(([, endpoint]) => hasControlsOf(controls, endpoint))
    .map(([operationId]) => operationId)
    .sort();

describe('the admin endpoints', () => {
  it("serve, over the proxy's controls, the journal, reset, health and the documents, nothing of groups, tokens, tenants or faults", () => {
    const proxy = only('requests', 'clearRequests', 'droppedRequests', 'watchRequests', 'reset', 'health');
    expect(served(proxy)).toEqual(
      [
        'reset',
        'listRequests',
        'clearRequests',
        'streamRequests',
        'health',
        'liveness',
        'readiness',
        'adminDocumentJson',
        'adminDocumentYaml',
        'serviceDocumentJson',
        'serviceDocumentYaml',
      ].sort(),
    );
  });

  it('serve every operation over the full controls, and lack each operation whose control is missing', () => {
    // Every control, the compiler checks: a control added to Controls must be named here.
    const every: Record<keyof Controls, true> = {
      reset: true,
      seedGroup: true,
      groups: true,
      removeGroups: true,
      token: true,
      requests: true,
      clearRequests: true,
      droppedRequests: true,
      createTenant: true,
      deleteTenant: true,
      injectFault: true,
      faults: true,
      clearFaults: true,
      health: true,
      tenants: true,
      watchRequests: true,
    };
    const all = Object.keys(every) as (keyof Controls)[];
    expect(served(only(...all))).toEqual(Object.keys(endpoints).sort());
    const withoutDropped = served(only(...all.filter((name) => name !== 'droppedRequests')));
    expect(Object.keys(endpoints).filter((id) => !withoutDropped.includes(id))).toEqual(['listRequests']);
  });
});
