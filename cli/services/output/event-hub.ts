/** A tiny typed event hub; events emitted before the first listener attached are kept and replayed to it. */

/** Emit events to listeners. */
export interface EventHub<T> {
  emit(event: T): void;
  /** Listen; returns the unsubscribe function. */
  subscribe(listener: (event: T) => void): () => void;
}

/** Create a hub (at most `buffer` early events are kept). */
export function createEventHub<T>(buffer = 100): EventHub<T> {
  const listeners = new Set<(event: T) => void>();
  let early: T[] | undefined = [];
  return {
    emit(event) {
      if (early) {
        early.push(event);
        if (early.length > buffer) early.shift();
        return;
      }
      for (const listener of [...listeners]) listener(event);
    },
    subscribe(listener) {
      listeners.add(listener);
      const replay = early;
      early = undefined;
      for (const event of replay ?? []) listener(event);
      return () => void listeners.delete(listener);
    },
  };
}
