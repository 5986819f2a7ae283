// The process spawner is shared with the executors (src/shared/process-spawner.ts): one helper per process.
export { ProcessSpawner, sharedSpawner, type ProcessExit, type SpawnedProcess, type SpawnRequest } from '../../shared/process-spawner.ts';
