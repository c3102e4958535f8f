/**
 * The cart's rules, free of the DOM: modifier choices checked against their group's rules, line prices
 * (the API prices the order again from the menu; these are what the guest sees before ordering).
 */
import type { MenuItem, ModifierGroup } from './types.js';

/** Chosen option names per group id. */
export type Choices = Record<string, string[]>;

export interface CartLine {
  /** Local id (edit / remove). */
  key: string;
  item: MenuItem;
  quantity: number;
  notes: string;
  choices: Choices;
}

/** Minimum and maximum options a guest must / may pick in `group`. */
export function groupLimits(group: ModifierGroup): { min: number; max: number } {
  const available = group.options.filter((o) => o.available).length;
  if (group.type === 'single') return { min: group.required || group.minSelections > 0 ? 1 : 0, max: 1 };
  const max = Math.max(1, Math.min(group.maxSelections || available, available || 1));
  const min = Math.min(Math.max(group.minSelections, group.required ? 1 : 0), max);
  return { min, max };
}

/** The preselected choices: each group's available defaults (one for a single group), within its maximum. */
export function defaultChoices(groups: ModifierGroup[]): Choices {
  const out: Choices = {};
  for (const g of groups) {
    const { max } = groupLimits(g);
    out[g._id] = g.options.filter((o) => o.isDefault && o.available).slice(0, max).map((o) => o.name);
  }
  return out;
}

/** Toggles `option` in `group`: a single group replaces its choice; a multiple group stops at its maximum. */
export function toggleChoice(choices: Choices, group: ModifierGroup, option: string): Choices {
  const current = choices[group._id] ?? [];
  const { max, min } = groupLimits(group);
  let next: string[];
  if (group.type === 'single') next = current[0] === option && min === 0 ? [] : [option];
  else if (current.includes(option)) next = current.filter((o) => o !== option);
  else if (current.length >= max) next = current;
  else next = [...current, option];
  return { ...choices, [group._id]: next };
}

/** Ids of the groups whose choice breaks their rules (too few picked). */
export function invalidGroups(groups: ModifierGroup[], choices: Choices): string[] {
  return groups.filter((g) => {
    const n = (choices[g._id] ?? []).length;
    const { min, max } = groupLimits(g);
    return n < min || n > max;
  }).map((g) => g._id);
}

/** Unit price in cents with the chosen options' adjustments (never below 0). */
export function unitPrice(item: MenuItem, groups: ModifierGroup[], choices: Choices): number {
  let price = item.price;
  for (const g of groups) {
    for (const name of choices[g._id] ?? []) price += g.options.find((o) => o.name === name)?.priceAdjustment ?? 0;
  }
  return Math.max(0, price);
}

/** Cents for `quantity` units (or kg), rounded half up like the API. */
export function lineTotal(unit: number, quantity: number): number {
  return Math.round(unit * quantity);
}

/** The groups of `item`, in its order, skipping ids the menu no longer has. */
export function groupsOf(item: MenuItem, groups: Map<string, ModifierGroup>): ModifierGroup[] {
  return item.modifierGroupIds.map((id) => groups.get(id)).filter((g): g is ModifierGroup => !!g);
}

/** The order line of the API for a cart line (empty groups left out). */
export function toOrderLine(line: CartLine) {
  const modifiers = Object.entries(line.choices)
    .filter(([, options]) => options.length > 0)
    .map(([groupId, options]) => ({ groupId, options }));
  return {
    menuItemId: line.item._id,
    quantity: line.quantity,
    ...(line.notes.trim() ? { notes: line.notes.trim() } : {}),
    ...(modifiers.length ? { modifiers } : {}),
  };
}
