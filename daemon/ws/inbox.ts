/**
 * A connection's inbound queue: client messages wait here until the connection is open and
 * are then handled one at a time in arrival order (a handler that returns a promise, such as
 * refresh_token or reconnect, holds the next message until it settles).
 */

/** How an inbox hands on messages. */
export interface InboxDeps {
  /** Handle one message; a promise holds the queue until it settles. */
  handle(text: string): Promise<void> | void;
  /** A handler's promise rejected (the queue goes on). */
  onError(err: Error): void;
}

/** The inbound queue of one connection. */
export interface Inbox {
  /** Queue a message (handled at once when open and idle). */
  push(text: string): void;
  /** Start handling (the connection is open); messages queued before go first. */
  open(): void;
  /** Stop handling; what is queued is dropped. */
  close(): void;
}

/** Create an inbox, held until open(). */
export function createInbox(deps: InboxDeps): Inbox {
  const pending: string[] = [];
  let busy = true;
  let closed = false;

  function pump(): void {
    while (!busy && !closed && pending.length > 0) {
      const result = deps.handle(pending.shift()!);
      if (result) {
        busy = true;
        result
          .catch((err: Error) => deps.onError(err))
          .finally(() => {
            busy = false;
            pump();
          });
      }
    }
  }

  return {
    push(text) {
      if (closed) return;
      pending.push(text);
      pump();
    },
    open() {
      busy = false;
      pump();
    },
    close() {
      closed = true;
      pending.length = 0;
    },
  };
}
