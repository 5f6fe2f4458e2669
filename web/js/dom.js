// Small DOM helpers shared by every page: building HTML and SVG without a framework.

export const SVG_NS = 'http://www.w3.org/2000/svg';

function applyAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2), value);
    } else if (key === 'text') {
      node.textContent = value;
    } else {
      node.setAttribute(key, value === true ? '' : String(value));
    }
  }
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element: h('div', {class: 'x'}, child, 'text'). */
export function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  applyAttrs(node, attrs);
  append(node, children);
  return node;
}

/** An SVG element, same calling convention as `h`. */
export function s(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  applyAttrs(node, attrs);
  append(node, children);
  return node;
}

/** Replace the children of `node`. */
export function mount(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** Milliseconds as m:ss (or h:mm:ss), tenths under ten seconds. */
export function formatClock(ms) {
  if (ms === null || ms === undefined) return '–';
  const clamped = Math.max(0, ms);
  const totalSeconds = Math.floor(clamped / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const pad = (n) => String(n).padStart(2, '0');
  if (hours > 0) return `${hours}:${pad(minutes)}:${pad(seconds)}`;
  if (clamped < 10000) return `${minutes}:${pad(seconds)}.${Math.floor((clamped % 1000) / 100)}`;
  return `${minutes}:${pad(seconds)}`;
}

/** Capitalised player or game name for display. */
export function title(name) {
  if (!name) return '';
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** A sentence with its first letter in capitals: "checkmate" → "Checkmate". */
export function capitalise(text) {
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : '';
}

/**
 * A modal choice: resolves with the value of the picked option, or null when
 * dismissed. Options are {label, value, icon?} where icon is an SVG element.
 */
export function choose(heading, options, { id = 'choice-dialog' } = {}) {
  return new Promise((resolve) => {
    const dialog = h('dialog', { id, class: 'choice-dialog' });
    const finish = (value) => {
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    const buttons = options.map((opt) =>
      h('button', {
        type: 'button',
        class: 'choice',
        'data-value': opt.value,
        onclick: () => finish(opt.value),
      }, opt.icon || null, h('span', {}, opt.label)));
    append(dialog, [
      h('h3', {}, heading),
      h('div', { class: 'choices' }, buttons),
      h('button', { type: 'button', class: 'cancel', onclick: () => finish(null) }, 'Cancel'),
    ]);
    dialog.addEventListener('cancel', (e) => { e.preventDefault(); finish(null); });
    document.body.append(dialog);
    dialog.showModal();
  });
}
