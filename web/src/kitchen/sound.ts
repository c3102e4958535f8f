/**
 * The new-order cue: a short two-tone beep from a Web Audio oscillator (no audio file to download).
 * Browsers start audio only after a user gesture, so `unlock()` runs from the login click or the
 * "Ativar som" toggle; before that, `beep()` does nothing.
 */
type AudioCtor = typeof AudioContext;

let ctx: AudioContext | null = null;

/** Creates or resumes the audio context; call it from a click handler. Returns whether sound can play. */
export function unlock(): boolean {
  const Ctor: AudioCtor | undefined = window.AudioContext ?? (window as unknown as { webkitAudioContext?: AudioCtor }).webkitAudioContext;
  if (!Ctor) return false;
  try {
    ctx ??= new Ctor();
    if (ctx.state === 'suspended') void ctx.resume();
    return true;
  } catch {
    return false;
  }
}

export const soundReady = () => ctx !== null && ctx.state !== 'closed';

export function beep() {
  if (!ctx || ctx.state !== 'running') return;
  const start = ctx.currentTime;
  for (const [i, freq] of [880, 1320].entries()) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    const t = start + i * 0.18;
    osc.type = 'sine';
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(0.3, t + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.16);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t);
    osc.stop(t + 0.17);
  }
}
