// Vite build of the browser pages (issue 19): multi-page (menu, kitchen, the admin panel), Preact JSX through Vite's own oxc transform.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/web/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2020',
    rollupOptions: {
      input: {
        menu: fileURLToPath(new URL('./menu.html', import.meta.url)),
        kitchen: fileURLToPath(new URL('./kitchen.html', import.meta.url)),
        admin: fileURLToPath(new URL('./admin.html', import.meta.url)),
      },
    },
  },
});
