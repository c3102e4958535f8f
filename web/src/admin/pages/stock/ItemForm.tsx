/** Create or edit an inventory item (admin): checks the fields, then shows the API's field errors. */
import { useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { Field, fieldId } from '../../ui/Field.js';
import { centsText, errorText, parseCents, parseDecimal, threeDecimals } from './lib.js';
import { s } from './strings.js';

type Item = components['schemas']['InventoryItem'];
type Unit = Item['unit'];
type Status = Item['status'];

const FIELDS = ['name', 'sku', 'unit', 'currentStock', 'minStock', 'cost', 'ean', 'packSize', 'expirationDate', 'status'] as const;
type Name = (typeof FIELDS)[number];

export function ItemForm({ slug, item, onDone, onCancel }: { slug: string; item: Item | null; onDone: (item: Item) => void; onCancel: () => void }) {
  const [ids] = useState(() => Object.fromEntries(FIELDS.map((f) => [f, fieldId(`item-${f}`)])) as Record<Name, string>);
  const [v, setV] = useState<Record<Name, string>>({
    name: item?.name ?? '',
    sku: item?.sku ?? '',
    unit: item?.unit ?? 'un',
    currentStock: '0',
    minStock: item ? String(item.minStock).replace('.', ',') : '0',
    cost: item ? centsText(item.cost) : '',
    ean: item?.ean ?? '',
    packSize: item?.packSize != null ? String(item.packSize).replace('.', ',') : '',
    expirationDate: item?.expirationDate ?? '',
    status: item?.status ?? 'active',
  });
  const [errors, setErrors] = useState<Partial<Record<Name, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (name: Name) => (e: Event) => setV({ ...v, [name]: (e.currentTarget as HTMLInputElement).value });

  const qty = (text: string, errs: Partial<Record<Name, string>>, name: Name, min = 0) => {
    const n = parseDecimal(text);
    if (n === null || n < min || !threeDecimals(n)) errs[name] = min > 0 ? s.positive : s.badNumber;
    return n ?? 0;
  };

  async function submit(e: Event) {
    e.preventDefault();
    const errs: Partial<Record<Name, string>> = {};
    if (!v.name.trim()) errs.name = s.required;
    if (!v.sku.trim()) errs.sku = s.required;
    const minStock = qty(v.minStock, errs, 'minStock');
    const currentStock = item ? 0 : qty(v.currentStock, errs, 'currentStock');
    const cost = parseCents(v.cost);
    if (cost === null) errs.cost = s.badMoney;
    if (v.ean.trim() && !/^\d{8,14}$/.test(v.ean.trim())) errs.ean = 'EAN com 8 a 14 dígitos.';
    const packSize = v.packSize.trim() ? qty(v.packSize, errs, 'packSize', 0.001) : null;
    setErrors(errs);
    setFormError(null);
    if (Object.keys(errs).length) return;
    const common = {
      name: v.name.trim(),
      sku: v.sku.trim(),
      unit: v.unit as Unit,
      minStock,
      cost: cost!,
      ean: v.ean.trim() || null,
      packSize,
      expirationDate: v.expirationDate || null,
      status: v.status as Status,
    };
    setBusy(true);
    try {
      const saved = item
        ? await call(api.PUT('/t/{slug}/inventory/{id}', { params: { path: { slug, id: item._id } }, body: common }))
        : await call(api.POST('/t/{slug}/inventory', { params: { path: { slug } }, body: { ...common, currentStock } }));
      onDone(saved);
    } catch (err) {
      if (err instanceof ApiError && err.fields.length) {
        const next: Partial<Record<Name, string>> = {};
        for (const f of FIELDS) {
          const m = err.fieldMessage(f);
          if (m) next[f] = m;
        }
        setErrors(next);
      }
      if (err instanceof ApiError && err.code === 'sku_taken') setErrors((x) => ({ ...x, sku: err.message }));
      else if (err instanceof ApiError && err.code === 'ean_taken') setErrors((x) => ({ ...x, ean: err.message }));
      setFormError(errorText(err, s.failed));
    } finally {
      setBusy(false);
    }
  }

  const input = (name: Name, label: string, extra: Record<string, unknown> = {}) => (
    <Field id={ids[name]} label={label} error={errors[name]}>
      {(p) => <input {...p} {...extra} name={name} value={v[name]} onInput={set(name)} />}
    </Field>
  );

  return (
    <form class="card stock-form" noValidate onSubmit={submit} aria-label={item ? s.editItem : s.newItem}>
      <h2>{item ? s.editItem : s.newItem}</h2>
      <div class="grid">
        {input('name', s.name, { maxLength: 120 })}
        {input('sku', s.sku, { maxLength: 64 })}
        <Field id={ids.unit} label={s.unit} error={errors.unit}>
          {(p) => (
            <select {...p} value={v.unit} onChange={set('unit')}>
              <option value="un">Unidade (un)</option>
              <option value="kg">Quilo (kg)</option>
              <option value="l">Litro (L)</option>
            </select>
          )}
        </Field>
        {!item && input('currentStock', s.openingStock, { inputMode: 'decimal' })}
        {input('minStock', s.min, { inputMode: 'decimal' })}
        {input('cost', s.cost, { inputMode: 'decimal', placeholder: '0,00' })}
        {input('ean', s.ean, { inputMode: 'numeric', maxLength: 14 })}
        {input('packSize', s.packSize, { inputMode: 'decimal' })}
        {input('expirationDate', s.expiration, { type: 'date' })}
        <Field id={ids.status} label={s.status} error={errors.status}>
          {(p) => (
            <select {...p} value={v.status} onChange={set('status')}>
              {Object.entries(s.statuses).map(([k, label]) => (
                <option key={k} value={k}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {formError && (
        <p class="form-error" role="alert">
          {formError}
        </p>
      )}
      <div class="toolbar">
        <button type="submit" class="btn primary" disabled={busy}>
          {s.save}
        </button>
        <button type="button" class="btn" onClick={onCancel}>
          {s.cancel}
        </button>
      </div>
    </form>
  );
}
