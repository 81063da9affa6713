import type { Diagnostic } from '../spec/types.js';

/**
 * Every way a provider's answer can diverge from the reference model, each the rule it breaks in the words of the
 * description (docs/behaviour.md, the operation descriptions of openapi/user-group-service.yaml). The codes are
 * the provider's diagnostics in the proxy's journal and `conform`'s reports; docs/proxy.md and docs/conform.md
 * list them (test/unit/model/divergences.test.ts keeps the three in step).
 */
export const divergenceRules = {
  PROVIDER_GROUP_CREATED_AGAIN:
    'get-or-create of a known id returns the stored group with new_user_group: false',
  PROVIDER_GROUP_NOT_NEW: 'get-or-create of an unknown id creates the group and answers new_user_group: true',
  PROVIDER_GROUP_CHANGED_BY_GET:
    "get-or-create of a known id returns the stored group unchanged, even when the request's name or properties differ (PUT updates)",
  PROVIDER_UPDATE_NOT_KEPT:
    'update: fields present replace the stored ones, absent fields stay, and what an update stored is what later answers show',
  PROVIDER_PROPERTIES_MERGED: 'update: properties (and mapping) are replaced whole, never merged',
  PROVIDER_FIELD_DIFFERS: 'name and properties are answered as stored',
  PROVIDER_ID_NOT_ECHOED: 'provided_id is the user_group_id given, compared exactly as sent',
  PROVIDER_TOKEN_CHANGED: "only a rotation changes a group's token",
  PROVIDER_TOKEN_NOT_ROTATED: 'a rotation answers a new token',
  PROVIDER_ROTATED_TOKEN_ACCEPTED:
    'the old token stops working at once after a rotation (404 TOKEN_NOT_FOUND)',
  PROVIDER_TOKEN_REUSED:
    'a token is unique everywhere: never one another group holds or held, never one rotated away',
  PROVIDER_TEAM_ID_CHANGED: "a group's team_id never changes",
  PROVIDER_TEAM_ID_REUSED: 'team_id is unique across the whole service and never reused',
  PROVIDER_ENVIRONMENT_CHANGED: 'the environment (api_environment_tag) is decided by the API key',
  PROVIDER_ENVIRONMENT_CROSSED:
    'an id is unique within an environment and may exist once in each; a key sees only its own environment',
  PROVIDER_UNKNOWN_GROUP_UPDATED: 'update of an unknown id answers 404 GROUP_NOT_FOUND',
  PROVIDER_UNKNOWN_TOKEN_ROTATED:
    "rotate: current_token must be a group's current token in the key's environment, else 404 TOKEN_NOT_FOUND",
  PROVIDER_CALL_REFUSED:
    'a get-or-create, an update of a known id and a rotation of a current token succeed (200)',
  PROVIDER_STATUS_DIFFERS:
    'a refusal answers the status the description gives it (404 for an unknown id or token)',
} as const;

export type DivergenceCode = keyof typeof divergenceRules;

export const divergenceCodes = Object.keys(divergenceRules) as DivergenceCode[];

/** A divergence: where the answer differs (a JSON pointer into it), how, and the rule it breaks. */
export type Divergence = Diagnostic & { readonly code: DivergenceCode };

/** The divergence `code` at `path`: what the provider answered, then the rule in the description's words. */
export const divergence = (code: DivergenceCode, path: string, what: string): Divergence => ({
  code,
  path,
  message: `${what}; the rule: ${divergenceRules[code]}`,
});
