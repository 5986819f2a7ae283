import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type TSchema } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeSettings } from '../../http/serializers/instance/settings.ts';
import type { SettingValue } from '../../services/instance/settings/parse.ts';
import { SETTINGS_SCHEMA, type SettingDefinition } from '../../services/instance/settings/schema.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { requireAtLeastOneOf } from '../at-least-one.ts';

const SETTING_NAMES = SETTINGS_SCHEMA.map((setting) => setting.name);

/** One parameter per setting of the schema table, typed by its kind; null clears what may be unset. */
function settingParam(definition: SettingDefinition): TSchema {
  const allowed = definition.values ? `One of ${definition.values.join(', ')}` : undefined;
  const options = allowed === undefined ? {} : { description: allowed };
  switch (definition.kind) {
    case 'boolean':
      return Param.boolean(options);
    case 'integer':
      return Param.wideInteger(options);
    case 'decimal':
      return Param.number(options);
    case 'string':
      return Param.string(options);
    case 'string_array':
      return Param.strings(options);
  }
}

const SettingsBody = Type.Object(
  Object.fromEntries((SETTINGS_SCHEMA as readonly SettingDefinition[]).map((definition) => [definition.name, Type.Optional(Param.nullable(settingParam(definition)))])),
);

const tags = ['settings'];

/** `GET|PUT /application/settings` (administrators only). */
export function settingsRoutes({ applicationSettings }: CoordinatorServices, _edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/application/settings', { schema: { summary: 'The application settings (administrators)', tags } }, async (request) => {
      return serializeSettings(await applicationSettings.read(requireActor(request)));
    });

    api.put('/application/settings', { schema: { summary: 'Change application settings (administrators)', tags, body: SettingsBody } }, async (request) => {
      const actor = requireActor(request);
      // The route schema typed each present setting by its kind (settingParam).
      const values = request.body as Readonly<Record<string, SettingValue | undefined>>;
      requireAtLeastOneOf(values, SETTING_NAMES);
      return serializeSettings(await applicationSettings.change(actor, values));
    });
  };
}
