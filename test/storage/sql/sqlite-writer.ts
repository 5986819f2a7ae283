/**
 * Child process of sqlite-transactions.test.ts: opens the SQLite file given as argv[2] and
 * runs argv[3] read-then-write transactions on pipeline argv[4] from the time argv[5] (epoch
 * ms, so both processes overlap), each reading the pipeline's coverage and writing it back
 * plus one. Prints a JSON line {done, errors, errorCount}.
 */
import { openDatabase } from '../../../src/storage/sql/database.ts';
import { createSqlStores } from '../../../src/storage/sql/stores/index.ts';

const [file, rounds, pipelineId, startAt] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])];
const opened = openDatabase(file);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
const stores = createSqlStores(opened.db);
let done = 0;
const errors: string[] = [];
for (let round = 0; round < rounds; round++) {
  try {
    await stores.ciTransactions.run(async (ci) => {
      const pipeline = await ci.pipelines.lockForProcessing(pipelineId);
      if (!pipeline) throw new Error('no pipeline');
      // Give the other process a chance to interleave between the read and the write.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 4));
      await ci.pipelines.update(pipelineId, { coverage: String(Number(pipeline.coverage ?? '0') + 1) });
    });
    done++;
  } catch (error) {
    errors.push(error instanceof Error ? error.message : String(error));
  }
}
await opened.close();
console.log(JSON.stringify({ done, errors: errors.slice(0, 3), errorCount: errors.length }));
