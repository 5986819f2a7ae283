import { describeRouteFuzz, writesCode } from './route-fuzz-walk.ts';

// The write routes of a project's code and pipelines: repository, releases, protected refs,
// commit statuses, pipelines and jobs, forks (the other parts: route-fuzz-reads.test.ts,
// route-fuzz-writes.test.ts, route-fuzz-writes-planning.test.ts).
describeRouteFuzz({
  title: 'malformed input on every write route of the code and pipelines',
  includes: writesCode,
  minRoutes: 35,
  minRequests: 5_000,
  namesRead: ['ref', 'actions', 'tag_name'],
  minNames: 40,
});
