import type { Fault } from '../faults.js';

/** A row of `faults` as the driver returns it (bigint comes back as text, or as a number inside JSON). */
export interface FaultRow {
  readonly id: string | number;
  readonly operation_id: string | null;
  readonly status: number | null;
  readonly delay_ms: number;
  readonly action: string | null;
  readonly remaining: number;
}

/**
 * The common table expressions that claim the first fault of tenant `$tenant` due for operation `$operation`
 * (none when `$operation` is NULL): the row is locked while it is counted, so of two replicas taking at once each
 * takes one use, never the same one; a fault is removed with its last use. `claimed` holds the fault taken, if
 * any; `next` is not empty when one was due.
 */
export const claimFault = (tenant: string, operation: string): string => `
  next AS (
    SELECT id, remaining FROM faults
    WHERE ${operation}::text IS NOT NULL AND tenant = ${tenant} AND (operation_id IS NULL OR operation_id = ${operation})
    ORDER BY id LIMIT 1 FOR UPDATE
  ),
  gone AS (DELETE FROM faults f USING next WHERE f.id = next.id AND next.remaining <= 1 RETURNING f.*),
  kept AS (
    UPDATE faults f SET remaining = f.remaining - 1 FROM next WHERE f.id = next.id AND next.remaining > 1
    RETURNING f.*
  ),
  claimed AS (SELECT * FROM gone UNION ALL SELECT * FROM kept)`;

export const faultOf = (row: FaultRow): Fault => ({
  id: Number(row.id),
  operationId: row.operation_id as Fault['operationId'],
  status: row.status as Fault['status'],
  delay_ms: row.delay_ms,
  action: row.action as Fault['action'],
  remaining: row.remaining,
});
