/**
 * Imported for its effect, before prom-client: prom-client's process CPU metric requires
 * OpenTelemetry's API (about 50 modules) for exemplars, which the runner never enables.
 */
import { deferLoading } from '../../shared/deferred-modules.ts';

deferLoading([{ via: ['prom-client', '@opentelemetry/api'] }]);
