/**
 * Imported for its effect, before prom-client: prom-client's process CPU metric requires
 * OpenTelemetry's API (about 50 modules) for exemplars, which the runner never enables.
 */
import { deferLoading, type DeferredModule } from '../../shared/deferred-modules.ts';

export const PROM_CLIENT_DEFERRED: readonly DeferredModule[] = [{ via: ['prom-client', '@opentelemetry/api'], why: 'exemplars only' }];

deferLoading(PROM_CLIENT_DEFERRED);
