/**
 * A round being put together: the menu by category with a search, a dish with modifier groups opens a
 * dialog that checks the group rules (required, min, max) before the dish joins the round.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatMoney } from '../../ui/format.js';
import type { Category, MenuItem, ModifierGroup } from './data.js';
import { strings as t } from './strings.js';

export interface RoundLine {
  key: number;
  item: MenuItem;
  quantity: number;
  notes: string;
  modifiers: { groupId: string; options: string[] }[];
  /** Unit price with the options' adjustments, cents. */
  unitPrice: number;
}

let keys = 0;

/** The selection rules of a group: at least `min`, at most `max` options. */
export function groupRule(g: ModifierGroup) {
  const min = Math.max(g.required ? 1 : 0, g.minSelections);
  const max = g.type === 'single' ? 1 : g.maxSelections || g.options.length;
  return { min, max };
}

/** What is wrong with a group's choice, or null. */
export function groupError(g: ModifierGroup, chosen: string[]): string | null {
  const { min, max } = groupRule(g);
  if (chosen.length < min) return g.type === 'single' ? t.pickOne : t.pickMin(min);
  if (chosen.length > max) return t.pickMax(max);
  return null;
}

function ModifierDialog({ item, groups, onAdd, onClose }: { item: MenuItem; groups: ModifierGroup[]; onAdd: (line: RoundLine) => void; onClose: () => void }) {
  const [chosen, setChosen] = useState<Record<string, string[]>>(() =>
    Object.fromEntries(groups.map((g) => [g._id, g.type === 'single' ? g.options.filter((o) => o.isDefault && o.available).map((o) => o.name).slice(0, 1) : []])),
  );
  const [quantity, setQuantity] = useState('1');
  const [notes, setNotes] = useState('');
  const [tried, setTried] = useState(false);
  const first = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    first.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  const qty = Number(quantity.replace(',', '.'));
  const qtyError = !(qty > 0 && qty <= 999) ? t.requiredField : null;
  const errors = Object.fromEntries(groups.map((g) => [g._id, groupError(g, chosen[g._id] ?? [])]));
  const unitPrice = Math.max(
    0,
    item.price + groups.reduce((s, g) => s + g.options.filter((o) => chosen[g._id]?.includes(o.name)).reduce((a, o) => a + o.priceAdjustment, 0), 0),
  );

  function toggle(g: ModifierGroup, name: string, on: boolean) {
    setChosen((c) => {
      const cur = c[g._id] ?? [];
      const next = g.type === 'single' ? [name] : on ? [...cur, name] : cur.filter((n) => n !== name);
      return { ...c, [g._id]: next };
    });
  }

  function submit(e: Event) {
    e.preventDefault();
    setTried(true);
    if (qtyError || Object.values(errors).some(Boolean)) return;
    onAdd({
      key: ++keys,
      item,
      quantity: qty,
      notes: notes.trim(),
      modifiers: groups.filter((g) => chosen[g._id]?.length).map((g) => ({ groupId: g._id, options: chosen[g._id] })),
      unitPrice,
    });
  }

  return (
    <div class="modal-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="card modal" role="dialog" aria-modal="true" aria-labelledby="mod-title">
        <form onSubmit={submit} noValidate>
          <h2 id="mod-title" tabIndex={-1} ref={first}>
            {item.name} · {formatMoney(unitPrice)}
          </h2>
          {groups.map((g) => {
            const { min, max } = groupRule(g);
            const err = tried ? errors[g._id] : null;
            return (
              <fieldset key={g._id} aria-describedby={err ? `err-${g._id}` : undefined} data-testid={`group-${g.name}`}>
                <legend>
                  {g.name} ({min > 0 ? t.required : ''}
                  {min > 0 && max > 1 ? ', ' : ''}
                  {max > 1 ? t.upTo(max) : ''})
                </legend>
                {g.options
                  .filter((o) => o.available)
                  .map((o) => (
                    <label class="option" key={o.name}>
                      <input
                        type={g.type === 'single' ? 'radio' : 'checkbox'}
                        name={`g-${g._id}`}
                        checked={chosen[g._id]?.includes(o.name)}
                        onChange={(e) => toggle(g, o.name, e.currentTarget.checked)}
                      />
                      {o.name}
                      {o.priceAdjustment ? ` (${o.priceAdjustment > 0 ? '+' : '-'} ${formatMoney(Math.abs(o.priceAdjustment))})` : ''}
                    </label>
                  ))}
                {err && (
                  <p class="field-error" id={`err-${g._id}`} role="alert">
                    {err}
                  </p>
                )}
              </fieldset>
            );
          })}
          <div class="field">
            <label for="mod-qty">{t.quantity}</label>
            <input id="mod-qty" inputMode="decimal" value={quantity} onInput={(e) => setQuantity(e.currentTarget.value)} aria-invalid={tried && qtyError ? 'true' : undefined} />
            {tried && qtyError && <p class="field-error">{qtyError}</p>}
          </div>
          <div class="field">
            <label for="mod-notes">{t.notes}</label>
            <input id="mod-notes" maxLength={500} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} />
          </div>
          <div class="actions">
            <button type="submit" class="btn primary" data-testid="add-to-round">
              {t.addToRound}
            </button>
            <button type="button" class="btn" onClick={onClose}>
              {t.cancel}
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}

export function RoundBuilder({
  items,
  categories,
  groups,
  lines,
  onChange,
}: {
  items: MenuItem[];
  categories: Category[];
  groups: ModifierGroup[];
  lines: RoundLine[];
  onChange: (lines: RoundLine[]) => void;
}) {
  const [category, setCategory] = useState('');
  const [search, setSearch] = useState('');
  const [picking, setPicking] = useState<MenuItem | null>(null);
  const returnFocus = useRef<HTMLElement | null>(null);
  const byId = new Map(groups.map((g) => [g._id, g]));
  const q = search.trim().toLowerCase();
  const shown = items.filter((i) => (!category || i.category === category) && (!q || i.name.toLowerCase().includes(q)));

  function pick(item: MenuItem, el: HTMLElement) {
    const its = item.modifierGroupIds.map((id) => byId.get(id)).filter((g): g is ModifierGroup => Boolean(g));
    if (!its.length) {
      const same = lines.find((l) => l.item._id === item._id && !l.modifiers.length && !l.notes);
      if (same) onChange(lines.map((l) => (l === same ? { ...l, quantity: l.quantity + 1 } : l)));
      else onChange([...lines, { key: ++keys, item, quantity: 1, notes: '', modifiers: [], unitPrice: item.price }]);
      return;
    }
    returnFocus.current = el;
    setPicking(item);
  }

  const close = () => {
    setPicking(null);
    returnFocus.current?.focus();
  };

  return (
    <div>
      <div class="inline-form">
        <div class="field">
          <label for="menu-cat">{t.category}</label>
          <select id="menu-cat" value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
            <option value="">{t.allPdvs}</option>
            {categories.map((c) => (
              <option key={c._id} value={c._id}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="menu-search">{t.search}</label>
          <input id="menu-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </div>
      </div>
      {shown.length === 0 ? (
        <p class="empty">{t.noItems}</p>
      ) : (
        <ul class="menu-list" aria-label={t.round}>
          {shown.map((i) => (
            <li key={i._id}>
              <button type="button" class="btn menu-pick" onClick={(e) => pick(i, e.currentTarget)} data-name={i.name}>
                {i.name}
                <span>{formatMoney(i.price)}</span>
                <span class="sr-only">{i.modifierGroupIds.length ? t.chooseOptions : t.addOne}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {picking && (
        <ModifierDialog
          item={picking}
          groups={picking.modifierGroupIds.map((id) => byId.get(id)).filter((g): g is ModifierGroup => Boolean(g))}
          onClose={close}
          onAdd={(line) => {
            onChange([...lines, line]);
            close();
          }}
        />
      )}
    </div>
  );
}

/** The round as it stands, each line removable. */
export function RoundList({ lines, groups, onChange }: { lines: RoundLine[]; groups: ModifierGroup[]; onChange: (lines: RoundLine[]) => void }) {
  const names = new Map(groups.map((g) => [g._id, g.name]));
  if (!lines.length) return <p class="empty">{t.roundEmpty}</p>;
  return (
    <ul class="round-list" data-testid="round">
      {lines.map((l) => (
        <li key={l.key} class="round-line">
          <span>
            {l.quantity} × {l.item.name} · {formatMoney(Math.round(l.unitPrice * l.quantity))}
            {l.modifiers.map((m) => (
              <small key={m.groupId}>
                {names.get(m.groupId)}: {m.options.join(', ')}
              </small>
            ))}
            {l.notes && <small>{l.notes}</small>}
          </span>
          <button type="button" class="btn" aria-label={`${t.remove} ${l.item.name}`} onClick={() => onChange(lines.filter((x) => x !== l))}>
            {t.remove}
          </button>
        </li>
      ))}
    </ul>
  );
}
