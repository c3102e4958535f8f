/** Create or edit a menu item: name, description, price in BRL, category, preparation time, station, availability, modifier groups; then its recipe. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { Field } from '../../ui/Field.js';
import { apiField, centsToInput, errorText, parseMoney, Status, useIds } from './common.js';
import { RecipeEditor } from './RecipeEditor.js';
import { strings as t } from './strings.js';
import type { AdminItem, Category, Group } from './types.js';

const STATIONS = ['kitchen', 'bar', 'desserts'] as const;
type Station = (typeof STATIONS)[number];
type Errors = Partial<Record<'name' | 'description' | 'price' | 'category' | 'preparationTime' | 'station', string>>;

export function ItemForm({
  slug,
  item,
  categories,
  groups,
  defaultCategory,
  canRecipe,
  onSaved,
  onClose,
}: {
  slug: string;
  item: AdminItem | null;
  categories: Category[];
  groups: Group[];
  defaultCategory: string | null;
  canRecipe: boolean;
  onSaved: (item: AdminItem, created: boolean) => void;
  onClose: () => void;
}) {
  const ids = useIds('name', 'description', 'price', 'category', 'preparationTime', 'station', 'available');
  const [name, setName] = useState(item?.name ?? '');
  const [description, setDescription] = useState(item?.description ?? '');
  const [price, setPrice] = useState(item ? centsToInput(item.price) : '');
  const [category, setCategory] = useState(item?.category ?? defaultCategory ?? categories[0]?._id ?? '');
  const [prep, setPrep] = useState(item?.preparationTime == null ? '' : String(item.preparationTime));
  const [station, setStation] = useState<Station>(item?.station ?? 'kitchen');
  const [available, setAvailable] = useState(item?.isAvailable ?? true);
  const [groupIds, setGroupIds] = useState<string[]>(item?.modifierGroupIds ?? []);
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState('');
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  // Opened from the list (below the categories on a phone): bring the form into view, focus on its heading.
  useEffect(() => heading.current?.focus(), []);

  async function submit(e: Event) {
    e.preventDefault();
    const next: Errors = {};
    const cents = parseMoney(price);
    if (!name.trim()) next.name = t.required;
    if (!price.trim()) next.price = t.required;
    else if (cents === null || cents > 10_000_000) next.price = t.badPrice;
    if (!category) next.category = t.required;
    const minutes = prep.trim() === '' ? null : Number(prep);
    if (minutes !== null && (!Number.isInteger(minutes) || minutes < 0 || minutes > 1440)) next.preparationTime = t.badMinutes;
    setErrors(next);
    setFormError('');
    if (Object.keys(next).length) return;
    const body = {
      name: name.trim(),
      description: description.trim(),
      price: cents!,
      category,
      station,
      isAvailable: available,
      modifierGroupIds: groupIds,
    };
    setBusy(true);
    try {
      const saved = item
        ? await call(api.PUT('/t/{slug}/menu/items/{id}', { params: { path: { slug, id: item._id } }, body: { ...body, preparationTime: minutes } }))
        : await call(api.POST('/t/{slug}/menu/items', { params: { path: { slug } }, body: minutes === null ? body : { ...body, preparationTime: minutes } }));
      onSaved(saved, !item);
    } catch (err) {
      const fields: Errors = {};
      for (const k of ['name', 'description', 'price', 'category', 'preparationTime', 'station'] as const) {
        const m = apiField(err, k);
        if (m) fields[k] = m;
      }
      setErrors(fields);
      setFormError(t.failed(errorText(err)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="card item-form">
      <h2 ref={heading} tabIndex={-1}>
        {item ? t.editItem(item.name) : t.newItem}
      </h2>
      <form onSubmit={submit} noValidate>
        <div class="grid2">
          <Field label={t.name} id={ids.name} error={errors.name}>
            {(p) => <input {...p} value={name} maxLength={120} onInput={(e) => setName(e.currentTarget.value)} />}
          </Field>
          <Field label={t.price} id={ids.price} error={errors.price} hint={t.priceHint}>
            {(p) => <input {...p} value={price} inputMode="decimal" onInput={(e) => setPrice(e.currentTarget.value)} />}
          </Field>
        </div>
        <Field label={t.description} id={ids.description} error={errors.description}>
          {(p) => <textarea {...p} rows={2} maxLength={2000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />}
        </Field>
        <div class="grid3">
          <Field label={t.category} id={ids.category} error={errors.category}>
            {(p) => (
              <select {...p} value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
                {categories.map((c) => (
                  <option key={c._id} value={c._id}>
                    {c.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={t.prepTime} id={ids.preparationTime} error={errors.preparationTime}>
            {(p) => <input {...p} type="number" min={0} max={1440} inputMode="numeric" value={prep} onInput={(e) => setPrep(e.currentTarget.value)} />}
          </Field>
          <Field label={t.station} id={ids.station} error={errors.station}>
            {(p) => (
              <select {...p} value={station} onChange={(e) => setStation(e.currentTarget.value as Station)}>
                {STATIONS.map((s) => (
                  <option key={s} value={s}>
                    {t.stations[s]}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <label class="switch">
          <input type="checkbox" checked={available} onChange={(e) => setAvailable(e.currentTarget.checked)} />
          <span>{t.available}</span>
        </label>
        <fieldset class="groups-pick">
          <legend>{t.modifierGroups}</legend>
          {groups.length === 0 ? (
            <p class="hint">{t.noGroups}</p>
          ) : (
            groups.map((g) => (
              <label key={g._id} class="check">
                <input
                  type="checkbox"
                  checked={groupIds.includes(g._id)}
                  onChange={(e) => setGroupIds(e.currentTarget.checked ? [...groupIds, g._id] : groupIds.filter((x) => x !== g._id))}
                />
                <span>
                  {g.name} <span class="hint">({t.types[g.type]})</span>
                </span>
              </label>
            ))
          )}
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
      {canRecipe && (item ? <RecipeEditor slug={slug} item={item} /> : <p class="hint">{t.saveFirst}</p>)}
    </div>
  );
}
