import { describeRouteFuzz, writesCode, writesPlanning } from './route-fuzz-walk.ts';

// The routes of the route table that are not GET, but for the project's code and pipelines and
// its planning (the other parts: route-fuzz-reads.test.ts, route-fuzz-writes-code.test.ts,
// route-fuzz-writes-planning.test.ts).
describeRouteFuzz({
  title: 'malformed input on every write route but the code, pipeline and planning ones',
  includes: (route) => route.method !== 'GET' && !writesCode(route) && !writesPlanning(route),
  minRoutes: 110,
  minRequests: 15_000,
  namesRead: ['ref', 'visibility', 'access_level', 'scopes'],
  minNames: 250,
});
