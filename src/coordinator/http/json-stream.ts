/** Bytes of JSON gathered before a chunk is written. */
export const JSON_CHUNK = 64 * 1024;

/**
 * A JSON array written item by item (`[a,b,...]`), in chunks of about JSON_CHUNK: an answer
 * of many large items never becomes one string.
 */
export async function* jsonArray<T>(items: Iterable<T> | AsyncIterable<T>, serialize: (item: T) => unknown): AsyncGenerator<string> {
  let pending = '[';
  let first = true;
  for await (const item of items) {
    pending += `${first ? '' : ','}${JSON.stringify(serialize(item))}`;
    first = false;
    if (pending.length >= JSON_CHUNK) {
      yield pending;
      pending = '';
    }
  }
  yield `${pending}]`;
}
