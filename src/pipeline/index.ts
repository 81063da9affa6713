export type { Diagnostic, Validation } from '../validate/diagnostic.js';
export { type RequestToValidate, type RequestValidation, validateRequest } from './validateRequest.js';
export {
  type ResponseToValidate,
  type ResponseValidation,
  type ResponseValidationOptions,
  validateResponse,
} from './validateResponse.js';
