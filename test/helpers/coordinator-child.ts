/**
 * A coordinator in a child process, for tests that kill it: `node --import tsx
 * coordinator-child.ts <dataDir> <port> <rootToken>`; GANTRY_TEST_RUN_TASKS=0 keeps its task
 * worker idle. Prints `listening` once it accepts requests.
 */
import path from 'node:path';
import { createCoordinator } from '../../src/coordinator/app.ts';

const [dataDir, port, rootToken] = process.argv.slice(2);
if (!dataDir || !port || !rootToken) throw new Error('usage: coordinator-child.ts <dataDir> <port> <rootToken>');
const coordinator = await createCoordinator({
  dataDir,
  databaseUrl: path.join(dataDir, 'gantry.sqlite3'),
  rootToken,
  externalUrl: `http://127.0.0.1:${port}`,
  ci: { taskPollIntervalMs: 50, runTasks: process.env.GANTRY_TEST_RUN_TASKS !== '0' },
});
await coordinator.app.listen({ port: Number(port), host: '127.0.0.1' });
process.stdout.write('listening\n');
