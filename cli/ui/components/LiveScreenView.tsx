/**
 * The `screen --live` view: the screen's source and counts on top, its members in the
 * screen's order (rows that just entered are flashed), and the log of enter/exit events
 * with their times. q or Ctrl-C leaves.
 */
import { Box, Text, useInput } from 'ink';
import { initialLiveScreenState, reduceLiveScreen, type LiveRow, type LiveScreenState } from '../../services/realtime/live-screen-state.js';
import type { WsClientEvent } from '../../services/transport/ws-client.js';
import { useEventFold, type Subscribe } from '../hooks/use-event-fold.js';
import { useTicker } from '../hooks/use-ticker.js';

/** Props of LiveScreenView. */
export interface LiveScreenViewProps {
  subscribe: Subscribe<WsClientEvent>;
  color: boolean;
  interactive: boolean;
  onExit(): void;
  /** Most member rows shown. */
  maxRows?: number;
  initial?: LiveScreenState;
}

const fmt = (v: unknown): string => (typeof v === 'number' ? (Number.isInteger(v) ? v.toLocaleString('en-US') : v.toFixed(2)) : v === null || v === undefined ? '—' : String(v));
const timeOf = (iso: string): string => iso.slice(11, 19);

function MemberRow({ row, fields, flash, color }: { row: LiveRow; fields: string[]; flash: boolean; color: boolean }) {
  return (
    <Box columnGap={2}>
      <Text inverse={flash} color={color && flash ? 'green' : undefined}>{row.code}</Text>
      <Box width={16}><Text wrap="truncate">{row.name}</Text></Box>
      <Box width={12} justifyContent="flex-end"><Text>{fmt(row.price)}</Text></Box>
      {fields.map((f) => (
        <Box key={f} width={14} justifyContent="flex-end"><Text>{fmt(row[f])}</Text></Box>
      ))}
    </Box>
  );
}

/** Render the live screen from the client's events. */
export function LiveScreenView({ subscribe, color, interactive, onExit, maxRows = 20, initial }: LiveScreenViewProps) {
  const state = useEventFold(subscribe, (s: LiveScreenState, e: WsClientEvent) => reduceLiveScreen(s, e), initial ?? initialLiveScreenState());
  // Re-render while a flash is on, so it ends on time.
  const now = useTicker(Object.keys(state.flashes).length > 0);
  useInput((input, key) => {
    if (input === 'q' || key.escape || (key.ctrl && input === 'c')) onExit();
  }, { isActive: interactive });
  const fields = state.sort.map((s) => s.field).filter((f) => f !== 'code' && f !== 'name');
  return (
    <Box flexDirection="column">
      <Box columnGap={2}>
        <Text bold>stockscreen screen --live</Text>
        <Text>{state.source ?? 'subscribing…'}</Text>
        <Text dimColor>{state.connection.state}</Text>
      </Box>
      <Text>members {state.count} · matching {state.total} · entered {state.entered} · exited {state.exited}</Text>
      <Box columnGap={2} marginTop={1}>
        <Text bold>code  </Text>
        <Box width={16}><Text bold>name</Text></Box>
        <Box width={12} justifyContent="flex-end"><Text bold>price</Text></Box>
        {fields.map((f) => (
          <Box key={f} width={14} justifyContent="flex-end"><Text bold>{f}</Text></Box>
        ))}
      </Box>
      {state.members.slice(0, maxRows).map((row) => (
        <MemberRow key={row.code} row={row} fields={fields} flash={(state.flashes[row.code] ?? 0) > now} color={color} />
      ))}
      {state.members.length > maxRows ? <Text dimColor>… {state.members.length - maxRows} more</Text> : null}
      <Box flexDirection="column" marginTop={1}>
        <Text bold>events</Text>
        {state.log.length === 0 ? <Text dimColor>no entry or exit yet</Text> : null}
        {state.log.slice(0, 10).map((e, i) => (
          <Text key={`${e.at}-${e.code}-${i}`} color={color ? (e.kind === 'enter' ? 'green' : 'yellow') : undefined}>
            {timeOf(e.at)} {e.kind === 'enter' ? '+ 편입' : '− 이탈'} {e.code} {e.name}
          </Text>
        ))}
      </Box>
      {state.errors.map((e) => (
        <Text key={e} color={color ? 'red' : undefined}>{e}</Text>
      ))}
    </Box>
  );
}
