import { render } from 'preact';
import { appRoot } from '../shared/dom.js';
import { App } from './App.js';
import './kitchen.css';

/** `/t/:slug/kitchen`: the tenant's slug from the address. */
const slug = decodeURIComponent(/^\/t\/([^/]+)\/kitchen/.exec(location.pathname)?.[1] ?? '');

render(<App slug={slug} />, appRoot());
