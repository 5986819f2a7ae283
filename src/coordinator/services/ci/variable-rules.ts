/**
 * GitLab's model rules for CI variables (HasVariable, Maskable, HasEnvironmentScope), shared by
 * project, group and pipeline schedule variables. Each check returns `{field: [reasons]}`.
 */
import { exceedsLength, tooLongMessage } from '../field-limits.ts';

export const VARIABLE_KEY_MAX = 255;
/** GitLab documents 10,000 characters as the most a variable's value holds. */
export const VARIABLE_VALUE_MAX = 10_000;
export const ENVIRONMENT_SCOPE_MAX = 255;
/** GitLab 16.2+: `validates :description, length: { maximum: 255 }, allow_blank: true`. */
export const VARIABLE_DESCRIPTION_MAX = 255;

const KEY_FORMAT = /^[a-zA-Z0-9_]+$/;
/** Maskable::REGEX: one line, at least 8 characters of the Base64 alphabet plus `@ : . ~`. */
const MASKABLE_VALUE = /^[a-zA-Z0-9_+=/@:.~-]{8,}$/;
const ENVIRONMENT_SCOPE_FORMAT = /^[a-zA-Z0-9_/${}. \-*]+$/;

export type FieldErrors = Record<string, string[]>;

function add(errors: FieldErrors, field: string, reason: string): void {
  (errors[field] ??= []).push(reason);
}

export function keyErrors(key: string, errors: FieldErrors = {}): FieldErrors {
  if (key === '') add(errors, 'key', "can't be blank");
  else if (exceedsLength(key, VARIABLE_KEY_MAX)) add(errors, 'key', tooLongMessage(VARIABLE_KEY_MAX));
  if (key !== '' && !KEY_FORMAT.test(key)) add(errors, 'key', "can contain only letters, digits and '_'.");
  return errors;
}

/** The value's length (`tooLong`: the owner's wording), and when the variable is masked GitLab's masking rule ("is invalid"). */
export function valueErrors(value: string, masked: boolean, errors: FieldErrors = {}, tooLong = tooLongMessage(VARIABLE_VALUE_MAX)): FieldErrors {
  if (exceedsLength(value, VARIABLE_VALUE_MAX)) add(errors, 'value', tooLong);
  else if (masked && !MASKABLE_VALUE.test(value)) add(errors, 'value', 'is invalid');
  return errors;
}

/** A description over 255 characters; a blank one (empty or spaces) is not measured, as Rails' allow_blank. */
export function descriptionErrors(description: string | null, errors: FieldErrors = {}): FieldErrors {
  if (description !== null && description.trim() !== '' && exceedsLength(description, VARIABLE_DESCRIPTION_MAX)) {
    add(errors, 'description', tooLongMessage(VARIABLE_DESCRIPTION_MAX));
  }
  return errors;
}

/** Ci::HidableVariable on update: a hidden variable's `masked` may not change (and no variable's `hidden` may). */
export function hiddenUpdateErrors(hidden: boolean, masked: boolean, newMasked: boolean | undefined, errors: FieldErrors = {}): FieldErrors {
  if (hidden && newMasked !== undefined && newMasked !== masked) add(errors, 'base', 'Updating masked attribute is not allowed on updates for hidden variables.');
  return errors;
}

export function environmentScopeErrors(scope: string, errors: FieldErrors = {}): FieldErrors {
  if (scope === '') add(errors, 'environment_scope', "can't be blank");
  else if (exceedsLength(scope, ENVIRONMENT_SCOPE_MAX)) add(errors, 'environment_scope', tooLongMessage(ENVIRONMENT_SCOPE_MAX));
  else if (!ENVIRONMENT_SCOPE_FORMAT.test(scope)) {
    add(errors, 'environment_scope', "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces");
  }
  return errors;
}

/** Ci::InstanceVariable's own wording of a too long value. */
export const INSTANCE_VALUE_TOO_LONG = `The value of the provided variable exceeds the ${VARIABLE_VALUE_MAX} character limit`;

/** GitLab's `ci_instance_level_variables` limit of a new instance, and Limitable's answer when a create would pass it. */
export const INSTANCE_VARIABLES_MAX = 25;
export const INSTANCE_LIMIT_REACHED: Readonly<FieldErrors> = { base: [`Maximum number of ci instance level variables (${INSTANCE_VARIABLES_MAX}) exceeded`] };

/** The uniqueness message of CI variables. */
export function keyTaken(key: string): FieldErrors {
  return { key: [`(${key}) has already been taken`] };
}
