/**
 * A mailbox: messages to one actor are handled one at a time, in the order they were posted, and
 * a handler never runs inside another handler of the same actor (posting from a handler queues).
 * Handlers are synchronous state transitions; anything slow is started through the completion
 * gate and comes back as a later message. A handler that throws goes to `onError`.
 */
export interface Mailbox<M> {
  post(message: M): void;
  /** Drops queued and future messages. */
  close(): void;
}

export function createMailbox<M>(handle: (message: M) => void, onError: (error: unknown) => void): Mailbox<M> {
  const queue: M[] = [];
  let draining = false;
  let closed = false;
  return {
    post(message) {
      if (closed) return;
      queue.push(message);
      if (draining) return;
      draining = true;
      try {
        while (queue.length > 0 && !closed) {
          const next = queue.shift()!;
          try {
            handle(next);
          } catch (error) {
            onError(error);
          }
        }
      } finally {
        draining = false;
      }
    },
    close() {
      closed = true;
      queue.length = 0;
    },
  };
}
