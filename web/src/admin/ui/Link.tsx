import type { ComponentChildren } from 'preact';
import { navigate } from '../router.js';

/** An in-panel link: a real `<a href>` (open in a new tab works), navigated without a reload. */
export function Link({ href, children, class: cls, current }: { href: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a
      href={href}
      class={cls}
      aria-current={current ? 'page' : undefined}
      onClick={(e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
