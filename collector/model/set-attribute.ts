import type { AttributeValue } from './span.ts';

/**
 * Sets one attribute on a plain object. A sender-chosen key `__proto__` must become an ordinary
 * property: plain assignment would replace the object's prototype instead (prototype pollution).
 */
export function setAttribute(target: Record<string, AttributeValue>, key: string, value: AttributeValue): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
