/**
 * Docker tests need a running engine and the local images of scripts/docker-up.sh. Without
 * them they fail (CI brings the engine up); GANTRY_SKIP_DOCKER_TESTS=1 skips them explicitly.
 */
import Docker from 'dockerode';

export const BUSYBOX = 'gantry/busybox:latest';
export const DEBIAN = 'gantry/debian-git:bookworm';
export const skipDocker = process.env.GANTRY_SKIP_DOCKER_TESTS === '1' ? 'GANTRY_SKIP_DOCKER_TESTS=1' : false;

export async function dockerReady(): Promise<Docker> {
  const docker = new Docker();
  try {
    await docker.ping();
  } catch (error) {
    throw new Error(`no Docker engine answers (run scripts/docker-up.sh): ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const image of [BUSYBOX, DEBIAN]) {
    await docker.getImage(image).inspect().catch(() => {
      throw new Error(`image ${image} is missing (run scripts/docker-up.sh)`);
    });
  }
  return docker;
}
