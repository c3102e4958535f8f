/** The panel's one login (all tenants of the user): tokens in localStorage, renewed in the background. */
import { Session } from '../shared/session.js';

type Listener = () => void;
const listeners = new Set<Listener>();

/** Called when the session ends without the user asking (refresh token expired or revoked). */
export function onSessionEnded(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const session = new Session('panel.session', () => listeners.forEach((l) => l()));
