// Entry of the customer menu page (web/menu.html).
import { render } from 'preact';
import { appRoot } from '../shared/dom.js';
import { App, parseRoute } from './App.js';
import { strings as t } from './strings.js';
import './menu.css';

const route = parseRoute(window.location);
render(route ? <App route={route} /> : <main class="center"><p role="alert">{t.notFound}</p></main>, appRoot());
