/** The recipe lines of a menu item (the inventory's ProductIngredient): list, add, remove. Admins only (the API's rule). */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { callAll } from '../../ui/list-page.js';
import { Field } from '../../ui/Field.js';
import { apiField, errorText, Status, useIds } from './common.js';
import { strings as t } from './strings.js';
import type { AdminItem, Ingredient, InventoryItem } from './types.js';

type Unit = 'kg' | 'g' | 'l' | 'ml' | 'un' | 'cx';
/** The units a recipe line may use for an inventory item of `unit` (cx needs a pack size: the API says so). */
const UNITS_OF: Record<string, Unit[]> = { kg: ['kg', 'g'], l: ['l', 'ml'], un: ['un', 'cx'] };

export function RecipeEditor({ slug, item }: { slug: string; item: AdminItem }) {
  const ids = useIds('ingredient', 'quantity', 'unit');
  const [lines, setLines] = useState<Ingredient[] | null>(null);
  const [stock, setStock] = useState<InventoryItem[]>([]);
  const [ingredient, setIngredient] = useState('');
  const [quantity, setQuantity] = useState('');
  const [unit, setUnit] = useState<Unit | ''>('');
  const [errors, setErrors] = useState<{ ingredient?: string; quantity?: string; unit?: string }>({});
  const [status, setStatus] = useState<{ text: string; error?: boolean }>({ text: '' });

  useEffect(() => {
    const path = { slug };
    Promise.all([
      call(api.GET('/t/{slug}/inventory/ingredients', { params: { path, query: { menuItemId: item._id } } })),
      callAll((page) => api.GET('/t/{slug}/inventory', { params: { path, query: { page } } })),
    ])
      .then(([l, s]) => {
        setLines(l);
        setStock(s);
      })
      .catch((err) => {
        setLines([]);
        setStatus({ text: t.loadFailed(errorText(err)), error: true });
      });
  }, [item._id]);

  const chosen = stock.find((s) => s._id === ingredient);
  const units = chosen ? (UNITS_OF[chosen.unit] ?? [chosen.unit as Unit]) : [];

  async function add(e: Event) {
    e.preventDefault();
    const next: typeof errors = {};
    const qty = Number(quantity.replace(',', '.'));
    if (!ingredient) next.ingredient = t.required;
    if (!quantity.trim() || !Number.isFinite(qty) || qty < 0.001 || qty > 100_000) next.quantity = t.badQuantity;
    setErrors(next);
    if (Object.keys(next).length) return;
    try {
      const line = await call(
        api.POST('/t/{slug}/inventory/ingredients', {
          params: { path: { slug } },
          body: { menuItemId: item._id, inventoryItemId: ingredient, quantityPerUnit: Math.round(qty * 1000) / 1000, ...(unit ? { unit } : {}) },
        }),
      );
      setLines((l) => [...(l ?? []), line]);
      setIngredient('');
      setQuantity('');
      setUnit('');
      setStatus({ text: t.saved });
    } catch (err) {
      setErrors({ ingredient: apiField(err, 'inventoryItemId'), quantity: apiField(err, 'quantityPerUnit'), unit: apiField(err, 'unit') });
      setStatus({ text: t.failed(errorText(err)), error: true });
    }
  }

  async function remove(line: Ingredient) {
    try {
      await call(api.DELETE('/t/{slug}/inventory/ingredients/{id}', { params: { path: { slug, id: line._id } } }));
      setLines((l) => (l ?? []).filter((x) => x._id !== line._id));
    } catch (err) {
      setStatus({ text: t.failed(errorText(err)), error: true });
    }
  }

  return (
    <section class="recipe" aria-labelledby="recipe-title">
      <h3 id="recipe-title">{t.recipe}</h3>
      <p class="hint">{t.recipeHint}</p>
      {!lines ? (
        <p aria-busy="true">{t.loading}</p>
      ) : lines.length === 0 ? (
        <p class="empty">{t.noRecipe}</p>
      ) : (
        <table class="data">
          <thead>
            <tr>
              <th scope="col">{t.ingredient}</th>
              <th scope="col" class="num">
                {t.quantity}
              </th>
              <th scope="col">
                <span class="sr-only">{t.remove}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {lines.map((l) => (
              <tr key={l._id}>
                <td>{l.inventoryItem.name}</td>
                <td class="num">
                  {l.quantityPerUnit.toLocaleString('pt-BR')} {l.unit}
                </td>
                <td>
                  <button type="button" class="btn small" aria-label={t.removeLine(l.inventoryItem.name)} onClick={() => void remove(l)}>
                    {t.remove}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form onSubmit={add} noValidate class="grid3 recipe-add">
        <Field label={t.ingredient} id={ids.ingredient} error={errors.ingredient}>
          {(p) => (
            <select
              {...p}
              value={ingredient}
              onChange={(e) => {
                setIngredient(e.currentTarget.value);
                setUnit('');
              }}
            >
              <option value="">{t.chooseIngredient}</option>
              {stock.map((s) => (
                <option key={s._id} value={s._id}>
                  {s.name} ({s.unit})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t.quantity} id={ids.quantity} error={errors.quantity}>
          {(p) => <input {...p} inputMode="decimal" value={quantity} onInput={(e) => setQuantity(e.currentTarget.value)} />}
        </Field>
        <Field label={t.unit} id={ids.unit} error={errors.unit}>
          {(p) => (
            <select {...p} value={unit} onChange={(e) => setUnit(e.currentTarget.value as Unit)}>
              <option value="">{chosen ? chosen.unit : '—'}</option>
              {units.slice(1).map((u) => (
                <option key={u} value={u}>
                  {u}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div>
          <button type="submit" class="btn">
            {t.addLine}
          </button>
        </div>
      </form>
      <Status {...status} />
    </section>
  );
}
