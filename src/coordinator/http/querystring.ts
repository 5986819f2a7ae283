/**
 * GitLab-style parameter decoding shared by query strings and urlencoded bodies:
 * `name[]=a&name[]=b` becomes an array, `custom_attributes[key]=value` a nested map,
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
  if (rawKey.endsWith('[]')) {
    const key = rawKey.slice(0, -2);
    const existing = out[key];
    if (Array.isArray(existing)) existing.push(value);
    else out[key] = [value];
    return;
  }
  const hash = /^([^[\]]+)\[([^[\]]+)\]$/.exec(rawKey);
  if (hash) {
    const [, key, subKey] = hash;
    const existing = out[key];
    const map: ParamMap =
      existing && typeof existing === 'object' && !Array.isArray(existing) ? existing : (Object.create(null) as ParamMap);
    map[subKey] = value;
    out[key] = map;
    return;
  }
  out[rawKey] = value;
}
