/**
 * Some dependencies require modules as they load that our use of them rarely or never
 * reaches. Loaded, such a module holds its code, its sources and whatever it sets up for as
 * long as the process lives, which for the runner daemon is most of its idle RSS budget. A
 * stand-in put into the CommonJS cache before the dependency loads takes its place: the
 * dependency keeps it, and the first use of it (a property read, a call) loads the real
 * module, which from then on is also what any later `require` of it returns.
 */
import { existsSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';

export interface DeferredModule {
  /** Packages each resolved from the one before (the first from here), as the requiring code resolves them. */
  via: readonly string[];
  /** A file next to the last package's main file; that main file itself when absent. */
  file?: string;
}

const requireHere = createRequire(import.meta.url);

/** The file the dependency would load, or undefined when it cannot be resolved. */
export function deferredModulePath(module: DeferredModule): string | undefined {
  try {
    let resolved = import.meta.filename;
    for (const name of module.via) resolved = createRequire(resolved).resolve(name);
    return module.file === undefined ? resolved : path.join(path.dirname(resolved), module.file);
  } catch {
    return undefined;
  }
}

function standIn(filename: string): unknown {
  let real: unknown;
  const load = (): object => {
    if (real === undefined) {
      delete requireHere.cache[filename];
      real = requireHere(filename);
    }
    return real as object;
  };
  // An arrow function as the target: callable (some modules export a function) and without
  // non-configurable own properties the proxy would have to report.
  return new Proxy(() => undefined, {
    get: (_target, key) => Reflect.get(load(), key),
    has: (_target, key) => Reflect.has(load(), key),
    apply: (_target, self, args: unknown[]) => Reflect.apply(load() as (...args: unknown[]) => unknown, self, args),
    construct: (_target, args: unknown[]) => Reflect.construct(load() as new (...args: unknown[]) => object, args),
  });
}

/** Call before the first import of the dependency; a module already loaded, or that does not exist, stays as it is. */
export function deferLoading(modules: readonly DeferredModule[]): void {
  for (const module of modules) {
    const filename = deferredModulePath(module);
    if (filename === undefined || requireHere.cache[filename] || !existsSync(filename)) continue;
    const entry = new Module(filename);
    entry.filename = filename;
    entry.loaded = true;
    entry.exports = standIn(filename);
    requireHere.cache[filename] = entry;
  }
}
