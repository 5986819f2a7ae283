import { describeRouteFuzz } from './route-fuzz-walk.ts';

// The routes of the route table that are not GET (the other part: route-fuzz-reads.test.ts).
describeRouteFuzz({
  title: 'malformed input on every write route',
  includes: (route) => route.method !== 'GET',
  minRoutes: 150,
  minRequests: 4_000,
  namesRead: ['ref', 'visibility', 'access_level', 'actions', 'tag_name', 'scopes'],
  minNames: 150,
});
