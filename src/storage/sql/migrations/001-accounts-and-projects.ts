import { sql } from '#deps/kysely';
import { withId, type DialectMigration } from './helpers.ts';

/** Users, tokens, namespaces (user and group), projects, members, keys, settings. */
export const accountsAndProjects: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('users'), dialect)
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('password_digest', 'text')
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
      .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('is_ghost', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('bio', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('location', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('messenger_id', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('network_profile', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('microblog_account', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('website_url', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('organization', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('projects_limit', 'integer', (c) => c.notNull())
      .addColumn('can_create_group', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('external', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('extern_uid', 'text')
      .addColumn('provider', 'text')
      .addColumn('avatar_url', 'text')
      .addColumn('theme_id', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('color_scheme_id', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('two_factor_enabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('password_expires_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('confirmed_at', 'text')
      .addColumn('last_sign_in_at', 'text')
      .addColumn('current_sign_in_at', 'text')
      .addColumn('last_activity_on', 'text')
      .execute();
    await db.schema.createIndex('users_username').unique().on('users').expression(lowered('username')).execute();
    await db.schema.createIndex('users_email').unique().on('users').expression(lowered('email')).execute();

    await withId(db.schema.createTable('personal_tokens'), dialect)
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('token_digest', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await withId(db.schema.createTable('namespaces'), dialect)
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('full_path', 'text', (c) => c.notNull())
      .addColumn('full_name', 'text', (c) => c.notNull())
      .addColumn('parent_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
      .addColumn('owner_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('lfs_enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('request_access_enabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('avatar_url', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('namespaces_full_path').unique().on('namespaces').expression(lowered('full_path')).execute();
    await db.schema.createIndex('namespaces_parent').on('namespaces').column('parent_id').execute();

    await withId(db.schema.createTable('projects'), dialect)
      .addColumn('namespace_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
      .addColumn('creator_id', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('default_branch', 'text')
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('issues_enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('merge_requests_enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('wiki_enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('jobs_enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('snippets_enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('container_registry_enabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('resolve_outdated_diff_discussions', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('shared_runners_enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('public_jobs', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('request_access_enabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('only_allow_merge_if_pipeline_succeeds', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('only_allow_merge_if_all_discussions_are_resolved', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('printing_merge_requests_link_enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('lfs_enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('tag_list', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('forked_from_id', 'integer', (c) => c.references('projects.id').onDelete('set null'))
      .addColumn('runners_token', 'text', (c) => c.notNull().unique())
      .addColumn('import_status', 'text', (c) => c.notNull().defaultTo('none'))
      .addColumn('import_error', 'text')
      .addColumn('avatar_url', 'text')
      .addColumn('ci_config_path', 'text')
      .addColumn('pending_delete', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('last_activity_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('projects_namespace_path')
      .unique()
      .on('projects')
      .columns(['namespace_id', 'path'])
      .execute();
    await db.schema.createIndex('projects_created_at').on('projects').columns(['created_at', 'id']).execute();
    await db.schema.createIndex('projects_visibility').on('projects').columns(['visibility', 'id']).execute();

    await withId(db.schema.createTable('members'), dialect)
      .addColumn('source_type', 'text', (c) => c.notNull())
      .addColumn('source_id', 'integer', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('access_level', 'integer', (c) => c.notNull())
      .addColumn('notification_level', 'integer', (c) => c.notNull().defaultTo(3))
      .addColumn('expires_at', 'text')
      .addColumn('created_by_id', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('members_source_user')
      .unique()
      .on('members')
      .columns(['source_type', 'source_id', 'user_id'])
      .execute();
    await db.schema.createIndex('members_user').on('members').columns(['user_id', 'source_type']).execute();

    await withId(db.schema.createTable('project_group_links'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('group_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
      .addColumn('group_access', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('project_group_links_unique')
      .unique()
      .on('project_group_links')
      .columns(['project_id', 'group_id'])
      .execute();
    await db.schema.createIndex('project_group_links_group').on('project_group_links').column('group_id').execute();

    await db.schema
      .createTable('stars')
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('stars_pk', ['user_id', 'project_id'])
      .execute();
    await db.schema.createIndex('stars_project').on('stars').column('project_id').execute();

    await withId(db.schema.createTable('ssh_keys'), dialect)
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull().unique())
      .addColumn('key_type', 'text', (c) => c.notNull())
      .addColumn('key_bits', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await withId(db.schema.createTable('gpg_keys'), dialect)
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull().unique())
      .addColumn('primary_keyid', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await withId(db.schema.createTable('custom_attributes'), dialect)
      .addColumn('subject_type', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'integer', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('custom_attributes_subject_key')
      .unique()
      .on('custom_attributes')
      .columns(['subject_type', 'subject_id', 'key'])
      .execute();

    await db.schema
      .createTable('application_settings')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('settings', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};

function lowered(column: string) {
  return sql`lower(${sql.ref(column)})`;
}
