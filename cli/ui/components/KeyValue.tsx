/** One item as aligned "label  value" lines. */
import { Box, Text } from 'ink';
import type { CellInput } from '../../services/output/output.js';
import { CellText } from './CellText.js';

/** Props of KeyValue. */
export interface KeyValueProps {
  fields: [label: string, value: CellInput][];
}

/** Render labels (dim) in one column and values in the next. */
export function KeyValue({ fields }: KeyValueProps) {
  return (
    <Box flexDirection="row" columnGap={2}>
      <Box flexDirection="column" flexShrink={0}>
        {fields.map(([label], i) => (
          <Text key={i} dimColor>
            {label}
          </Text>
        ))}
      </Box>
      <Box flexDirection="column">
        {fields.map(([, value], i) => (
          <CellText key={i} value={value} />
        ))}
      </Box>
    </Box>
  );
}
