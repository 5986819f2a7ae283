// Module hooks (node:module register) that post every URL the ESM loader loads to the port they are given.
let port;

export function initialize(data) {
  port = data.port;
}

export async function load(url, context, nextLoad) {
  port.postMessage(url);
  return nextLoad(url, context);
}
