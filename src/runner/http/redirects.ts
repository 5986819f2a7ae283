/**
 * Redirects for the runner's Transport, as fetch follows them: at most 5 of 301, 302, 303,
 * 307, 308; 303 (and 301/302 after a POST) become a GET without body; credential headers
 * stay behind on another origin. A request with a streamed body cannot be sent twice: its 3xx
 * answer is returned as is.
 */
import { isStream, type Answer, type Hop } from './exchange.ts';

export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = new Set(['job-token', 'private-token', 'authorization', 'cookie']);
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']);

const without = (headers: Record<string, string>, names: Set<string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !names.has(name.toLowerCase())));

/** The request a redirect answer leads to, or undefined when the answer is the final one. */
export function nextHop(hop: Hop, response: Pick<Answer, 'statusCode' | 'headers'>): Hop | undefined {
  const status = response.statusCode;
  const location = [response.headers.location].flat()[0];
  if (!REDIRECT_STATUSES.has(status) || location === undefined || isStream(hop.body)) return undefined;
  const url = new URL(location, hop.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`redirected to an unsupported URL "${url.toString()}"`);
  const toGet = status === 303 ? hop.method !== 'HEAD' : (status === 301 || status === 302) && hop.method === 'POST';
  let headers = toGet ? without(hop.headers, BODY_HEADERS) : hop.headers;
  if (url.origin !== hop.url.origin) headers = without(headers, CREDENTIAL_HEADERS);
  return { url, method: toGet ? 'GET' : hop.method, headers, body: toGet ? undefined : hop.body };
}

/** Sends `first` and follows its redirects; the redirect answers' bodies are discarded. */
export async function followRedirects(first: Hop, send: (hop: Hop) => Promise<Answer>): Promise<Answer> {
  let hop = first;
  for (let redirects = 0; ; redirects++) {
    const response = await send(hop);
    let next: Hop | undefined;
    try {
      next = nextHop(hop, response);
    } catch (error) {
      response.body.destroy();
      throw error;
    }
    if (next === undefined) return response;
    await response.body.dump().catch(() => undefined);
    if (redirects === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects (the last to ${next.url.toString()})`);
    hop = next;
  }
}
