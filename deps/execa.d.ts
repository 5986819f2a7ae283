// The bundle in deps/execa.js (scripts/bundle-deps.mjs) is the package itself, loaded as one file.
export * from 'execa';
