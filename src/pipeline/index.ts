export type { Result } from '../result.js';
export type { Diagnostic } from '../validate/diagnostic.js';
export { type RequestToValidate, type RequestValidation, validateRequest } from './validateRequest.js';
export {
  type ResponseToValidate,
  type ResponseValidation,
  type ResponseValidationOptions,
  validateResponse,
} from './validateResponse.js';
