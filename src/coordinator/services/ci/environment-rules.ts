import { exceedsLength, tooLongMessage } from '../field-limits.ts';

const NAME_MAX = 255;
const EXTERNAL_URL_MAX = 255;
/** Gitlab::Regex.environment_name_regex: the allowed characters, but no `/` first or last (reference §10). */
const NAME_FORMAT = /^[a-zA-Z0-9_${}. -]([a-zA-Z0-9_\\/${}. -]*[a-zA-Z0-9_${}. -])?$/;
const NAME_FORMAT_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";

/** GitLab's Environment name validations: the reasons a name is refused (none when valid). */
export function environmentNameErrors(name: string): string[] {
  if (name.trim() === '') return ["can't be blank"];
  if (exceedsLength(name, NAME_MAX)) return [tooLongMessage(NAME_MAX)];
  return NAME_FORMAT.test(name) ? [] : [NAME_FORMAT_MESSAGE];
}

/** An http(s) URL of at most 255 characters ("must be a valid URL" otherwise, as GitLab says). */
export function externalUrlErrors(url: string): string[] {
  if (exceedsLength(url, EXTERNAL_URL_MAX)) return [tooLongMessage(EXTERNAL_URL_MAX)];
  if (/\s/.test(url) || !URL.canParse(url)) return ['must be a valid URL'];
  const parsed = new URL(url);
  return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '' ? [] : ['must be a valid URL'];
}
