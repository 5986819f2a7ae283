import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { RunnerMetrics } from '../../src/runner/daemon/metrics.ts';

test('process metrics are collected without loading OpenTelemetry (prom-client wants it for exemplars only)', async () => {
  const metrics = new RunnerMetrics();
  const text = await metrics.render();
  assert.match(text, /^process_cpu_seconds_total \d/m);
  assert.match(text, /^process_resident_memory_bytes \d/m);
  const cache = createRequire(import.meta.url).cache;
  assert.ok(Object.keys(cache).some((file) => file.includes('/node_modules/prom-client/')));
  const otel = Object.keys(cache).filter((file) => file.includes('/@opentelemetry/'));
  assert.equal(otel.length, 1, 'only the stand-in of the package main');
  assert.equal(cache[otel[0]!]?.children.length, 0, 'a stand-in, not the package, which requires its parts');
});
