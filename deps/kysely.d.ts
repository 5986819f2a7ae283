// The bundle in deps/kysely.js (scripts/bundle-deps.mjs) is the package itself, loaded as one file.
export * from 'kysely';
