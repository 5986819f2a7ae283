import { labelTextColor } from '../../../services/planning/label-colors.ts';
import type { LabelRecord } from '../../../../storage/types-planning.ts';

/** GitLab's LabelBasic, as the issue and merge request lists' `with_labels_details` show labels (no `description_html`: labels are not rendered). */
export interface LabelBasicJson {
  id: number;
  name: string;
  color: string;
  description: string | null;
  text_color: string;
}

export function serializeLabelBasic(label: LabelRecord): LabelBasicJson {
  return { id: label.id, name: label.title, color: label.color, description: label.description, text_color: labelTextColor(label.color) };
}
