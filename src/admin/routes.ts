import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiError } from '../errors.js';
import type { MockContext } from '../http/context.js';
import { errorReply, send } from '../http/respond.js';
import type { Controls } from './controls.js';

/** The `/__admin` routes (see openapi/admin.yaml). */
export function createAdminHandler(_context: MockContext, _controls: Controls) {
  return async (_req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    send(res, errorReply(apiError('ROUTE_NOT_FOUND', `no admin route at ${path}`)));
  };
}
