/**
 * A CommonJS bundle of ours (scripts/bundle-exec.mjs) compiled with the V8 code cache the build
 * wrote beside it: V8 then deserializes the functions a run compiled instead of parsing and
 * compiling ~6 MB of JavaScript again (Node 20 keeps no code cache of its own for a module).
 * Our own file through our own loader: Node's module loader and its cache are left alone.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/**
 * The last line of a bundle, and the first of its cache: the bundle's SHA-256 at build time.
 * V8 checks a cache against the source's length only (and against its own version and flags),
 * so a cache is handed to it only when this id matches the bundle's, or it could run a stale
 * cache's code for a rebuilt bundle of the same length.
 */
export const BUNDLE_ID_PREFIX = '//# gantryBundleId=';

/** What became of the code cache: used, refused by V8 (another Node, other V8 flags), or none that fits. */
export type CodeCacheOutcome = 'used' | 'rejected' | 'none';

export interface LoadedBundle<T> {
  exports: T;
  codeCache: CodeCacheOutcome;
  /** The code cache of every function compiled so far, behind its id line (the build writes it after a warm run). */
  createCodeCache(): Buffer;
}

/** The id of a bundle's source (its last line), or null. */
export function bundleIdOf(source: string): string | null {
  const at = source.lastIndexOf(`\n${BUNDLE_ID_PREFIX}`);
  if (at < 0) return null;
  return source.slice(at + 1 + BUNDLE_ID_PREFIX.length).trim() || null;
}

/** The V8 data of a cache file written for the bundle `id`, or undefined (missing, unreadable, or another bundle's). */
function cachedDataFor(cacheFile: string, id: string | null): Buffer | undefined {
  if (id === null) return undefined;
  let cache: Buffer;
  try {
    cache = readFileSync(cacheFile);
  } catch {
    // Missing or unreadable: the bundle compiles from its source, as without a cache.
    return undefined;
  }
  const newline = cache.indexOf(0x0a);
  if (newline < 0 || cache.subarray(0, newline).toString('latin1') !== id) return undefined;
  return cache.subarray(newline + 1);
}

/**
 * Runs the CommonJS bundle `bundleFile` (strict, as the ES modules it was made of) and answers
 * its exports. With a fitting `cacheFile`, V8 starts from its code; refused, it compiles the
 * source as without one.
 */
export function loadBundle<T>(bundleFile: string, cacheFile: string): LoadedBundle<T> {
  const source = readFileSync(bundleFile, 'utf8');
  const id = bundleIdOf(source);
  const cachedData = cachedDataFor(cacheFile, id);
  // Node's own CommonJS wrapper, "use strict" first: an ES module's code is always strict.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {'use strict';${source}\n})`, {
    filename: bundleFile,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const codeCache: CodeCacheOutcome = cachedData === undefined ? 'none' : script.cachedDataRejected === true ? 'rejected' : 'used';
  const wrapper = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: { exports: object }, filename: string, dirname: string) => void;
  const bundleModule = { exports: {} };
  wrapper.call(bundleModule.exports, bundleModule.exports, createRequire(bundleFile), bundleModule, bundleFile, path.dirname(bundleFile));
  return {
    exports: bundleModule.exports as T,
    codeCache,
    createCodeCache: () => Buffer.concat([Buffer.from(`${id ?? ''}\n`, 'latin1'), script.createCachedData()]),
  };
}
