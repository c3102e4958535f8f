import { describe, expect, it } from 'vitest';
import type { ModifierOption } from '../../db/schema/menu.js';
import { groupRuleViolations, normalizeOptions, resolveGroupRules, type GroupRules } from './menu.rules.js';

/** Pure rules of modifier groups: no database, no app. */

const opt = (name: string, overrides: Partial<ModifierOption> = {}): ModifierOption => ({
  name,
  priceAdjustment: 0,
  isDefault: false,
  available: true,
  ...overrides,
});
const options = (...names: string[]) => names.map((n) => opt(n));
const group = (overrides: Partial<GroupRules> = {}): GroupRules => ({
  type: 'multiple',
  required: false,
  minSelections: 0,
  maxSelections: 3,
  options: options('Bacon', 'Queijo', 'Ovo'),
  ...overrides,
});
const fields = (g: GroupRules) => groupRuleViolations(g).map((v) => v.field);

describe('normalizeOptions', () => {
  it('trims names and fills the defaults: no price change, not default, available', () => {
    expect(normalizeOptions([{ name: '  Ao ponto ' }])).toEqual([{ name: 'Ao ponto', priceAdjustment: 0, isDefault: false, available: true }]);
  });

  it('keeps what was given', () => {
    expect(normalizeOptions([{ name: 'Bacon', priceAdjustment: 350, isDefault: true, available: false }])).toEqual([
      { name: 'Bacon', priceAdjustment: 350, isDefault: true, available: false },
    ]);
  });

  it('keeps the order and handles an empty list', () => {
    expect(normalizeOptions([]).length).toBe(0);
    expect(normalizeOptions([{ name: 'b' }, { name: 'a' }, { name: 'c' }]).map((o) => o.name)).toEqual(['b', 'a', 'c']);
  });
});

describe('resolveGroupRules on create', () => {
  it('defaults to an optional single choice', () => {
    expect(resolveGroupRules({})).toEqual({ type: 'single', required: false, minSelections: 0, maxSelections: 1, options: [] });
  });

  it('derives the bounds from the type and required', () => {
    const three = [{ name: 'Bacon' }, { name: 'Queijo' }, { name: 'Ovo' }];
    expect(resolveGroupRules({ type: 'single', required: true, options: three })).toMatchObject({ minSelections: 1, maxSelections: 1 });
    expect(resolveGroupRules({ type: 'single', required: false, options: three })).toMatchObject({ minSelections: 0, maxSelections: 1 });
    expect(resolveGroupRules({ type: 'multiple', required: false, options: three })).toMatchObject({ minSelections: 0, maxSelections: 3 });
    expect(resolveGroupRules({ type: 'multiple', required: true, options: three })).toMatchObject({ minSelections: 1, maxSelections: 3 });
    expect(resolveGroupRules({ type: 'multiple', options: [] })).toMatchObject({ minSelections: 0, maxSelections: 0 });
  });

  it('keeps bounds that were given, even ones the checks will refuse', () => {
    const three = [{ name: 'Bacon' }, { name: 'Queijo' }, { name: 'Ovo' }];
    expect(resolveGroupRules({ type: 'multiple', minSelections: 2, maxSelections: 2, options: three })).toMatchObject({ minSelections: 2, maxSelections: 2 });
    expect(resolveGroupRules({ type: 'single', maxSelections: 2, options: three })).toMatchObject({ maxSelections: 2 });
    expect(resolveGroupRules({ required: true, minSelections: 0 })).toMatchObject({ minSelections: 0 });
  });

  it('normalizes the options', () => {
    expect(resolveGroupRules({ options: [{ name: ' Bacon ', priceAdjustment: 300 }] }).options).toEqual([opt('Bacon', { priceAdjustment: 300 })]);
  });
});

describe('resolveGroupRules on update', () => {
  const current = group({ type: 'multiple', required: true, minSelections: 2, maxSelections: 2 });

  it('keeps everything not given', () => {
    expect(resolveGroupRules({}, current)).toEqual(current);
  });

  it('sets maxSelections to 1 when switching to single', () => {
    expect(resolveGroupRules({ type: 'single' }, current)).toMatchObject({ type: 'single', maxSelections: 1, minSelections: 2 });
  });

  it('keeps maxSelections when switching to multiple, or when single is given again', () => {
    const single = group({ type: 'single', minSelections: 0, maxSelections: 1 });
    expect(resolveGroupRules({ type: 'multiple' }, single)).toMatchObject({ type: 'multiple', maxSelections: 1 });
    expect(resolveGroupRules({ type: 'single' }, single)).toMatchObject({ type: 'single', maxSelections: 1 });
    // Given again as multiple: the current bound stays.
    expect(resolveGroupRules({ type: 'multiple' }, current)).toMatchObject({ maxSelections: 2 });
  });

  it('lets a given maxSelections win over the switch to single', () => {
    expect(resolveGroupRules({ type: 'single', maxSelections: 3 }, current)).toMatchObject({ maxSelections: 3 });
  });

  it('moves minSelections to 1 or 0 only when required changes', () => {
    const optional = group({ required: false, minSelections: 0 });
    expect(resolveGroupRules({ required: true }, optional)).toMatchObject({ required: true, minSelections: 1 });
    expect(resolveGroupRules({ required: false }, current)).toMatchObject({ required: false, minSelections: 0 });
    // Same value again: the current bound stays.
    expect(resolveGroupRules({ required: true }, current)).toMatchObject({ required: true, minSelections: 2 });
    expect(resolveGroupRules({ required: false }, optional)).toMatchObject({ minSelections: 0 });
  });

  it('lets a given minSelections win over the change of required', () => {
    expect(resolveGroupRules({ required: true, minSelections: 3 }, group())).toMatchObject({ minSelections: 3 });
  });

  it('replaces the options without moving the bounds', () => {
    const resolved = resolveGroupRules({ options: [{ name: 'Bacon' }] }, current);
    expect(resolved.options).toEqual(options('Bacon'));
    expect(resolved).toMatchObject({ minSelections: 2, maxSelections: 2 });
    // ...which the checks then refuse: two selections out of one option.
    expect(fields(resolved)).toContain('maxSelections');
  });
});

describe('groupRuleViolations', () => {
  it('accepts valid groups, bounds included', () => {
    expect(groupRuleViolations(group())).toEqual([]);
    // min == max == number of options
    expect(groupRuleViolations(group({ required: true, minSelections: 3, maxSelections: 3 }))).toEqual([]);
    expect(groupRuleViolations(group({ type: 'single', required: true, minSelections: 1, maxSelections: 1 }))).toEqual([]);
    // as many defaults as can be selected
    expect(groupRuleViolations(group({ maxSelections: 2, options: [opt('Bacon', { isDefault: true }), opt('Queijo', { isDefault: true }), opt('Ovo')] }))).toEqual([]);
    // an empty optional multiple-choice group
    expect(groupRuleViolations(group({ maxSelections: 0, options: [] }))).toEqual([]);
  });

  it('requires maxSelections 1 for a single-choice group', () => {
    expect(groupRuleViolations(group({ type: 'single', maxSelections: 2 }))).toEqual([
      { field: 'maxSelections', message: 'must be 1 for a single-choice group' },
    ]);
    expect(fields(group({ type: 'single', maxSelections: 0, minSelections: 0 }))).toEqual(['maxSelections']);
  });

  it('refuses minSelections above maxSelections', () => {
    expect(groupRuleViolations(group({ minSelections: 3, maxSelections: 2 }))).toEqual([
      { field: 'minSelections', message: 'must not exceed maxSelections (2)' },
    ]);
  });

  it('refuses maxSelections above the number of options', () => {
    expect(groupRuleViolations(group({ maxSelections: 4 }))).toEqual([
      { field: 'maxSelections', message: 'must not exceed the number of options (3)' },
    ]);
    expect(fields(group({ type: 'single', maxSelections: 1, options: [] }))).toEqual(['maxSelections']);
  });

  it('requires at least one selection in a required group', () => {
    expect(groupRuleViolations(group({ required: true, minSelections: 0 }))).toEqual([
      { field: 'minSelections', message: 'must be at least 1 for a required group' },
    ]);
    expect(groupRuleViolations(group({ required: true, minSelections: 1 }))).toEqual([]);
  });

  it('refuses option names repeated in the group, ignoring case', () => {
    const [v, ...rest] = groupRuleViolations(group({ options: options('Bacon', 'bacon', 'Ovo') }));
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ field: 'options', message: expect.stringContaining('unique') });
    expect(v.message).toContain('bacon');
    expect(fields(group({ options: options('ÁGUA', 'água', 'Ovo') }))).toEqual(['options']);
    // Accents still tell names apart.
    expect(groupRuleViolations(group({ options: options('Agua', 'Água', 'Ovo') }))).toEqual([]);
  });

  it('refuses more default options than can be selected', () => {
    const g = group({ type: 'single', maxSelections: 1, options: [opt('Mal', { isDefault: true }), opt('Ao ponto', { isDefault: true }), opt('Bem')] });
    expect(groupRuleViolations(g)).toEqual([{ field: 'options', message: '2 options are default but at most 1 can be selected' }]);
  });

  it('reports every broken rule at once, each naming its field', () => {
    const g: GroupRules = {
      type: 'single',
      required: true,
      minSelections: 0,
      maxSelections: 3,
      options: [opt('Ovo', { isDefault: true }), opt('ovo', { isDefault: true })],
    };
    expect(fields(g).sort()).toEqual(['maxSelections', 'maxSelections', 'minSelections', 'options']);
    const h = group({ required: true, minSelections: 0, maxSelections: 5, options: [opt('A', { isDefault: true })] });
    expect(groupRuleViolations(h).map((v) => v.message)).toEqual([
      'must not exceed the number of options (1)',
      'must be at least 1 for a required group',
    ]);
  });
});
