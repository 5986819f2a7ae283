// The bundle in deps/typebox-value.js (scripts/bundle-deps.mjs) is the package itself, loaded as one file.
export * from 'typebox/value';
