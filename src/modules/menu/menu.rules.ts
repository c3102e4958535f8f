import type { ModifierGroupType, ModifierOption } from '../../db/schema/menu.js';
import type { FieldProblem } from '../../platform/domain-errors.js';

/** The parts of a modifier group the selection rules are about. */
export interface GroupRules {
  type: ModifierGroupType;
  required: boolean;
  minSelections: number;
  maxSelections: number;
  options: ModifierOption[];
}

export interface GroupRulesInput {
  type?: ModifierGroupType;
  required?: boolean;
  minSelections?: number;
  maxSelections?: number;
  options?: { name: string; priceAdjustment?: number; isDefault?: boolean; available?: boolean }[];
}

export function normalizeOptions(options: NonNullable<GroupRulesInput['options']>): ModifierOption[] {
  return options.map((o) => ({
    name: o.name.trim(),
    priceAdjustment: o.priceAdjustment ?? 0,
    isDefault: o.isDefault ?? false,
    available: o.available ?? true,
  }));
}

/**
 * The group a write would leave, before its rules are checked.
 * On create, unspecified bounds follow the type and `required`: `single` -> at most 1,
 * `multiple` -> up to every option; required -> at least 1, else 0.
 * On update, unspecified bounds keep their value, except that switching to `single` sets
 * `maxSelections` to 1 and changing `required` moves `minSelections` to 1 (true) or 0 (false).
 */
export function resolveGroupRules(input: GroupRulesInput, current?: GroupRules): GroupRules {
  const type = input.type ?? current?.type ?? 'single';
  const required = input.required ?? current?.required ?? false;
  const options = input.options ? normalizeOptions(input.options) : (current?.options ?? []);
  let maxSelections = input.maxSelections;
  if (maxSelections === undefined) {
    if (!current || (input.type === 'single' && current.type !== 'single')) maxSelections = type === 'single' ? 1 : options.length;
    else maxSelections = current.maxSelections;
  }
  let minSelections = input.minSelections;
  if (minSelections === undefined) {
    if (!current || (input.required !== undefined && input.required !== current.required)) minSelections = required ? 1 : 0;
    else minSelections = current.minSelections;
  }
  return { type, required, minSelections, maxSelections, options };
}

/**
 * Every broken rule, each naming its field:
 * `single` means `maxSelections` 1; `minSelections` <= `maxSelections` <= number of options;
 * `required` implies `minSelections` >= 1; option names unique inside the group (ignoring case);
 * no more default options than `maxSelections`.
 */
export function groupRuleViolations(g: GroupRules): FieldProblem[] {
  const out: FieldProblem[] = [];
  if (g.type === 'single' && g.maxSelections !== 1) {
    out.push({ field: 'maxSelections', message: 'must be 1 for a single-choice group' });
  }
  if (g.minSelections > g.maxSelections) {
    out.push({ field: 'minSelections', message: `must not exceed maxSelections (${g.maxSelections})` });
  }
  if (g.maxSelections > g.options.length) {
    out.push({ field: 'maxSelections', message: `must not exceed the number of options (${g.options.length})` });
  }
  if (g.required && g.minSelections < 1) {
    out.push({ field: 'minSelections', message: 'must be at least 1 for a required group' });
  }
  const seen = new Set<string>();
  const dupes = new Set<string>();
  for (const o of g.options) {
    const key = o.name.toLocaleLowerCase('pt-BR');
    if (seen.has(key)) dupes.add(o.name);
    seen.add(key);
  }
  if (dupes.size) out.push({ field: 'options', message: `option names must be unique in the group: ${[...dupes].join(', ')}` });
  const defaults = g.options.filter((o) => o.isDefault).length;
  if (defaults > g.maxSelections) {
    out.push({ field: 'options', message: `${defaults} options are default but at most ${g.maxSelections} can be selected` });
  }
  return out;
}
