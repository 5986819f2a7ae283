/**
 * GitLab-style parameter decoding shared by query strings and urlencoded bodies:
 * `name[]=a&name[]=b` becomes an array, `custom_attributes[key]=value` a nested map (and
 * `not[labels][]=a` an array in one),
 * everything else a string (the last one wins when repeated).
 */
export type ParamValue = string | string[] | ParamMap | boolean | number | null | ParamValue[];
export interface ParamMap {
  [key: string]: ParamValue;
}

export function parseGitlabQuery(query: string): ParamMap {
  const out: ParamMap = Object.create(null) as ParamMap;
  if (!query) return out;
  for (const [rawKey, value] of new URLSearchParams(query)) {
    assignParam(out, rawKey, value);
  }
  return out;
}

export function assignParam(out: ParamMap, rawKey: string, value: string): void {
  const list = rawKey.endsWith('[]');
  const name = list ? rawKey.slice(0, -2) : rawKey;
  // `not[labels]=a` and `not[labels][]=a`: one level of hash, as Rack nests them.
  const hash = /^([^[\]]+)\[([^[\]]+)\]$/.exec(name);
  let target = out;
  let key = name;
  if (hash) {
    const [, outer, subKey] = hash;
    const existing = out[outer];
    target = existing && typeof existing === 'object' && !Array.isArray(existing) ? existing : (Object.create(null) as ParamMap);
    out[outer] = target;
    key = subKey;
  }
  if (!list) {
    target[key] = value;
    return;
  }
  const existing = target[key];
  if (Array.isArray(existing)) existing.push(value);
  else target[key] = [value];
}
