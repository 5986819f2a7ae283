/** Import rules of ARCHITECTURE.md ("Dependency rules"). */
module.exports = {
  forbidden: [
    { name: 'protocol-is-a-leaf', severity: 'error', from: { path: '^src/protocol/' }, to: { path: '^src/', pathNot: '^src/protocol/' } },
    { name: 'ci-is-pure', severity: 'error', from: { path: '^src/ci/' }, to: { path: '^src/', pathNot: '^src/(ci|protocol|shared)/' } },
    { name: 'pipeline-is-pure', severity: 'error', from: { path: '^src/pipeline/' }, to: { path: '^src/', pathNot: '^src/(pipeline|protocol|shared)/' } },
    { name: 'pure-modules-do-no-io', severity: 'error', from: { path: '^src/(ci|pipeline|protocol)/' }, to: { path: '^(fs|node:fs|child_process|node:child_process|net|node:net|http|node:http|execa)$|fs/promises', dependencyTypes: ['core', 'npm'] } },
    { name: 'executors-stand-alone', severity: 'error', from: { path: '^src/executors/' }, to: { path: '^src/', pathNot: '^src/(executors|shared|protocol)/' } },
    { name: 'runner-not-coordinator', severity: 'error', from: { path: '^src/runner/' }, to: { path: '^src/(coordinator|storage)/' } },
    { name: 'coordinator-not-runner', severity: 'error', from: { path: '^src/coordinator/' }, to: { path: '^src/(runner|executors)/' } },
    { name: 'api-is-thin', severity: 'error', from: { path: '^src/coordinator/api/' }, to: { path: '^src/storage/sql/' } },
    {
      name: 'services-not-edge',
      comment: 'Services take typed inputs and narrow deps and return domain objects: no HTTP edge, no composition root (context, wiring, app).',
      severity: 'error',
      from: { path: '^src/coordinator/services/' },
      to: { path: '^src/coordinator/(http/|api/|context\\.ts$|wiring[^/]*\\.ts$|app\\.ts$)' },
    },
    {
      name: 'sql-only-in-storage',
      comment: 'SQL is written in src/storage/ alone: no query builder or driver elsewhere.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/storage/' },
      to: { path: '(^|/)node_modules/(kysely|better-sqlite3|pg|pg-cursor|pg-pool)/' },
    },
    {
      name: 'services-not-sql',
      comment: 'Services see stores through the interfaces of src/storage/types*.ts, never the SQL implementation.',
      severity: 'error',
      from: { path: '^src/coordinator/services/' },
      to: { path: '^src/storage/sql/' },
    },
    { name: 'only-git-module-spawns-git', severity: 'error', from: { path: '^src/', pathNot: '^src/(storage/git|executors|runner|exec|cli)/' }, to: { path: '^(execa|child_process|node:child_process)$', dependencyTypes: ['core', 'npm'] } },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
