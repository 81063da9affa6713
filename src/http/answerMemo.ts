import { LRUCache } from 'lru-cache';
import type { Group } from '../domain/model.js';
import { type Payload, payloadOf } from './respond.js';

/** How many groups' answers a server keeps: the least recently sent is dropped past it. */
const answersKept = 1_000;

/**
 * The serialised answers to reads of unchanged groups (decision 10), one memo per server. The most frequent request
 * of all is a client fetching its group; the rule's answer then depends on the stored group object alone, which is
 * never changed in place (a change stores a new object), so its text is made once per group object and sent again
 * as it is. A changed group is a new key: nothing stale can be sent. Bounded: the `answersKept` groups whose answers
 * were sent most recently (`lru-cache`).
 */
export class AnswerMemo {
  readonly #answers = new LRUCache<Group, Payload>({ max: answersKept });

  /** The answer to a read that showed `group` unchanged, serialised once per group object. */
  answer(group: Group, body: unknown): Payload {
    let payload = this.#answers.get(group);
    if (payload === undefined) {
      payload = payloadOf(body);
      this.#answers.set(group, payload);
    }
    return payload;
  }
}
