// The fixture repositories of test/fixtures/exec/, shard 3 of 3 (exec-fixture-suite.ts).
import { describeFixtureShard } from './exec-fixture-suite.ts';

describeFixtureShard(2, 3);
