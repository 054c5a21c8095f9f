/** The current time, re-read every `everyMs` while `active` (a countdown that ticks), else once per render. */
import { useEffect, useState } from 'react';

/** Epoch ms, refreshed every `everyMs` (default 1 s) while `active`. */
export function useTicker(active: boolean, everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return undefined;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs]);
  return active ? now : Date.now();
}
