/**
 * Compile-time checks that the protocol's zod schemas and builders agree with the wire
 * contract (daemon/contract/ws.ts): a drift between them fails `tsc`, nothing runs here.
 * The server message builders in protocol.ts check their bodies with `satisfies` in place.
 */
import type { z } from 'zod';
import type { ClientMessage, ServerMessageType as WireServerMessageType } from '../contract/ws.js';
import type { clientMessageSchema, ServerMessageType } from './protocol.js';

type Assert<T extends true> = T;

/** A validated client message is a contract ClientMessage. */
export type ClientMessagesAreWire = Assert<z.output<typeof clientMessageSchema> extends ClientMessage ? true : false>;
/** Every server message type the protocol builds is a contract message type, and the other way round. */
export type ServerTypesAreWire = Assert<[ServerMessageType] extends [WireServerMessageType] ? ([WireServerMessageType] extends [ServerMessageType] ? true : false) : false>;
