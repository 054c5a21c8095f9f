/**
 * Fold a stream of events into the state a view renders: every event goes through
 * `reduce` at once (nothing is lost), while re-renders are throttled to one per
 * `throttleMs` so a busy feed does not redraw the terminal hundreds of times a second.
 * Any render (a key press, the final render before unmounting) shows the latest state.
 */
import { useEffect, useRef, useState } from 'react';

/** Subscribe to events; returns the unsubscribe function. */
export type Subscribe<E> = (listener: (event: E) => void) => () => void;

/** The folded state; a re-render is scheduled at most once per `throttleMs`. */
export function useEventFold<S, E>(subscribe: Subscribe<E>, reduce: (state: S, event: E) => S, initial: S, throttleMs = 100): S {
  const latest = useRef(initial);
  const [, setRenders] = useState(0);
  useEffect(() => {
    let timer: NodeJS.Timeout | undefined;
    const off = subscribe((event) => {
      latest.current = reduce(latest.current, event);
      timer ??= setTimeout(() => {
        timer = undefined;
        setRenders((n) => n + 1);
      }, throttleMs);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [subscribe]);
  return latest.current;
}
