/**
 * Run as a child process: makes the executors of config.toml entries (`shell`, then `docker`),
 * then sweeps the docker one, and prints after each step which of the docker executor's
 * modules the ESM loader has loaded so far, as one JSON line.
 */
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const loaded: string[] = [];
const { port1, port2 } = new MessageChannel();
port1.on('message', (url: string) => loaded.push(url));
port1.unref();
register('./record-module-loads.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });

let marks = 0;
/** The loads so far: a fresh module loaded last, so that every earlier load's message has arrived. */
async function loadsSoFar(): Promise<string[]> {
  const mark = `data:text/javascript,export default ${++marks}`;
  await import(mark);
  for (let turns = 0; !loaded.includes(mark); turns++) {
    if (turns > 1_000) throw new Error('the module hooks never reported the mark');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return loaded.filter((url) => /\/executors\/docker\/docker-executor\.ts$|\/node_modules\/dockerode\//.test(url)).map((url) => url.replace(/^.*\/(src|node_modules)\//, ''));
}

const { createExecutor } = await import('../../src/executors/registry.ts');
const settings = { buildsDir: '/tmp/unused-builds', docker: { host: 'unix:///nonexistent/docker.sock' } };
const steps: Record<string, string[]> = {};
createExecutor('shell', settings);
steps.shell = await loadsSoFar();
const docker = createExecutor('docker', settings);
steps.dockerCreated = await loadsSoFar();
await docker.sweep?.().catch(() => undefined);
steps.dockerSwept = await loadsSoFar();
console.log(JSON.stringify(steps));
