/** The restaurant's panel (issue 21): one app for every role, at /admin. */
import { render } from 'preact';
import { App } from './App.js';
import './admin.css';

render(<App />, document.getElementById('app')!);
