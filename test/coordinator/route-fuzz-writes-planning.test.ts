import { describeRouteFuzz, writesPlanning } from './route-fuzz-walk.ts';

// The write routes of a project's planning: issues, merge requests, labels and milestones (the
// other parts: route-fuzz-reads.test.ts, route-fuzz-writes.test.ts, route-fuzz-writes-code.test.ts).
describeRouteFuzz({
  title: 'malformed input on every write route of the issues, merge requests, labels and milestones',
  includes: writesPlanning,
  minRoutes: 55,
  minRequests: 8_000,
  namesRead: ['title', 'labels', 'source_branch', 'state_event'],
  minNames: 38,
});
