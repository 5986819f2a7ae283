import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const NGINX = '/usr/sbin/nginx';

/** One line per proxied request: the client's sequence number, the upstream tried (all of them, comma-separated) and the statuses. */
const LOG_FORMAT = '$http_x_test_request "$request" $status "$upstream_addr" "$upstream_status"';

export interface NginxEntry {
  /** The x-test-request header the client sent ('-' when none). */
  request: string;
  line: string;
  status: number;
  upstreams: string[];
  upstreamStatuses: string[];
}

/** Debian's nginx, started by a test in a directory of its own, proxying round-robin to `upstreams` (ports on 127.0.0.1). */
export interface Nginx {
  port: number;
  url: string;
  /** Rewrites the upstream list and reloads (SIGHUP): new connections go to the new list. */
  setUpstreams(ports: readonly number[]): Promise<void>;
  /** The access log so far, parsed. */
  accessLog(): NginxEntry[];
  errorLog(): string;
  stop(): Promise<void>;
}

function config(directory: string, port: number, upstreams: readonly number[]): string {
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  const servers = upstreams.map((upstream) => `    server 127.0.0.1:${upstream} max_fails=1 fail_timeout=2s;`).join('\n');
  return `${user}worker_processes 1;
daemon off;
pid ${directory}/nginx.pid;
error_log ${directory}/error.log notice;
events { worker_connections 1024; }
http {
  log_format gantry '${LOG_FORMAT}';
  access_log ${directory}/access.log gantry;
  client_body_temp_path ${directory}/body;
  proxy_temp_path ${directory}/proxy;
  fastcgi_temp_path ${directory}/fastcgi;
  uwsgi_temp_path ${directory}/uwsgi;
  scgi_temp_path ${directory}/scgi;
  client_max_body_size 0;
  upstream coordinators {
${servers}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://coordinators;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 300s;
      # A coordinator that refuses connections (killed, not started yet) is skipped; a request
      # it already received is not sent again unless its method is idempotent (nginx's default).
      proxy_next_upstream error timeout;
    }
  }
}
`;
}

export async function startNginx(port: number, upstreams: readonly number[]): Promise<Nginx> {
  if (!existsSync(NGINX)) throw new Error(`${NGINX} is missing: install Debian's nginx (bash scripts/test-setup.sh does)`);
  const directory = mkdtempSync(path.join(tmpdir(), 'gantry-nginx-'));
  for (const name of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(directory, name));
  const file = path.join(directory, 'nginx.conf');
  writeFileSync(file, config(directory, port, upstreams));
  const child: ChildProcess = spawn(NGINX, ['-c', file, '-p', directory, '-e', path.join(directory, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (existsSync(path.join(directory, 'nginx.pid'))) {
      try {
        await fetch(`${url}/nginx-probe`);
        break;
      } catch {
        // not accepting yet
      }
    }
    if (child.exitCode !== null || attempt > 100) throw new Error(`nginx did not start: ${stderr}${readLog(path.join(directory, 'error.log'))}`);
    await sleep(100);
  }
  const readAccess = () => readLog(path.join(directory, 'access.log'));
  return {
    port,
    url,
    async setUpstreams(ports) {
      writeFileSync(file, config(directory, port, ports));
      const before = readLog(path.join(directory, 'error.log'));
      child.kill('SIGHUP');
      // The master logs the reload once the new workers run.
      for (let attempt = 0; attempt < 100; attempt++) {
        const log = readLog(path.join(directory, 'error.log'));
        if (log.length > before.length && /start worker process|reconfiguring/.test(log.slice(before.length))) return;
        await sleep(50);
      }
      throw new Error(`nginx did not reload: ${readLog(path.join(directory, 'error.log'))}`);
    },
    accessLog() {
      return readAccess()
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const match = /^(\S+) "([^"]*)" (\d+) "([^"]*)" "([^"]*)"$/.exec(line);
          if (!match) throw new Error(`unexpected nginx access log line: ${line}`);
          return { request: match[1]!, line: match[2]!, status: Number(match[3]), upstreams: match[4]!.split(/, | : /), upstreamStatuses: match[5]!.split(', ') };
        });
    },
    errorLog: () => readLog(path.join(directory, 'error.log')),
    async stop() {
      if (child.exitCode === null) child.kill('SIGQUIT');
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function readLog(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}
