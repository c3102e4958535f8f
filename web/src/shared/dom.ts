/** Small browser helpers shared by the pages. */

/** Copies `text` to the clipboard: the async Clipboard API, else a hidden textarea and `execCommand('copy')` (plain HTTP, old browsers). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the textarea fallback
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/** The element to mount a page into (`<div id="app">`). */
export function appRoot(): HTMLElement {
  const el = document.getElementById('app');
  if (!el) throw new Error('missing #app');
  return el;
}
