/**
 * bench/exec part c's docker side: gitlab-ci-local's helper image, and the CPU time the Docker
 * daemon spends for a run, which neither client's own CPU time includes.
 *
 * gitlab-ci-local copies artifacts out of its containers with rsync run in its
 * `--helper-image`; the bench's image has no rsync. The helper is that image plus this
 * machine's rsync and the shared libraries it needs that the image lacks (asked of the image,
 * not assumed), built once per base image (its tag is the base's image id).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { treeCpuMsOf } from './process-tree-cpu.ts';

const docker = (args: string[]): { ok: boolean; stdout: string; stderr: string } => {
  const result = spawnSync('docker', args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return { ok: result.status === 0, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
};

/** The shared libraries `binary` loads on this machine (ldd's resolved paths, the loader included). */
function librariesOf(binary: string): string[] {
  const listed = execFileSync('ldd', [binary], { encoding: 'utf8' });
  return [...listed.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((match) => match[1]!);
}

/**
 * `<base repository>-glci-helper:<base image id>`, built when missing: `base` with this
 * machine's rsync and the libraries it needs that `base` lacks. Throws with the reason when
 * it cannot be made (no rsync here, the build failed, rsync does not run in it).
 */
export function glciHelperImage(base: string): string {
  const inspected = docker(['image', 'inspect', '--format', '{{.Id}}', base]);
  if (!inspected.ok) throw new Error(`image ${base} is not on the Docker engine`);
  const id = inspected.stdout.trim().replace(/^sha256:/, '').slice(0, 12);
  const name = `${base.replace(/:[^/]*$/, '')}-glci-helper:${id}`;
  if (docker(['image', 'inspect', name]).ok) return name;
  const rsync = spawnSync('sh', ['-c', 'command -v rsync'], { encoding: 'utf8' }).stdout.trim();
  if (!rsync) throw new Error(`no rsync on this machine to build ${name} from`);
  const wanted = [rsync, ...librariesOf(rsync)];
  // Each path the image lacks, as the image itself answers (following its own symlinks, /lib → /usr/lib).
  const missing = docker(['run', '--rm', '--network', 'none', '--entrypoint', 'sh', base, '-c', 'for f; do [ -e "$f" ] || echo "$f"; done', 'sh', ...wanted]);
  if (!missing.ok) throw new Error(`cannot list what ${base} lacks: ${missing.stderr.trim()}`);
  const context = mkdtempSync(path.join(tmpdir(), 'gantry-glci-helper-'));
  try {
    const copies = missing.stdout.split('\n').filter(Boolean).map((file, index) => {
      copyFileSync(file, path.join(context, `file-${index}`));
      // One COPY per file: its destination's directories resolve inside the image (symlinks followed).
      return `COPY file-${index} ${file}`;
    });
    writeFileSync(path.join(context, 'Dockerfile'), [`FROM ${base}`, ...copies, `LABEL com.gantry.bench.glci-helper-of=${base}`, ''].join('\n'));
    const built = docker(['build', '-q', '-t', name, context]);
    if (!built.ok) throw new Error(`docker build of ${name} failed: ${built.stderr.trim().split('\n').pop()}`);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  const check = docker(['run', '--rm', '--network', 'none', '--entrypoint', 'rsync', name, '--version']);
  if (!check.ok) throw new Error(`rsync does not run in ${name}: ${check.stderr.trim()}`);
  return name;
}

/** Processes of this machine named `name` (the daemon runs here, in this PID namespace). */
function pidsNamed(name: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The CPU time of every container so far (cgroupfs driver: v1 cpuacct, or v2 cpu.stat), or null. */
function containersCpuMs(): number | null {
  const v1 = '/sys/fs/cgroup/cpuacct/docker/cpuacct.usage';
  if (existsSync(v1)) return Number(readFileSync(v1, 'utf8').trim()) / 1e6;
  const v2 = '/sys/fs/cgroup/docker/cpu.stat';
  if (existsSync(v2)) return Number(/^usage_usec (\d+)$/m.exec(readFileSync(v2, 'utf8'))?.[1] ?? NaN) / 1e3;
  return null;
}

/**
 * CPU milliseconds the Docker daemon has used so far: dockerd with every process below it
 * (containerd when dockerd started it, the archive helpers it runs for each copy) and the
 * containers' processes (their cgroup); null when the daemon is not a process of this
 * machine. Not counted: containerd-shim processes (they leave dockerd's tree and exit with
 * their container). Machine-wide: other users of the same daemon in the meantime count too.
 */
export function dockerDaemonCpuMs(): number | null {
  const daemons = pidsNamed('dockerd');
  const containers = containersCpuMs();
  if (daemons.length === 0 || containers === null) return null;
  const underDaemon = new Set(daemons);
  // containerd started apart (systemd) is not in dockerd's tree.
  const containerd = pidsNamed('containerd').filter((pid) => !isBelow(pid, underDaemon));
  return [...daemons, ...containerd].reduce((sum, pid) => sum + treeCpuMsOf(pid), 0) + containers;
}

function isBelow(pid: number, ancestors: Set<number>): boolean {
  let current = pid;
  for (let hops = 0; hops < 64 && current > 1; hops += 1) {
    const stat = readFileSync(`/proc/${current}/stat`, 'utf8');
    current = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ancestors.has(current)) return true;
  }
  return false;
}
