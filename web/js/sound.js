// Sounds, synthesised with WebAudio (no files to download): a move, a
// capture, a check, low time, the start and the end of a game. The mute
// switch is the `sound` setting. Browsers only let a page make sound after
// the person has touched it, so the audio context starts on the first
// pointer or key press.

import { settings } from './settings.js';

let context = null;

function audio() {
  // Before the first touch or key press a browser would refuse (and complain).
  const activation = navigator.userActivation;
  if (!context && activation && !activation.hasBeenActive) return null;
  if (!context) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    context = new Context();
  }
  if (context.state === 'suspended') context.resume().catch(() => {});
  return context;
}

for (const type of ['pointerdown', 'keydown']) {
  window.addEventListener(type, () => { if (settings().sound) audio(); }, { capture: true, passive: true });
}

/** A short enveloped tone. */
function tone(ctx, { freq, at = 0, dur = 0.08, type = 'sine', gain = 0.25, slide = 0 }) {
  const t = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t);
  if (slide) osc.frequency.exponentialRampToValueAtTime(freq * slide, t + dur);
  amp.gain.setValueAtTime(0.0001, t);
  amp.gain.exponentialRampToValueAtTime(gain, t + 0.005);
  amp.gain.exponentialRampToValueAtTime(0.0001, t + dur);
  osc.connect(amp).connect(ctx.destination);
  osc.start(t);
  osc.stop(t + dur + 0.02);
}

/** A filtered burst of noise: the knock of a piece on wood. */
function knock(ctx, { at = 0, dur = 0.06, freq = 1800, gain = 0.5 }) {
  const t = ctx.currentTime + at;
  const length = Math.max(1, Math.floor(ctx.sampleRate * dur));
  const buffer = ctx.createBuffer(1, length, ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / length) ** 3;
  const src = ctx.createBufferSource();
  src.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = 'bandpass';
  filter.frequency.value = freq;
  filter.Q.value = 1.2;
  const amp = ctx.createGain();
  amp.gain.value = gain;
  src.connect(filter).connect(amp).connect(ctx.destination);
  src.start(t);
}

const SOUNDS = {
  move: (ctx) => { knock(ctx, { freq: 1500 }); tone(ctx, { freq: 180, dur: 0.05, gain: 0.12 }); },
  capture: (ctx) => { knock(ctx, { freq: 900, gain: 0.7, dur: 0.09 }); knock(ctx, { at: 0.07, freq: 1300, gain: 0.4 }); },
  check: (ctx) => { knock(ctx, { freq: 1500 }); tone(ctx, { freq: 880, at: 0.02, dur: 0.1, type: 'triangle', gain: 0.18 }); tone(ctx, { freq: 1175, at: 0.12, dur: 0.14, type: 'triangle', gain: 0.18 }); },
  low_time: (ctx) => { tone(ctx, { freq: 990, dur: 0.09, type: 'square', gain: 0.06 }); tone(ctx, { freq: 990, at: 0.16, dur: 0.09, type: 'square', gain: 0.06 }); },
  start: (ctx) => { [523, 659, 784].forEach((freq, i) => tone(ctx, { freq, at: i * 0.09, dur: 0.16, type: 'triangle', gain: 0.16 })); },
  end: (ctx) => { [784, 659, 523].forEach((freq, i) => tone(ctx, { freq, at: i * 0.12, dur: i === 2 ? 0.4 : 0.18, type: 'triangle', gain: 0.16 })); },
};

/** Every sound asked for, for the browser tests: {name, played}. */
window.tabulaSounds = window.tabulaSounds || [];

/** Plays a named sound unless muted: move, capture, check, low_time, start, end. */
export function playSound(name) {
  const make = SOUNDS[name];
  if (!make) return;
  const on = settings().sound;
  const ctx = on ? audio() : null;
  window.tabulaSounds.push({ name, played: !!ctx && on });
  if (!ctx) return;
  try { make(ctx); } catch { /* a browser without some node type: stay silent */ }
}
