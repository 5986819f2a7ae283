/** `release` (GitLab 13.2): the release a job creates once its script succeeds, with GitLab's errors. */
import type { ReleaseAssetLink, ReleaseDefinition } from '../model.ts';
import { isPlainObject, isStringArray, type PlainObject } from '../values.ts';
import type { EntryChecker } from './checker.ts';

const RELEASE_KEYS = ['tag_name', 'tag_message', 'name', 'description', 'ref', 'released_at', 'milestones', 'assets'];
const LINK_KEYS = ['name', 'url', 'filepath', 'direct_asset_path', 'link_type'];
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** The release read; null when absent; undefined when invalid (reported to `checker`). */
export function readRelease(value: unknown, checker: EntryChecker): ReleaseDefinition | null | undefined {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) {
    checker.configError('should be a hash');
    return undefined;
  }
  if (!checker.allowedKeys(value, RELEASE_KEYS)) return undefined;
  const errors = checker.sink.errors.length;
  const tagName = requiredString(value, 'tag_name', checker);
  const description = requiredString(value, 'description', checker);
  const name = checker.stringAttribute(value, 'name');
  const tagMessage = checker.stringAttribute(value, 'tag_message');
  const ref = checker.stringAttribute(value, 'ref');
  if (ref !== null && !validRef(ref)) checker.attributeError('ref', 'must be a valid ref');
  const releasedAt = checker.stringAttribute(value, 'released_at');
  if (releasedAt !== null && !validDateTime(releasedAt)) checker.attributeError('released_at', 'must be a valid datetime');
  const milestones = typeof value.milestones === 'string' ? [value.milestones] : value.milestones ?? [];
  if (!isStringArray(milestones)) checker.attributeError('milestones', 'should be an array of strings or a string');
  const links = readAssets(value.assets, checker.child('assets'));
  if (checker.sink.errors.length > errors || tagName === null || description === null || links === undefined || !isStringArray(milestones)) return undefined;
  return {
    tagName, description, milestones, links,
    ...(name !== null ? { name } : {}),
    ...(tagMessage !== null ? { tagMessage } : {}),
    ...(ref !== null ? { ref } : {}),
    ...(releasedAt !== null ? { releasedAt } : {}),
  };
}

function requiredString(value: PlainObject, key: string, checker: EntryChecker): string | null {
  const item = value[key];
  if (typeof item === 'string' && item.trim() !== '') return item;
  checker.attributeError(key, item === undefined || item === null || item === '' ? "can't be blank" : 'should be a string');
  return null;
}

/** `assets:links`: each link a hash with a name and a URL. */
function readAssets(value: unknown, checker: EntryChecker): ReleaseAssetLink[] | undefined {
  if (value === undefined || value === null) return [];
  if (!isPlainObject(value)) {
    checker.configError('should be a hash');
    return undefined;
  }
  if (!checker.allowedKeys(value, ['links'])) return undefined;
  const links = checker.child('links');
  if (!Array.isArray(value.links) || value.links.length === 0) {
    links.configError(Array.isArray(value.links) || value.links === undefined || value.links === null ? "can't be blank" : 'should be an array');
    return undefined;
  }
  const read: ReleaseAssetLink[] = [];
  for (const entry of value.links) {
    const link = links.child('link');
    if (!isPlainObject(entry)) {
      link.configError('should be a hash');
      return undefined;
    }
    if (!link.allowedKeys(entry, LINK_KEYS)) return undefined;
    const name = requiredString(entry, 'name', link);
    const url = requiredString(entry, 'url', link);
    const filepath = link.stringAttribute(entry, 'filepath');
    const directAssetPath = link.stringAttribute(entry, 'direct_asset_path');
    const linkType = link.stringAttribute(entry, 'link_type');
    if (name === null || url === null) return undefined;
    read.push({ name, url, ...(filepath !== null ? { filepath } : {}), ...(directAssetPath !== null ? { direct_asset_path: directAssetPath } : {}), ...(linkType !== null ? { link_type: linkType } : {}) });
  }
  return read;
}

/** git's rules for a ref name (`git check-ref-format`), or a commit SHA. */
function validRef(ref: string): boolean {
  if (/^[0-9a-f]{7,40}$/i.test(ref)) return true;
  if (ref === '' || ref === '@' || ref.startsWith('-') || ref.startsWith('/') || ref.endsWith('/') || ref.endsWith('.') || ref.endsWith('.lock')) return false;
  if (ref.includes('..') || ref.includes('//') || ref.includes('@{') || /[\x00-\x20\x7f~^:?*[\\]/.test(ref)) return false;
  return ref.split('/').every((part) => part !== '' && !part.startsWith('.'));
}

function validDateTime(text: string): boolean {
  return ISO_8601.test(text) && !Number.isNaN(Date.parse(text.replace(' ', 'T')));
}
