/** The admin document's request checks, generated at build time by Ajv's standalone code (scripts/build-ui.mjs). */
declare module 'user-group-mock:admin-checks' {
  import type { ValidateFunction } from 'ajv/dist/2020.js';
  export const SeedGroupRequest: ValidateFunction;
  export const FaultRequest: ValidateFunction;
}
