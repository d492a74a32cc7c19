/** Calls a function that should return a promise, turning a synchronous throw into a rejection. */
export function invoke<T>(call: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error);
  }
}
