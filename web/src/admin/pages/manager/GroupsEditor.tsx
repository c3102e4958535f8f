/** The modifier groups: single or multiple choice, required, min/max, options with price adjustment, default and availability. */
import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { Field } from '../../ui/Field.js';
import { formatMoney } from '../../ui/format.js';
import { apiField, centsToInput, errorText, parseMoney, Status, useIds } from './common.js';
import { strings as t } from './strings.js';
import type { Group } from './types.js';

interface OptionDraft {
  name: string;
  price: string;
  isDefault: boolean;
  available: boolean;
}
type Kind = 'single' | 'multiple';

const optionText = (o: Group['options'][number]) =>
  `${o.name}${o.priceAdjustment ? ` (${o.priceAdjustment > 0 ? '+' : ''}${formatMoney(o.priceAdjustment)})` : ''}${o.available ? '' : ` – ${t.unavailable}`}`;

export function GroupsEditor({ slug, groups, canEdit, onChange }: { slug: string; groups: Group[]; canEdit: boolean; onChange: (g: Group[]) => void }) {
  const [editing, setEditing] = useState<Group | 'new' | null>(null);
  const [status, setStatus] = useState<{ text: string; error?: boolean }>({ text: '' });

  async function remove(g: Group) {
    if (!confirm(t.confirmDelete(g.name))) return;
    try {
      await call(api.DELETE('/t/{slug}/menu/modifier-groups/{id}', { params: { path: { slug, id: g._id } } }));
      onChange(groups.filter((x) => x._id !== g._id));
    } catch (err) {
      setStatus({ text: t.failed(errorText(err)), error: true });
    }
  }

  if (editing) {
    return (
      <GroupForm
        key={editing === 'new' ? 'new' : editing._id}
        slug={slug}
        group={editing === 'new' ? null : editing}
        onSaved={(g, created) => {
          onChange(created ? [...groups, g] : groups.map((x) => (x._id === g._id ? g : x)));
          setEditing(null);
          setStatus({ text: t.saved });
        }}
        onClose={() => setEditing(null)}
      />
    );
  }
  return (
    <div>
      <div class="toolbar">
        <h2 class="grow">{t.modifierGroups}</h2>
        {canEdit && (
          <button type="button" class="btn primary" onClick={() => setEditing('new')}>
            {t.newGroup}
          </button>
        )}
      </div>
      {!canEdit && <p class="hint">{t.readOnlyGroups}</p>}
      <Status {...status} />
      {groups.length === 0 ? (
        <p class="empty">{t.noGroups}</p>
      ) : (
        <ul class="group-list">
          {groups.map((g) => (
            <li key={g._id} class="card">
              <div class="toolbar">
                <strong class="grow">{g.name}</strong>
                <span class="hint">
                  {t.types[g.type]}
                  {g.required ? ` · ${t.requiredGroup}` : ''} · {g.minSelections}–{g.maxSelections}
                </span>
                {canEdit && (
                  <>
                    <button type="button" class="btn small" aria-label={`${t.edit} ${g.name}`} onClick={() => setEditing(g)}>
                      {t.edit}
                    </button>
                    <button type="button" class="btn small" aria-label={`${t.remove} ${g.name}`} onClick={() => void remove(g)}>
                      {t.remove}
                    </button>
                  </>
                )}
              </div>
              <p class="hint">
                {g.options.map(optionText).join(' · ')}
              </p>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

interface GroupFormProps {
  slug: string;
  group: Group | null;
  onSaved: (g: Group, created: boolean) => void;
  onClose: () => void;
}

function GroupForm({ slug, group, onSaved, onClose }: GroupFormProps) {
  const ids = useIds('name', 'type', 'min', 'max');
  const [name, setName] = useState(group?.name ?? '');
  const [type, setType] = useState<Kind>(group?.type ?? 'single');
  const [required, setRequired] = useState(group?.required ?? false);
  const [min, setMin] = useState(String(group?.minSelections ?? 0));
  const [max, setMax] = useState(String(group?.maxSelections ?? 1));
  const [options, setOptions] = useState<OptionDraft[]>(
    group?.options.map((o) => ({ name: o.name, price: centsToInput(o.priceAdjustment), isDefault: o.isDefault, available: o.available })) ?? [
      { name: '', price: '0,00', isDefault: false, available: true },
    ],
  );
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [formError, setFormError] = useState('');
  const [busy, setBusy] = useState(false);

  const setOption = (i: number, patch: Partial<OptionDraft>) => setOptions(options.map((o, j) => (j === i ? { ...o, ...patch } : o)));

  async function submit(e: Event) {
    e.preventDefault();
    const next: Record<string, string> = {};
    if (!name.trim()) next.name = t.required;
    const minN = Number(min);
    const maxN = type === 'single' ? 1 : Number(max);
    if (!Number.isInteger(minN) || minN < 0 || minN > 50) next.min = t.badSelections;
    if (!Number.isInteger(maxN) || maxN < 1 || maxN > 50) next.max = t.badSelections;
    if (!next.min && !next.max && minN > maxN) next.min = t.badMinMax;
    if (options.length === 0) next.options = t.needOption;
    const body = options.map((o, i) => {
      if (!o.name.trim()) next[`opt${i}name`] = t.required;
      const cents = parseMoney(o.price || '0', { allowNegative: true });
      if (cents === null) next[`opt${i}price`] = t.badAdjustment;
      return { name: o.name.trim(), priceAdjustment: cents ?? 0, isDefault: o.isDefault, available: o.available };
    });
    setErrors(next);
    setFormError('');
    if (Object.keys(next).length) return;
    const payload = { name: name.trim(), type, required, minSelections: minN, maxSelections: maxN, options: body };
    setBusy(true);
    try {
      const saved = group
        ? await call(api.PUT('/t/{slug}/menu/modifier-groups/{id}', { params: { path: { slug, id: group._id } }, body: payload }))
        : await call(api.POST('/t/{slug}/menu/modifier-groups', { params: { path: { slug } }, body: payload }));
      onSaved(saved, !group);
    } catch (err) {
      setErrors({ name: apiField(err, 'name'), min: apiField(err, 'minSelections'), max: apiField(err, 'maxSelections'), options: apiField(err, 'options') });
      setFormError(t.failed(errorText(err)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card" onSubmit={submit} noValidate>
      <h2>{group ? `${t.edit} ${group.name}` : t.newGroup}</h2>
      <div class="grid2">
        <Field label={t.groupName} id={ids.name} error={errors.name}>
          {(p) => <input {...p} value={name} maxLength={120} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <Field label={t.type} id={ids.type}>
          {(p) => (
            <select {...p} value={type} onChange={(e) => setType(e.currentTarget.value as Kind)}>
              <option value="single">{t.types.single}</option>
              <option value="multiple">{t.types.multiple}</option>
            </select>
          )}
        </Field>
      </div>
      <div class="grid3">
        <label class="switch">
          <input type="checkbox" checked={required} onChange={(e) => setRequired(e.currentTarget.checked)} />
          <span>{t.requiredGroup}</span>
        </label>
        <Field label={t.minSel} id={ids.min} error={errors.min}>
          {(p) => <input {...p} type="number" min={0} max={50} value={min} onInput={(e) => setMin(e.currentTarget.value)} />}
        </Field>
        {type === 'multiple' && (
          <Field label={t.maxSel} id={ids.max} error={errors.max}>
            {(p) => <input {...p} type="number" min={1} max={50} value={max} onInput={(e) => setMax(e.currentTarget.value)} />}
          </Field>
        )}
      </div>
      <fieldset class="options">
        <legend>{t.options}</legend>
        {errors.options && (
          <p class="field-error" role="alert">
            {errors.options}
          </p>
        )}
        {options.map((o, i) => (
          <div key={i} class="option-row">
            <Field label={`${t.optionName} ${i + 1}`} id={`${ids.name}-o${i}`} error={errors[`opt${i}name`]}>
              {(p) => <input {...p} value={o.name} maxLength={80} onInput={(e) => setOption(i, { name: e.currentTarget.value })} />}
            </Field>
            <Field label={t.adjustment} id={`${ids.name}-p${i}`} error={errors[`opt${i}price`]}>
              {(p) => <input {...p} value={o.price} inputMode="decimal" onInput={(e) => setOption(i, { price: e.currentTarget.value })} />}
            </Field>
            <label class="check">
              <input type="checkbox" checked={o.isDefault} onChange={(e) => setOption(i, { isDefault: e.currentTarget.checked })} />
              <span>{t.isDefault}</span>
            </label>
            <label class="check">
              <input type="checkbox" checked={o.available} onChange={(e) => setOption(i, { available: e.currentTarget.checked })} />
              <span>{t.available}</span>
            </label>
            <button type="button" class="btn small" aria-label={t.removeOption(o.name)} onClick={() => setOptions(options.filter((_, j) => j !== i))}>
              ✕
            </button>
          </div>
        ))}
        <button type="button" class="btn" onClick={() => setOptions([...options, { name: '', price: '0,00', isDefault: false, available: true }])}>
          {t.addOption}
        </button>
      </fieldset>
      <Status text={formError} error />
      <div class="toolbar">
        <button type="submit" class="btn primary" disabled={busy}>
          {busy ? t.saving : t.save}
        </button>
        <button type="button" class="btn" onClick={onClose}>
          {t.cancel}
        </button>
      </div>
    </form>
  );
}
