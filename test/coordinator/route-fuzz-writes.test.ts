import { describeRouteFuzz, writesCode } from './route-fuzz-walk.ts';

// The routes of the route table that are not GET, but for the project's code and pipelines
// (the other parts: route-fuzz-reads.test.ts, route-fuzz-writes-code.test.ts).
describeRouteFuzz({
  title: 'malformed input on every write route but the code and pipeline ones',
  includes: (route) => route.method !== 'GET' && !writesCode(route),
  minRoutes: 150,
  minRequests: 20_000,
  namesRead: ['ref', 'visibility', 'access_level', 'scopes'],
  minNames: 250,
});
