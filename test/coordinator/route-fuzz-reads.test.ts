import { describeRouteFuzz } from './route-fuzz-walk.ts';

// The GET routes of the route table (the other parts: route-fuzz-writes.test.ts,
// route-fuzz-writes-code.test.ts, route-fuzz-writes-planning.test.ts).
describeRouteFuzz({
  title: 'malformed input on every read route',
  includes: (route) => route.method === 'GET',
  minRoutes: 120,
  minRequests: 6_000,
  namesRead: ['page', 'per_page', 'ref', 'search', 'visibility', 'custom_attributes'],
  minNames: 80,
});
