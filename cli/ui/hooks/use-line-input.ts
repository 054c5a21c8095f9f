/** A single-line text input on Ink's useInput: typing, backspace, Enter submits, Ctrl-C/Esc cancel. */
import { useInput } from 'ink';
import { useRef, useState } from 'react';

/** Callbacks of useLineInput. */
export interface LineInputHandlers {
  onSubmit(value: string): void;
  onCancel(): void;
  /** Stop reading keys (after submit or cancel). */
  isActive?: boolean;
}

/** Track the typed line; returns its current value. */
export function useLineInput(handlers: LineInputHandlers): string {
  const [value, setValue] = useState('');
  // Keys can arrive faster than renders; the ref always holds the latest text.
  const current = useRef('');
  const update = (next: string) => {
    current.current = next;
    setValue(next);
  };
  useInput(
    (input, key) => {
      if (key.return) return handlers.onSubmit(current.current);
      // A pasted or fast-typed chunk can carry the Enter at its end ("secret\r").
      const newline = input.search(/[\r\n]/);
      if (newline >= 0) return handlers.onSubmit(current.current + printable(input.slice(0, newline)));
      if (key.escape || (key.ctrl && input === 'c')) return handlers.onCancel();
      if (key.backspace || key.delete) return update(current.current.slice(0, -1));
      if (key.ctrl && input === 'u') return update('');
      if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return;
      const text = printable(input);
      if (text) update(current.current + text);
    },
    { isActive: handlers.isActive ?? true },
  );
  return value;
}

/** Drop control characters from typed or pasted text. */
function printable(input: string): string {
  return input.replace(/[\u0000-\u001f\u007f]/g, '');
}
