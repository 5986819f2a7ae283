/**
 * Imported for its effect, before prom-client: prom-client's process CPU metric requires
 * OpenTelemetry's API (about 50 modules) for exemplars, which the runner never enables.
 */
import { keepOut, type UnreachableModule } from '../../shared/unreachable-modules.ts';

export const PROM_CLIENT_UNREACHABLE: readonly UnreachableModule[] = [{ via: ['prom-client', '@opentelemetry/api'], why: 'prom-client exemplars are not enabled' }];

keepOut(PROM_CLIENT_UNREACHABLE);
