/** The error codes a client may see: REST codes (with their HTTP status) and WebSocket `error` codes. */
export { ERROR_CODES, WS_ERROR_CODES, type ErrorCode, type ErrorDetails } from '../errors.js';
