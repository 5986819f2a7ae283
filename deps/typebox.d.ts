// The bundle in deps/typebox.js (scripts/bundle-deps.mjs) is the package itself, loaded as one file.
export * from 'typebox';
