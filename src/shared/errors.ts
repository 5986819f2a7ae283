/**
 * The one error module. Every error Gantry raises on purpose is a GantryError with a
 * stable code (GANTRY_E_...) and, where it reaches HTTP, the status and GitLab-shaped body.
 */
export type ErrorCode =
  | 'GANTRY_E_BAD_REQUEST'
  | 'GANTRY_E_MISSING_PARAM'
  | 'GANTRY_E_INVALID_PARAM'
  | 'GANTRY_E_VALIDATION'
  | 'GANTRY_E_UNAUTHORIZED'
  | 'GANTRY_E_FORBIDDEN'
  | 'GANTRY_E_NOT_FOUND'
  | 'GANTRY_E_METHOD_NOT_ALLOWED'
  | 'GANTRY_E_CONFLICT'
  | 'GANTRY_E_PAYLOAD_TOO_LARGE'
  | 'GANTRY_E_UNPROCESSABLE'
  | 'GANTRY_E_TOO_MANY_REQUESTS'
  | 'GANTRY_E_CLIENT_GONE'
  | 'GANTRY_E_GIT'
  | 'GANTRY_E_GIT_REF_CONFLICT'
  | 'GANTRY_E_CONFIG'
  | 'GANTRY_E_STORAGE'
  | 'GANTRY_E_INTERNAL';

/** The JSON body GitLab answers with: `{"message": ...}` or `{"error": ...}`. */
export type ErrorBody = { message: string | Record<string, string[]> } | { error: string; error_description?: string; scope?: string };

export class GantryError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly body: ErrorBody;

  constructor(code: ErrorCode, status: number, body: ErrorBody, options?: { cause?: unknown }) {
    super(describeBody(body), options);
    this.name = 'GantryError';
    this.code = code;
    this.status = status;
    this.body = body;
  }
}

function describeBody(body: ErrorBody): string {
  if ('error' in body) return body.error;
  return typeof body.message === 'string' ? body.message : JSON.stringify(body.message);
}

/** 400 `{"error":"title is missing"}` */
export function missingParam(name: string): GantryError {
  return new GantryError('GANTRY_E_MISSING_PARAM', 400, { error: `${name} is missing` });
}

/** 400 `{"error":"visibility does not have a valid value"}` */
export function invalidParam(name: string, reason = 'is invalid'): GantryError {
  return new GantryError('GANTRY_E_INVALID_PARAM', 400, { error: `${name} ${reason}` });
}

/** 400 `{"error":"name, url are missing, at least one parameter must be provided"}` (grape's `at_least_one_of`). */
export function atLeastOneOf(names: readonly string[]): GantryError {
  return new GantryError('GANTRY_E_MISSING_PARAM', 400, { error: `${names.join(', ')} are missing, at least one parameter must be provided` });
}

/** 400 `{"message":{"field":["reason"]}}` */
export function validationFailed(fields: Record<string, string[]>): GantryError {
  return new GantryError('GANTRY_E_VALIDATION', 400, { message: fields });
}

export function badRequest(message: string): GantryError {
  return new GantryError('GANTRY_E_BAD_REQUEST', 400, { message: `400 Bad request - ${message}` });
}

/** A 400 whose message is given verbatim. */
export function badRequestMessage(message: string): GantryError {
  return new GantryError('GANTRY_E_BAD_REQUEST', 400, { message });
}

export function unauthorized(): GantryError {
  return new GantryError('GANTRY_E_UNAUTHORIZED', 401, { message: '401 Unauthorized' });
}

/** 401 for a token that exists but no longer works (expired, revoked), with OAuth's `invalid_token`. */
export function invalidToken(description: string): GantryError {
  return new GantryError('GANTRY_E_UNAUTHORIZED', 401, { error: 'invalid_token', error_description: description });
}

/** 403 for a token whose scopes do not cover the request; `scope` lists the scopes that would. */
export function insufficientScope(scopes: readonly string[]): GantryError {
  return new GantryError('GANTRY_E_FORBIDDEN', 403, {
    error: 'insufficient_scope',
    error_description: 'The request requires higher privileges than provided by the access token.',
    scope: scopes.join(' '),
  });
}

export function forbidden(reason?: string): GantryError {
  return new GantryError('GANTRY_E_FORBIDDEN', 403, {
    message: reason ? `403 Forbidden - ${reason}` : '403 Forbidden',
  });
}

/** 404 `{"message":"404 Project Not Found"}`; without a resource, `404 Not found`. */
export function notFound(resource?: string): GantryError {
  return new GantryError('GANTRY_E_NOT_FOUND', 404, {
    message: resource ? `404 ${resource} Not Found` : '404 Not found',
  });
}

export function methodNotAllowed(message: string): GantryError {
  return new GantryError('GANTRY_E_METHOD_NOT_ALLOWED', 405, { message });
}

export function conflict(message: string): GantryError {
  return new GantryError('GANTRY_E_CONFLICT', 409, { message });
}

export function unprocessable(message: string): GantryError {
  return new GantryError('GANTRY_E_UNPROCESSABLE', 422, { message });
}

export function isGantryError(value: unknown): value is GantryError {
  return value instanceof GantryError;
}
