import { html, render } from 'htm/preact';
import { App } from './app.js';

const root = document.getElementById('app');
if (root !== null) {
  root.textContent = '';
  render(html`<${App} />`, root);
}
