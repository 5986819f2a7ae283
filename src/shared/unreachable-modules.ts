/**
 * Some dependencies require modules when they load that our use of them can never reach.
 * Loaded, such a module holds its code, its sources and whatever it sets up for as long as
 * the process lives, which for the runner daemon is most of its idle RSS budget. A
 * placeholder put into the CommonJS cache before the dependency loads takes its place;
 * touching the placeholder throws with the reason, so a use we did not foresee fails
 * loudly instead of misbehaving.
 */
import Module, { createRequire } from 'node:module';
import path from 'node:path';

export interface UnreachableModule {
  /** Packages each resolved from the one before (the first from here), as the requiring code resolves them. */
  via: readonly string[];
  /** A file next to the last package's main file; that main file itself when absent. */
  file?: string;
  /** Why it cannot be reached: the message a use of the placeholder throws. */
  why: string;
}

const requireHere = createRequire(import.meta.url);

/** The file the dependency would load, or undefined when a release no longer has it. */
export function unreachableModulePath(module: UnreachableModule): string | undefined {
  try {
    let resolved = import.meta.filename;
    for (const name of module.via) resolved = createRequire(resolved).resolve(name);
    return module.file === undefined ? resolved : path.join(path.dirname(resolved), module.file);
  } catch {
    return undefined;
  }
}

function placeholder(why: string): unknown {
  const refuse = (): never => {
    throw new Error(why);
  };
  return new Proxy(refuse, { get: refuse, apply: refuse, construct: refuse });
}

/** Call before the first import of the dependency; a module already loaded stays as it is. */
export function keepOut(modules: readonly UnreachableModule[]): void {
  for (const module of modules) {
    const filename = unreachableModulePath(module);
    if (filename === undefined || requireHere.cache[filename]) continue;
    const entry = new Module(filename);
    entry.filename = filename;
    entry.loaded = true;
    entry.exports = placeholder(module.why);
    requireHere.cache[filename] = entry;
  }
}
