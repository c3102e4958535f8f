/** Time source passed in as a dependency so tests can move it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can advance. */
export function manualClock(start = new Date()): Clock & { advance(ms: number): void; set(d: Date): void } {
  let offset = start.getTime() - Date.now();
  return {
    now: () => new Date(Date.now() + offset),
    advance: (ms: number) => {
      offset += ms;
    },
    set: (d: Date) => {
      offset = d.getTime() - Date.now();
    },
  };
}
