// Per-browser settings: colour theme, board theme and sound, kept in
// localStorage. index.html applies the themes before the first paint (an
// inline script reads the same key), so a dark page never flashes white.

import { h, mount } from './dom.js';
import { icon } from './icons.js';

const KEY = 'tabula.settings';
const DEFAULTS = { theme: 'system', board: 'wood', sound: true };

export const THEMES = [['system', 'As the system'], ['light', 'Light'], ['dark', 'Dark']];
export const BOARD_THEMES = [['wood', 'Wood'], ['green', 'Green'], ['slate', 'Slate']];

/** The current settings, defaults filled in. */
export function settings() {
  let stored = {};
  try { stored = JSON.parse(localStorage.getItem(KEY)) || {}; } catch { /* defaults */ }
  return { ...DEFAULTS, ...stored };
}

/** Changes one setting, applies it, and tells the page (event `tabula-settings`). */
export function setSetting(key, value) {
  const next = { ...settings(), [key]: value };
  try { localStorage.setItem(KEY, JSON.stringify(next)); } catch { /* private mode: this page only */ }
  applySettings(next);
  window.dispatchEvent(new CustomEvent('tabula-settings', { detail: next }));
}

const darkQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;

export function applySettings(current = settings()) {
  const theme = current.theme === 'system' ? (darkQuery && darkQuery.matches ? 'dark' : 'light') : current.theme;
  document.documentElement.dataset.theme = theme;
  document.documentElement.dataset.board = current.board;
  document.documentElement.dataset.sound = current.sound ? 'on' : 'off';
}

if (darkQuery) darkQuery.addEventListener('change', () => applySettings());

/** The top bar's controls: a mute switch and the settings dialog. */
export function settingsControls() {
  const mute = h('button', {
    type: 'button', class: 'icon-button', id: 'sound-toggle',
    onclick: () => setSetting('sound', !settings().sound),
  });
  const showMute = () => {
    const on = settings().sound;
    mute.setAttribute('aria-pressed', on ? 'false' : 'true');
    mute.setAttribute('aria-label', on ? 'Sound on (press to mute)' : 'Sound muted (press to unmute)');
    mute.title = on ? 'Mute' : 'Unmute';
    mount(mute, icon(on ? 'sound' : 'muted'));
  };
  showMute();
  window.addEventListener('tabula-settings', showMute);

  const open = h('button', {
    type: 'button', class: 'icon-button', id: 'settings-open', 'aria-label': 'Settings', title: 'Settings',
    onclick: () => settingsDialog(),
  }, icon('settings'));
  return [mute, open];
}

function settingsDialog() {
  const current = settings();
  const select = (id, key, choices) => h('select', {
    id, onchange: (e) => setSetting(key, e.target.value),
  }, choices.map(([value, label]) => h('option', { value, selected: value === current[key] }, label)));
  const sound = h('input', {
    type: 'checkbox', id: 'setting-sound', checked: current.sound,
    onchange: (e) => setSetting('sound', e.target.checked),
  });
  const dialog = h('dialog', { class: 'choice-dialog settings-dialog', id: 'settings-dialog', 'aria-labelledby': 'settings-title' },
    h('h2', { id: 'settings-title' }, 'Settings'),
    h('label', { for: 'setting-theme' }, 'Colours '), select('setting-theme', 'theme', THEMES),
    h('label', { for: 'setting-board' }, 'Board '), select('setting-board', 'board', BOARD_THEMES),
    h('label', { class: 'check' }, sound, ' Sounds'),
    h('p', { class: 'hint' }, 'Kept in this browser.'),
    h('button', { type: 'button', class: 'primary', id: 'settings-close', onclick: () => dialog.close() }, 'Done'));
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}
