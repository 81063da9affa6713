import { type Group, groupKey, type World } from '../domain/model.js';
import type { Owned } from '../pipeline/pipelineRequest.js';
import { type Payload, payloadOf } from './respond.js';

/** How many groups' answers are kept; the memo starts afresh past it. */
const answersKept = 1_000;
const answers = new Map<Group, Payload>();

/**
 * The serialised answer to a read of an unchanged group (decision 10). The most frequent request of all is a client
 * fetching its group; the rule's answer then depends on the stored group object alone, which is never changed in
 * place (a change stores a new object), so its text is made once per group object and sent again as it is. A changed
 * group is a new key: nothing stale can be sent. Bounded: it starts afresh after `answersKept` groups.
 */
export function memoisedAnswer(group: Group, body: unknown): Payload {
  let payload = answers.get(group);
  if (payload === undefined) {
    if (answers.size >= answersKept) answers.clear();
    payload = payloadOf(body);
    answers.set(group, payload);
  }
  return payload;
}

/**
 * The stored group a get-or-create answered with, unchanged (none when it created one): the answer is then a
 * function of that group object alone, which keys the memo. Read in the tick the rule ran, from the same world.
 */
export function shownGroup(request: Owned, world: World): Group | undefined {
  const { operation, owner, body } = request;
  const id =
    typeof body === 'object' && body !== null && 'user_group_id' in body ? body.user_group_id : undefined;
  if (operation.operationId !== 'getOrCreateUserGroup' || typeof id !== 'string') return undefined;
  return world.tenants.get(owner.tenant)?.groups.get(groupKey(owner.environment, id));
}
