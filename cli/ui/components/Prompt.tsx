/** A one-line prompt; secret input is shown as "*" per character. */
import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import { useLineInput } from '../hooks/use-line-input.js';

/** Props of Prompt. */
export interface PromptProps {
  label: string;
  secret?: boolean;
  onSubmit(value: string): void;
  onCancel(): void;
}

type Outcome = { kind: 'submitted'; value: string } | { kind: 'cancelled' };

/** Render `label: value` with a cursor; the value is masked when `secret`. */
export function Prompt({ label, secret = false, onSubmit, onCancel }: PromptProps) {
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const value = useLineInput({
    onSubmit: (v) => setOutcome({ kind: 'submitted', value: v }),
    onCancel: () => setOutcome({ kind: 'cancelled' }),
    isActive: outcome === undefined,
  });
  // Report after the final frame (answer without cursor) has been rendered.
  useEffect(() => {
    if (outcome?.kind === 'submitted') onSubmit(outcome.value);
    if (outcome?.kind === 'cancelled') onCancel();
  }, [outcome]);
  const shown = outcome?.kind === 'submitted' ? outcome.value : value;
  return (
    <Box>
      <Text bold>{label}: </Text>
      <Text>{secret ? '*'.repeat(shown.length) : shown}</Text>
      {outcome === undefined ? <Text inverse> </Text> : null}
      {outcome?.kind === 'cancelled' ? <Text dimColor>(cancelled)</Text> : null}
    </Box>
  );
}
