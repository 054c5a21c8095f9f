/** The selected row of a list, moved with the ↑/↓ arrow keys (or k/j; g/G jump to the first/last). */
import { useInput } from 'ink';
import { useState } from 'react';

/** The selected index in [0, count − 1] (0 for an empty list). */
export function useRowSelection(count: number, isActive: boolean): number {
  const [index, setIndex] = useState(0);
  useInput(
    (input, key) => {
      if (key.upArrow || input === 'k') setIndex((i) => Math.max(0, Math.min(i, count - 1) - 1));
      else if (key.downArrow || input === 'j') setIndex((i) => Math.min(Math.max(0, count - 1), i + 1));
      else if (input === 'g') setIndex(0);
      else if (input === 'G') setIndex(Math.max(0, count - 1));
    },
    { isActive },
  );
  return Math.max(0, Math.min(index, count - 1));
}
