/**
 * Frees a buffer's memory now, instead of when the garbage collector of every thread that saw it
 * gets to it: a detached buffer gives its memory back at once and stays behind empty. Only for a
 * buffer its caller owns outright (no view of it is still read elsewhere); a shared buffer cannot
 * be detached and is left to the garbage collector, as is one already detached.
 */
export function freeBuffer(buffer: ArrayBufferLike): void {
  if (buffer instanceof ArrayBuffer && !buffer.detached) buffer.transfer(0);
}
