/** `runner exec` fetches `include:remote` files, a server on the user's own machine too. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { exec, workingTree } from './exec-helpers.ts';

describe('runner exec with include:remote', () => {
  let server: Server;
  let dir = '';

  before(async () => {
    server = createServer((request, response) => {
      if (request.url === '/shared.yml') response.end('shared:\n  script: echo "from the remote file"\n');
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/shared.yml`;
    dir = workingTree({ '.gitlab-ci.yml': `include:\n  - remote: ${url}\nown:\n  script: echo own\n` });
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await new Promise((resolve) => server.close(resolve));
  });

  it('runs the jobs of a remote file served on a local address', async () => {
    const result = await exec(dir, {});
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^shared +\| from the remote file$/m);
    assert.match(result.stdout, /^own +\| own$/m);
  });
});
