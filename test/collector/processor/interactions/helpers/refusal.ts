/** What `consume` was refused with (a BackpressureError, …), or undefined when the batch was taken. */
export function refusalOf(consumed: Promise<void>): Promise<unknown> {
  return consumed.then(
    () => undefined,
    (error: unknown) => error,
  );
}
