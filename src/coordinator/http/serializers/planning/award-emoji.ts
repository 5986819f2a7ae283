import type { AwardView } from '../../../services/planning/award-emoji.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';

export interface AwardEmojiJson {
  id: number;
  name: string;
  user: UserBasicJson | null;
  created_at: string;
  updated_at: string;
  awardable_id: number;
  awardable_type: string;
}

/** GitLab's AwardEmoji entity (`awardable_id` is the or note's id, not an iid). */
export function serializeAwardEmoji({ award, user }: AwardView, externalUrl: string): AwardEmojiJson {
  return {
    id: award.id,
    name: award.name,
    user: user ? serializeUserBasic(user, externalUrl) : null,
    created_at: award.created_at,
    updated_at: award.updated_at,
    awardable_id: award.awardable_id,
    awardable_type: award.awardable_type,
  };
}
