import { Type, type Static } from '#deps/typebox';
import { Param } from '../../http/gitlab-params.ts';
import { requireAllOrNoneOf } from '../at-least-one.ts';
import type { UserAttributes } from '../../services/accounts/users-input.ts';

/** Profile and account fields of `POST /users` and `PUT /users/:id`. */
export const USER_ATTRIBUTES = {
  password: Type.Optional(Param.string({ description: 'At least 8 characters' })),
  bio: Type.Optional(Param.string()),
  location: Type.Optional(Param.string()),
  messenger_id: Type.Optional(Param.string({ description: 'Also accepted as skype' })),
  network_profile: Type.Optional(Param.string({ description: 'Also accepted as linkedin' })),
  microblog_account: Type.Optional(Param.string({ description: 'Also accepted as twitter' })),
  skype: Type.Optional(Param.string({ description: 'Old name of messenger_id' })),
  linkedin: Type.Optional(Param.string({ description: 'Old name of network_profile' })),
  twitter: Type.Optional(Param.string({ description: 'Old name of microblog_account' })),
  website_url: Type.Optional(Param.string()),
  organization: Type.Optional(Param.string()),
  projects_limit: Type.Optional(Param.integer({ description: 'How many personal projects the user may create' })),
  extern_uid: Type.Optional(Param.string({ description: 'The identity at the external provider' })),
  provider: Type.Optional(Param.string({ description: 'The external provider' })),
  admin: Type.Optional(Param.boolean({ description: 'Administrator of the instance' })),
  can_create_group: Type.Optional(Param.boolean()),
  external: Type.Optional(Param.boolean({ description: 'External users see only what they are a member of' })),
};

export const CreateUserBody = Type.Object({
  email: Param.string({ minLength: 1 }),
  name: Param.string({ minLength: 1 }),
  username: Param.string({ minLength: 1 }),
  ...USER_ATTRIBUTES,
  reset_password: Type.Optional(Param.boolean({ description: 'Create without a password (then password may be left out)' })),
  skip_confirmation: Type.Optional(Param.boolean()),
  confirm: Type.Optional(Param.boolean()),
});

export const UpdateUserBody = Type.Object({
  email: Type.Optional(Param.string()),
  name: Type.Optional(Param.string()),
  username: Type.Optional(Param.string()),
  ...USER_ATTRIBUTES,
});

/** An external identity is named by both, or not at all. */
export const IDENTITY_PARAMS = ['extern_uid', 'provider'] as const;

/** The stored attributes a request sets; e-mail and username trimmed, the old field names read as aliases. */
export function userAttributes(body: Static<typeof UpdateUserBody>): UserAttributes {
  requireAllOrNoneOf(body, IDENTITY_PARAMS);
  return {
    email: body.email?.trim(),
    username: body.username?.trim(),
    name: body.name,
    password: body.password,
    projects_limit: body.projects_limit,
    is_admin: body.admin,
    can_create_group: body.can_create_group,
    external: body.external,
    bio: body.bio,
    location: body.location,
    website_url: body.website_url,
    organization: body.organization,
    extern_uid: body.extern_uid,
    provider: body.provider,
    messenger_id: body.messenger_id ?? body.skype,
    network_profile: body.network_profile ?? body.linkedin,
    microblog_account: body.microblog_account ?? body.twitter,
  };
}
