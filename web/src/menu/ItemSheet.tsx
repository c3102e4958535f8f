/** The item sheet (a modal dialog): modifier groups with their rules, quantity, notes, add / save. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatAdjustment, formatMoney } from '../shared/money.js';
import { defaultChoices, groupLimits, invalidGroups, lineTotal, toggleChoice, unitPrice, type CartLine, type Choices } from './cart.js';
import { strings as t } from './strings.js';
import type { MenuItem, ModifierGroup } from './types.js';

interface Props {
  item: MenuItem;
  groups: ModifierGroup[];
  /** The cart line being edited, if any. */
  line?: CartLine;
  onSave: (value: { quantity: number; notes: string; choices: Choices }) => void;
  onClose: () => void;
}

function ruleText(group: ModifierGroup): string {
  const { min, max } = groupLimits(group);
  if (group.type === 'single') return t.chooseOne;
  if (min === 0) return t.chooseUpTo(max);
  if (max >= 50) return t.chooseAtLeast(min);
  return t.chooseBetween(min, max);
}

export function ItemSheet({ item, groups, line, onSave, onClose }: Props) {
  const kg = item.unit === 'kg';
  const step = kg ? 0.1 : 1;
  const [choices, setChoices] = useState<Choices>(() => line?.choices ?? defaultChoices(groups));
  const [quantity, setQuantity] = useState(line?.quantity ?? (kg ? 0.5 : 1));
  const [notes, setNotes] = useState(line?.notes ?? '');
  const [tried, setTried] = useState(false);
  const dialog = useRef<HTMLDivElement>(null);
  const invalid = useMemo(() => invalidGroups(groups, choices), [groups, choices]);
  const unit = unitPrice(item, groups, choices);
  const total = formatMoney(lineTotal(unit, quantity));
  const titleId = `sheet-title-${item._id}`;

  // Focus moves into the dialog; Escape closes it; focus goes back where it was when it closes.
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    dialog.current?.querySelector<HTMLElement>('h2')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
      if (e.key === 'Tab' && dialog.current) {
        const focusable = [...dialog.current.querySelectorAll<HTMLElement>('button, input, textarea, [tabindex="-1"]')].filter((el) => !el.hasAttribute('disabled'));
        const first = focusable[0];
        const last = focusable[focusable.length - 1];
        if (e.shiftKey && document.activeElement === first) {
          e.preventDefault();
          last?.focus();
        } else if (!e.shiftKey && document.activeElement === last) {
          e.preventDefault();
          first?.focus();
        }
      }
    };
    document.addEventListener('keydown', onKey);
    document.body.classList.add('no-scroll');
    return () => {
      document.removeEventListener('keydown', onKey);
      document.body.classList.remove('no-scroll');
      before?.focus?.();
    };
  }, []);

  const setQty = (q: number) => setQuantity(Math.min(999, Math.max(step, Math.round(q * 1000) / 1000)));

  const save = (e: Event) => {
    e.preventDefault();
    setTried(true);
    if (invalid.length > 0) {
      dialog.current?.querySelector<HTMLElement>(`[data-group="${invalid[0]}"]`)?.scrollIntoView({ block: 'center', behavior: 'smooth' });
      return;
    }
    onSave({ quantity, notes, choices });
  };

  return (
    <div class="backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="sheet" role="dialog" aria-modal="true" aria-labelledby={titleId} ref={dialog}>
        <form onSubmit={save} noValidate>
          <div class="sheet-head">
            <h2 id={titleId} tabIndex={-1}>{item.name}</h2>
            <button type="button" class="icon-btn" aria-label={t.close} onClick={onClose}>×</button>
          </div>
          {item.description && <p class="muted">{item.description}</p>}
          {item.allergens.length > 0 && <p class="allergens">{t.allergens}: {item.allergens.join(', ')}</p>}
          <p class="price">{formatMoney(item.price)}{kg ? t.perKg : ''}</p>

          {groups.map((g) => {
            const chosen = choices[g._id] ?? [];
            const { min, max } = groupLimits(g);
            const bad = tried && invalid.includes(g._id);
            const hintId = `hint-${g._id}`;
            return (
              <fieldset class={`group${bad ? ' bad' : ''}`} key={g._id} data-group={g._id} aria-describedby={hintId}>
                <legend>
                  {g.name} <span class={`badge${min > 0 ? ' req' : ''}`}>{min > 0 ? t.required : t.optional}</span>
                </legend>
                <p class="muted small" id={hintId}>{g.description ? `${g.description} · ` : ''}{ruleText(g)}</p>
                {g.options.map((o) => {
                  const checked = chosen.includes(o.name);
                  const full = g.type === 'multiple' && !checked && chosen.length >= max;
                  return (
                    <label class={`option${!o.available ? ' off' : ''}`} key={o.name}>
                      <input
                        type={g.type === 'single' ? 'radio' : 'checkbox'}
                        name={`g-${g._id}`}
                        value={o.name}
                        checked={checked}
                        disabled={!o.available || full}
                        onClick={() => setChoices((c) => toggleChoice(c, g, o.name))}
                      />
                      <span class="opt-name">{o.name}</span>
                      <span class="opt-price">{o.available ? formatAdjustment(o.priceAdjustment) : t.unavailable}</span>
                    </label>
                  );
                })}
                {bad && <p class="error" role="alert">{min > 1 ? t.chooseAtLeast(min) : t.chooseOne}</p>}
              </fieldset>
            );
          })}

          <div class="field">
            <span class="label" id={`qty-${item._id}`}>{kg ? t.quantityKg : t.quantity}</span>
            <div class="stepper" role="group" aria-labelledby={`qty-${item._id}`}>
              <button type="button" aria-label={t.decrease} onClick={() => setQty(quantity - step)} disabled={quantity <= step}>−</button>
              <output aria-live="polite">{kg ? quantity.toLocaleString('pt-BR', { minimumFractionDigits: 1, maximumFractionDigits: 3 }) : quantity}</output>
              <button type="button" aria-label={t.increase} onClick={() => setQty(quantity + step)}>+</button>
            </div>
          </div>

          <label class="field">
            <span class="label">{t.notes}</span>
            <textarea rows={2} maxLength={500} placeholder={t.notesPlaceholder} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} />
          </label>

          {tried && invalid.length > 0 && <p class="error">{t.fixChoices}</p>}
          <button type="submit" class="primary wide" data-testid="sheet-add">
            {line ? t.saveLine(total) : t.addToCart(total)}
          </button>
        </form>
      </div>
    </div>
  );
}
