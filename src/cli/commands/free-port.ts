import { createServer, type AddressInfo } from 'node:net';

/**
 * A port free on `host` now. `--port 0` is settled before the coordinator exists, because the
 * external URL (every clone URL and link) is derived from it.
 */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
