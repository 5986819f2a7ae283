import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMentions } from '../../src/coordinator/services/planning/mentions.ts';

describe('mention parser', () => {
  it('finds @usernames once each, lowercased, and the ones the text starts with', () => {
    const found = parseMentions('@Alice, @bob please look.\nThanks @carol and @alice; cc @dave.');
    assert.deepEqual(found, { usernames: ['alice', 'bob', 'carol', 'dave'], directlyAddressed: ['alice', 'bob'] });
    assert.deepEqual(parseMentions('Hey @alice').directlyAddressed, []);
    assert.deepEqual(parseMentions('  @alice\n@bob').directlyAddressed, ['alice']);
  });

  it('skips code spans, fenced and indented code blocks', () => {
    const text = ['`@inline` and ``a ` @double `` but @real', '```', '@fenced', '```', '~~~~', '@tilde', '~~~~', '', '    @indented', 'after @last', '`unclosed @open'].join('\n');
    assert.deepEqual(parseMentions(text).usernames, ['real', 'last', 'open']);
    assert.deepEqual(parseMentions('```\n@never closed').usernames, []);
  });

  it('ignores e-mail addresses, URLs, @all, group paths and bare @', () => {
    assert.deepEqual(parseMentions('mail a@b.com, see https://x.test/@carl, @all, @team/sub, @ alone, @-dash, @ok_1.x-y').usernames, ['ok_1.x-y']);
  });

  it('keeps to its budget: characters read, names kept, name length', () => {
    const many = Array.from({ length: 80 }, (_, index) => `@user${index}`).join(' ');
    assert.equal(parseMentions(many).usernames.length, 50);
    assert.deepEqual(parseMentions('@early and later @late', { maxText: 10, maxMentions: 50, maxNameLength: 255 }).usernames, ['early']);
    assert.deepEqual(parseMentions(`@${'a'.repeat(300)} @short`).usernames, ['short']);
    assert.deepEqual(parseMentions(null), { usernames: [], directlyAddressed: [] });
  });

  it('takes backtick runs without a closer of their length literally (a megabyte of them, every length once)', () => {
    const runs = Array.from({ length: 1400 }, (_, index) => '`'.repeat(index + 1)).join(' @x ');
    assert.ok(runs.length > 900_000);
    assert.deepEqual(parseMentions(runs).usernames, ['x']);
    assert.deepEqual(parseMentions('`` @a ` @b ``').usernames, []);
  });
});
