/**
 * The part of `@pactflow/swagger-mock-validator`'s JavaScript API the tests use (the package ships no types).
 * `validate` compares a pact with an OpenAPI document the way PactFlow's bi-directional contract testing does.
 */
declare module '@pactflow/swagger-mock-validator' {
  export interface ValidationOutcome {
    readonly code: string;
    readonly message: string;
    readonly type: 'error' | 'warning';
    readonly mockDetails?: { readonly interactionDescription?: string; readonly location?: string };
    readonly specDetails?: { readonly location?: string };
  }

  export interface ValidationResult {
    readonly success: boolean;
    readonly failureReason?: string;
    readonly errors: readonly ValidationOutcome[];
    readonly warnings: readonly ValidationOutcome[];
  }

  export interface ValidateOptions {
    readonly specPathOrUrl: string;
    readonly mockPathOrUrl: string;
    readonly additionalPropertiesInResponse?: string;
    readonly requiredPropertiesInResponse?: string;
  }

  export const SwaggerMockValidatorFactory: {
    create(auth?: string): { validate(options: ValidateOptions): Promise<ValidationResult> };
  };
}
